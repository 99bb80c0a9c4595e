package tlsconf

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/engine/testport"
	"github.com/redirectd/redirectd/engine/tlsconf/redisstore"
	"github.com/redirectd/redirectd/internal/testutil"
	"github.com/redirectd/redirectd/internal/testutil/acmetest"
	"github.com/redirectd/redirectd/matcher"
)

// The benchmarks here give the figures of benchmarks/README.md's
// "Certificates: storage and issuance": full handshakes for a name
// already issued with the ACME storage in a local folder and in Redis,
// the first handshake of a restarted node (a cold cache), and the time
// from a new name's first handshake to its certificate on demand. Each
// runs the real server (engine's TLS listener and plain port) in front
// of a Manager with hosts = [] and on_demand on, against the in-process
// Pebble of internal/testutil/acmetest (no validation sleep: see there),
// and a real redis-server for the Redis storage.

// benchZone is the wildcard host of the benchmarks' one rule: every name
// under it is served on demand.
const benchZone = "bench.example.com"

// storageKinds are the sub-benchmarks: the storage in a local folder,
// and in Redis with a local copy.
var storageKinds = []string{"local", "redis"}

// certRig is one node: the server and its Manager.
type certRig struct {
	m       *Manager
	set     *metrics.Set
	tlsAddr string
	stop    func()
}

// certEnv is what the nodes of one benchmark share: Pebble, the ports it
// validates on, and the Redis storage when there is one.
type certEnv struct {
	pb                *pebble
	httpAddr, tlsAddr string
	redis             *redisstore.Config
}

func newCertEnv(b *testing.B, storage string) *certEnv {
	httpAddr, httpPort := testport.Addr(b)
	tlsAddr, tlsPort := testport.Addr(b)
	p := acmetest.Start(b, acmetest.Options{HTTPPort: httpPort, TLSPort: tlsPort, Validity: acmetest.NoRenewal})
	e := &certEnv{pb: &pebble{Pebble: p, dirURL: p.DirURL, caRoot: p.CARootFile, roots: p.Roots},
		httpAddr: httpAddr, tlsAddr: tlsAddr}
	if storage == "redis" {
		srv := testutil.RunRedis(b)
		e.redis = &redisstore.Config{Addr: srv.Addr, KeyPrefix: "bench/"}
	}
	return e
}

// start runs a node with its storage in dir (and Redis when e has it) on
// httpAddr and tlsAddr; stop ends it.
func (e *certEnv) start(b *testing.B, dir, httpAddr, tlsAddr string) *certRig {
	r := &certRig{set: metrics.NewSet(), tlsAddr: tlsAddr}
	cfg := &Settings{HTTPListen: httpAddr, TLSListen: tlsAddr,
		ACME: &ACME{CA: e.pb.dirURL, CARoot: e.pb.caRoot, Storage: dir, Redis: e.redis,
			Names: []string{}, OnDemand: true, OnDemandN: 1 << 20, OnDemandPer: time.Hour, PerDomainWeek: 1 << 20}}
	var srv *engine.Server
	decide := RulesCover(func() HostCover { return srv.Rules() })
	m, err := New(cfg, decide, r.set, nil)
	if err != nil {
		b.Fatal(err)
	}
	r.m = m
	rules, err := matcher.Compile([]matcher.Rule{{Kind: matcher.Exact, Host: "*." + benchZone, From: "/old", To: "/new", Status: 301}})
	if err != nil {
		b.Fatal(err)
	}
	srv = engine.New(engine.Options{
		Listen: httpAddr, EventLoops: 1, DeferAccept: true,
		TLS: &engine.TLSOptions{Listen: tlsAddr, Config: m.TLSConfig(), HandshakeTimeout: 30 * time.Second,
			Handshake: func(st *tls.ConnectionState, err error) {
				if err != nil {
					m.HandshakeFailed(err)
				} else {
					m.HandshakeDone(st.Version)
				}
			}},
		ACMEChallenge: m.HTTPChallenge,
	}, rules)
	done := make(chan error, 1)
	go func() { done <- srv.Run() }()
	select {
	case <-srv.Ready():
	case err := <-done:
		b.Fatal(err)
	}
	m.Start()
	r.stop = func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Stop(ctx)
		<-done
		m.Close()
	}
	return r
}

// handshake makes one full handshake as name, verified against Pebble's
// root, and returns how long it took.
func (e *certEnv) handshake(b *testing.B, addr, name string) time.Duration {
	start := time.Now()
	if _, err := handshake(addr, &tls.Config{ServerName: name, RootCAs: e.pb.roots}); err != nil {
		b.Fatalf("%s: no certificate after %s: %v", name, time.Since(start).Round(time.Millisecond), err)
	}
	return time.Since(start)
}

