package tlsconf

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/redirectd/redirectd/engine/tlsconf/redisstore"
	"github.com/redirectd/redirectd/internal/testutil"
)

// TestACMEFleetRedis runs two Managers on one Redis ([acme.redis]),
// each with its own local folder, managing the same host against Pebble.
// The plain port Pebble validates on hands the challenge requests to the
// two in turn, so each answers challenges the other may have begun. The
// certificate must be ordered once (one cert_obtained over both) and
// served by both with the same serial. Then, with Redis killed, a
// Manager restarted on the first one's folder still serves it, without
// ordering.
func TestACMEFleetRedis(t *testing.T) {
	if testing.Short() {
		t.Skip("issues a certificate: several seconds")
	}
	onlyChallenge = "http-01"
	t.Cleanup(func() { onlyChallenge = "" })
	srv := testutil.RunRedis(t)
	httpLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	httpPort := httpLn.Addr().(*net.TCPAddr).Port
	pb := startPebble(t, httpPort, 1, time.Hour) // no renewal within the test

	const host = "fleet.example.com"
	var nodes [2]atomic.Pointer[Manager]
	var turn, answered [2]atomic.Int32
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := turn[0].Add(1) % 2 // each request to the other node
		if m := nodes[i].Load(); m != nil {
			if body, ok := m.HTTPChallenge(r.Host, r.URL.Path); ok {
				answered[i].Add(1)
				w.Write(body)
				return
			}
		}
		http.NotFound(w, r)
	})}
	go hs.Serve(httpLn)
	t.Cleanup(func() { hs.Close() })

	redis := &redisstore.Config{Addr: srv.Addr, KeyPrefix: "fleet/", LockPoll: 50 * time.Millisecond}
	settings := func(dir string) *Settings {
		return &Settings{HTTPListen: httpLn.Addr().String(), TLSListen: "127.0.0.1:1",
			ACME: &ACME{CA: pb.dirURL, CARoot: pb.caRoot, Storage: dir, Names: []string{host}, Redis: redis}}
	}
	dirs := [2]string{t.TempDir(), t.TempDir()}
	sets := [2]*metrics.Set{metrics.NewSet(), metrics.NewSet()}
	var addrs [2]string
	for i := range nodes {
		m, err := New(settings(dirs[i]), nil, sets[i], testLogger(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(m.Close)
		nodes[i].Store(m)
		addrs[i] = serveTLS(t, m, nil)
	}
	for i := range nodes {
		go nodes[i].Load().Start() // at once, so that both race for the order
	}

	client := &tls.Config{ServerName: host, RootCAs: pb.roots}
	serial := func(addr string) string {
		t.Helper()
		var s string
		var last error
		if !testutil.Eventually(30*time.Second, func() bool {
			st, err := dial(addr, client)
			if err != nil {
				last = err
				return false
			}
			s = st.PeerCertificates[0].SerialNumber.String()
			return true
		}) {
			t.Fatalf("no certificate for %s at %s: %v", host, addr, last)
		}
		return s
	}
	s0, s1 := serial(addrs[0]), serial(addrs[1])
	if s0 != s1 {
		t.Errorf("the nodes serve different certificates (serials %s and %s): it was ordered twice", s0, s1)
	}
	obtained := metricValue(sets[0], `redirectd_acme_obtain_total{result="ok"}`) + metricValue(sets[1], `redirectd_acme_obtain_total{result="ok"}`)
	if obtained != 1 {
		t.Errorf("%v certificates obtained over both nodes, want 1", obtained)
	}
	t.Logf("serial %s on both nodes; challenge requests answered: %d by node 0, %d by node 1", s0, answered[0].Load(), answered[1].Load())
	if answered[0].Load() == 0 || answered[1].Load() == 0 {
		t.Error("a node answered no challenge: Pebble validates from 3 perspectives, so both had to answer one")
	}

	// Redis goes down; node 0 restarts on its folder and serves the
	// certificate from its local copy, ordering nothing.
	srv.Stop()
	nodes[0].Load().Close()
	set := metrics.NewSet()
	m, err := New(settings(dirs[0]), nil, set, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	nodes[0].Store(m)
	addr := serveTLS(t, m, nil)
	m.Start()
	if s := serial(addr); s != s0 {
		t.Errorf("restarted during the outage, node 0 serves serial %s, want %s from its local copy", s, s0)
	}
	if v := metricValue(set, `redirectd_tls_storage_up{backend="redis"}`); v != 0 {
		t.Errorf("redirectd_tls_storage_up = %v during the outage, want 0", v)
	}
	if v := metricValue(set, `redirectd_acme_obtain_total{result="ok"}`); v != 0 {
		t.Errorf("the restarted node obtained %v certificates during the outage", v)
	}

	// Redis comes back empty (no persistence); node 0 restarts again. It
	// writes its copy back instead of ordering, and a node with an empty
	// folder then gets the certificate from Redis: a fleet whose Redis
	// was emptied spends no issuance.
	srv.Start()
	m.Close()
	set = metrics.NewSet()
	m, err = New(settings(dirs[0]), nil, set, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	nodes[0].Store(m)
	addr = serveTLS(t, m, nil)
	m.Start()
	if s := serial(addr); s != s0 {
		t.Errorf("restarted against an empty Redis, node 0 serves serial %s, want %s", s, s0)
	}
	if v := metricValue(set, `redirectd_acme_obtain_total{result="ok"}`); v != 0 {
		t.Errorf("restarted against an empty Redis, node 0 obtained %v certificates, want 0", v)
	}
	if v := metricValue(set, `redirectd_tls_storage_restored_total`); v == 0 {
		t.Error("node 0 wrote nothing back to the empty Redis")
	}
	fresh := metrics.NewSet()
	m2, err := New(settings(t.TempDir()), nil, fresh, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m2.Close)
	nodes[1].Store(m2)
	addr2 := serveTLS(t, m2, nil)
	m2.Start()
	if s := serial(addr2); s != s0 {
		t.Errorf("a new node serves serial %s, want %s from the restored Redis", s, s0)
	}
	if v := metricValue(fresh, `redirectd_acme_obtain_total{result="ok"}`); v != 0 {
		t.Errorf("a new node obtained %v certificates, want 0: Redis should hold node 0's", v)
	}
}

// TestRedisStorageReload checks that a reload keeps the Redis storage
// (its connection and locks) when [acme.redis] is unchanged, replaces
// and closes it when it changes, and closes it when it goes.
func TestRedisStorageReload(t *testing.T) {
	srv := testutil.RunRedis(t)
	dir := t.TempDir()
	cfg := func(prefix string) *Settings {
		s := &Settings{ACME: &ACME{CA: "https://ca.invalid/dir", Storage: dir}}
		if prefix != "" {
			s.ACME.Redis = &redisstore.Config{Addr: srv.Addr, KeyPrefix: prefix}
		}
		return s
	}
	m := newManager(t, cfg("a/"))
	first := m.redis
	if first == nil {
		t.Fatal("no Redis storage with [acme.redis]")
	}
	if err := m.Reload(cfg("a/")); err != nil || m.redis != first {
		t.Fatalf("an unchanged reload replaced the storage (err %v)", err)
	}
	if err := m.Reload(cfg("b/")); err != nil || m.redis == first || m.redis == nil {
		t.Fatalf("a new key_prefix kept the storage (err %v)", err)
	}
	if err := first.Redis().Ping(context.Background()); err == nil {
		t.Error("the replaced storage's client is still open")
	}
	second := m.redis
	if err := m.Reload(cfg("")); err != nil || m.redis != nil {
		t.Fatalf("without [acme.redis] the Redis storage stays (err %v)", err)
	}
	if err := second.Redis().Ping(context.Background()); err == nil {
		t.Error("the dropped storage's client is still open")
	}
}