// BenchmarkHandshakeStorage measures full handshakes for a name whose
// certificate was issued (on demand, before the timing), with the
// storage in a local folder and in Redis. The certificate is then in
// certmagic's memory cache, so the storage should not show: the same
// server CPU per handshake either way. The client is a child process
// (TestStorageHandshakeClient), as BenchmarkTLSHandshake's in engine:
// server-us/op is this process's CPU (getrusage) per handshake, its
// accept, request and close; ns/op the round trip; allocs/op the
// server's. Run it with -cpu 1, alternating the two by running the
// binary several times with -test.count 1 (benchmarks/README.md).
func BenchmarkHandshakeStorage(b *testing.B) {
	for _, kind := range storageKinds {
		b.Run("storage="+kind, func(b *testing.B) {
			e := newCertEnv(b, kind)
			r := e.start(b, b.TempDir(), e.httpAddr, e.tlsAddr)
			defer r.stop()
			name := "warm." + benchZone
			e.handshake(b, r.tlsAddr, name) // the order
			benchChildHandshakes(b, r.tlsAddr, name)
			if v := metricValue(r.set, `redirectd_tls_on_demand_total{result="issued"}`); v != 1 {
				b.Errorf("%v on-demand orders issued, want the 1 before the timing", v)
			}
		})
	}
}

// storageClientEnv, set in a child process of the test binary, makes
// TestStorageHandshakeClient the client of BenchmarkHandshakeStorage:
// the server's address and the name.
const storageClientEnv = "REDIRECTD_STORAGE_HANDSHAKE_CLIENT"

// benchChildHandshakes times b.N full handshakes by the child client
// against addr as name.
func benchChildHandshakes(b *testing.B, addr, name string) {
	step := testutil.ChildSteps(b, "TestStorageHandshakeClient", storageClientEnv, addr+" "+name)
	step() // the child's start-up, outside the timing
	b.ReportAllocs()
	b.ResetTimer()
	t0 := testutil.ProcessCPU()
	for b.Loop() {
		step()
	}
	b.ReportMetric(float64((testutil.ProcessCPU()-t0).Microseconds())/float64(b.N), "server-us/op")
}

// TestStorageHandshakeClient is BenchmarkHandshakeStorage's client, run
// only in its child process: for each byte read from stdin, a new
// connection, a full TLS 1.3 handshake with one X25519 share (OpenSSL
// 3.0's), a check that the certificate names the host, one request read
// to the close, and a byte back.
func TestStorageHandshakeClient(t *testing.T) {
	v := os.Getenv(storageClientEnv)
	if v == "" {
		t.Skip("the client of BenchmarkHandshakeStorage, run by it")
	}
	addr, name, _ := strings.Cut(v, " ")
	cfg := &tls.Config{ServerName: name, MinVersion: tls.VersionTLS13, NextProtos: []string{"http/1.1"},
		CurvePreferences: []tls.CurveID{tls.X25519, tls.CurveP256, tls.CurveP384},
		// Pebble's root is in the parent; the name is checked below, and
		// the client's CPU is not measured.
		InsecureSkipVerify: true}
	req := []byte("GET /old HTTP/1.1\r\nHost: " + name + "\r\nConnection: close\r\n\r\n")
	in := bufio.NewReader(os.Stdin)
	buf := make([]byte, 4096)
	for {
		if _, err := in.ReadByte(); err != nil {
			return // the benchmark is over
		}
		c, err := tls.Dial("tcp", addr, cfg)
		if err != nil {
			fmt.Fprintln(os.Stderr, "handshake:", err)
			os.Exit(1)
		}
		if err := c.ConnectionState().PeerCertificates[0].VerifyHostname(name); err != nil {
			fmt.Fprintln(os.Stderr, "certificate:", err)
			os.Exit(1)
		}
		c.Write(req)
		var got []byte
		for {
			n, err := c.Read(buf)
			got = append(got, buf[:n]...)
			if err != nil {
				break
			}
		}
		c.Close()
		if !strings.HasPrefix(string(got), "HTTP/1.1 301") {
			fmt.Fprintf(os.Stderr, "answer: %q\n", got)
			os.Exit(1)
		}
		os.Stdout.Write([]byte{'.'})
	}
}

// BenchmarkColdHandshake measures a restarted node's first handshake for
// a name issued before the restart, so that its certificate is in
// storage only, not in memory: storage=local restarts on the same folder;
// storage=redis on the same folder too, whose local copy already holds
// the certificate; storage=redis-new-node on a new, empty folder (a new
// node of the fleet: the certificate is in Redis only, and the first load
// also writes the local copy, three files, each fsynced by certmagic's
// FileStorage). Each iteration starts a node (not timed), makes the first
// handshake (timed: ns/op, p50-ms, p90-ms, max-ms) and a second one
// (next-ms/op, from the cache), and stops the node. The clients run in
// this process.
func BenchmarkColdHandshake(b *testing.B) {
	for _, kind := range []string{"local", "redis", "redis-new-node"} {
		b.Run("storage="+kind, func(b *testing.B) {
			e := newCertEnv(b, strings.TrimSuffix(kind, "-new-node"))
			dir := b.TempDir()
			name := "cold." + benchZone
			r := e.start(b, dir, e.httpAddr, e.tlsAddr)
			e.handshake(b, r.tlsAddr, name) // the order
			r.stop()
			var firsts []time.Duration
			var next time.Duration
			for b.Loop() {
				b.StopTimer()
				if kind == "redis-new-node" {
					dir = b.TempDir()
				}
				httpAddr, _ := testport.Addr(b)
				tlsAddr, _ := testport.Addr(b)
				r := e.start(b, dir, httpAddr, tlsAddr)
				b.StartTimer()
				firsts = append(firsts, e.handshake(b, tlsAddr, name))
				b.StopTimer()
				next += e.handshake(b, tlsAddr, name)
				if v := metricValue(r.set, `redirectd_tls_on_demand_total{result="issued"}`); v != 0 {
					b.Errorf("the restarted node ordered %v certificates, want 0: it had the one in storage", v)
				}
				r.stop()
				b.StartTimer()
			}
			reportQuantiles(b, firsts)
			b.ReportMetric(float64(next.Microseconds())/1e3/float64(len(firsts)), "next-ms/op")
		})
	}
}

// BenchmarkOnDemandIssuance measures the time from a new name's first
// handshake to its certificate: each iteration is a handshake for a name
// never seen, which waits for the on-demand order (account, order,
// HTTP-01 or TLS-ALPN-01 validated by Pebble over loopback, finalize,
// storage) and ends verified. ns/op is the mean; p50-ms and p90-ms the
// median and 90th percentile. Run it with -benchtime 20x for 20 names.
// The first name also registers the ACME account (first-ms). The challenge is
// pinned per sub-benchmark: acmez picks one at random per process.
func BenchmarkOnDemandIssuance(b *testing.B) {
	defer func() { onlyChallenge = "" }()
	for _, kind := range storageKinds {
		for _, ch := range []string{"http-01", "tls-alpn-01"} {
			b.Run("storage="+kind+"/challenge="+ch, func(b *testing.B) {
				onlyChallenge = ch
				benchIssuance(b, kind)
			})
		}
	}
}

func benchIssuance(b *testing.B, kind string) {
	e := newCertEnv(b, kind)
	r := e.start(b, b.TempDir(), e.httpAddr, e.tlsAddr)
	defer r.stop()
	var took []time.Duration
	for b.Loop() {
		name := fmt.Sprintf("n%d.%s", len(took), benchZone)
		took = append(took, e.handshake(b, r.tlsAddr, name))
	}
	reportQuantiles(b, took)
	b.ReportMetric(float64(took[0].Microseconds())/1e3, "first-ms")
	if v := metricValue(r.set, `redirectd_tls_on_demand_total{result="issued"}`); int(v) != len(took) {
		b.Errorf("%v on-demand orders issued for %d names", v, len(took))
	}
}

// reportQuantiles reports the median, 90th percentile and maximum of ds,
// in milliseconds, and logs each in order (the tail is the story).
func reportQuantiles(b *testing.B, ds []time.Duration) {
	if len(ds) == 0 {
		return
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	at := func(q float64) float64 { return float64(s[int(q*float64(len(s)-1)+0.5)].Microseconds()) / 1e3 }
	b.ReportMetric(at(0.5), "p50-ms")
	b.ReportMetric(at(0.9), "p90-ms")
	b.ReportMetric(float64(s[len(s)-1].Microseconds())/1e3, "max-ms")
	if len(ds) > 1 {
		var ms []string
		for _, d := range ds {
			ms = append(ms, strconv.FormatFloat(float64(d.Microseconds())/1e3, 'f', 1, 64))
		}
		b.Logf("each, in order, ms: %s", strings.Join(ms, " "))
	}
}
