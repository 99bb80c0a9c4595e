package redisstore

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/redirectd/redirectd/internal/testutil"
)

func init() { probeEvery = 20 * time.Millisecond }

// node is one redirectd's storage in a test: a Layered over its own
// folder, its metrics and its log.
type node struct {
	*Layered
	dir string
	set *metrics.Set
	log *testutil.LockedBuffer
}

func newNode(t *testing.T, srv *testutil.Redis) *node {
	t.Helper()
	n := &node{dir: t.TempDir(), set: metrics.NewSet(), log: &testutil.LockedBuffer{}}
	l, err := NewLayered(Config{Addr: srv.Addr, KeyPrefix: globPrefix, LockPoll: 10 * time.Millisecond},
		n.dir, n.set, slog.New(slog.NewTextHandler(n.log, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	n.Layered = l
	return n
}

func (n *node) metric(t *testing.T, name string) float64 {
	t.Helper()
	var b bytes.Buffer
	n.set.WritePrometheus(&b)
	v, ok := testutil.Metric(b.String(), name)
	if !ok {
		t.Fatalf("no %s in:\n%s", name, b.String())
	}
	return v
}

func (n *node) waitUp(t *testing.T, up float64) {
	t.Helper()
	testutil.WaitFor(t, testutil.Patience, "redirectd_tls_storage_up", func() bool {
		return n.metric(t, `redirectd_tls_storage_up{backend="redis"}`) == up
	})
}

const (
	certKey  = "certificates/acme-v02.api.letsencrypt.org-directory/a.example/a.example.crt"
	tokenKey = "acme/acme-v02.api.letsencrypt.org-directory/challenge_tokens/a.example.json"
)

// TestLayeredOutage kills redis-server under two nodes and starts it
// again on the same port: while it is down, a certificate one node
// stored and the other only read is still read by both from their local
// copies, stores and locks fail, and the gauge and the log say so; once
// it is back, the gauge and writes come back by themselves.
func TestLayeredOutage(t *testing.T) {
	t.Parallel()
	srv := testutil.RunRedis(t)
	ctx := context.Background()
	a, b := newNode(t, srv), newNode(t, srv)
	a.waitUp(t, 1)
	cert := []byte("-----BEGIN CERTIFICATE-----\n...")
	if err := a.Store(ctx, certKey, cert); err != nil {
		t.Fatal(err)
	}
	if err := a.Store(ctx, tokenKey, []byte("{}")); err != nil {
		t.Fatal(err)
	}
	if got, err := b.Load(ctx, certKey); err != nil || !bytes.Equal(got, cert) {
		t.Fatalf("b.Load = %q, %v", got, err)
	}
	if _, err := os.Stat(filepath.Join(b.dir, filepath.FromSlash(tokenKey))); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("challenge data was copied into the local folder: %v", err)
	}

	srv.Stop()
	for _, n := range []*node{a, b} {
		if got, err := n.Load(ctx, certKey); err != nil || !bytes.Equal(got, cert) {
			t.Errorf("Load while redis is down = %q, %v; want the local copy", got, err)
		}
		if !n.Exists(ctx, certKey) {
			t.Error("Exists while redis is down = false")
		}
		if keys, err := n.List(ctx, "certificates", true); err != nil || len(keys) != 3 {
			t.Errorf("List while redis is down = %q, %v", keys, err)
		}
		if err := n.Store(ctx, "certificates/x", []byte("x")); !errors.Is(err, ErrDown) {
			t.Errorf("Store while redis is down = %v, want ErrDown", err)
		}
		if err := n.Lock(ctx, "issue_cert_x"); !errors.Is(err, ErrDown) {
			t.Errorf("Lock while redis is down = %v, want ErrDown", err)
		}
		n.waitUp(t, 0)
		if n.metric(t, `redirectd_tls_storage_errors_total{op="store"}`) < 1 || n.metric(t, `redirectd_tls_storage_fallbacks_total{op="load"}`) < 1 {
			t.Error("the store error or the load fallback was not counted")
		}
		// the gauge is set before the line is logged
		if !testutil.Eventually(testutil.Patience, func() bool { return strings.Contains(n.log.String(), "redis is unreachable") }) {
			t.Errorf("no log line for the outage:\n%s", n.log)
		}
	}
	if _, err := os.Stat(filepath.Join(a.dir, "certificates", "x")); !errors.Is(err, fs.ErrNotExist) {
		t.Error("a Store that failed in redis was written to the local copy")
	}

	srv.Start() // empty: the test runs it without persistence
	for _, n := range []*node{a, b} {
		n.waitUp(t, 1)
		// the gauge is set before the line is logged
		if !testutil.Eventually(testutil.Patience, func() bool { return strings.Contains(n.log.String(), "redis is reachable") }) {
			t.Errorf("no log line for the return:\n%s", n.log)
		}
		if err := n.Store(ctx, "certificates/x", []byte("x")); err != nil {
			t.Errorf("Store once redis is back: %v", err)
		}
		// The certificate Redis lost is written back from the local
		// copy, not ordered again; a key that is no certificate or
		// account stays lost.
		if v, err := n.Load(ctx, certKey); err != nil || len(v) == 0 {
			t.Errorf("Load of a certificate redis lost = %q, %v; want the local copy", v, err)
		}
		if !n.Redis().Exists(ctx, certKey) {
			t.Error("the certificate redis lost was not written back")
		}
		if n.local.Store(ctx, "locks/x", []byte("l")) == nil {
			if _, err := n.Load(ctx, "locks/x"); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("Load of a lock only the local copy holds = %v, want fs.ErrNotExist", err)
			}
		}
	}
}

// TestLayeredStartsDown checks that a node whose Redis is down at start
// serves from its local copy and reports down.
func TestLayeredStartsDown(t *testing.T) {
	t.Parallel()
	srv := testutil.RunRedis(t)
	srv.Stop()
	n := newNode(t, srv)
	if err := n.local.Store(context.Background(), certKey, []byte("c")); err != nil {
		t.Fatal(err)
	}
	if got, err := n.Load(context.Background(), certKey); err != nil || string(got) != "c" {
		t.Errorf("Load = %q, %v; want the local copy", got, err)
	}
	n.waitUp(t, 0)
	srv.Start()
	n.waitUp(t, 1)
}

// TestLayeredHungRedis puts a server that accepts connections and never
// answers (a hung Redis, or one behind a link that drops packets) under
// a node: reads fall back to the local copy once the 2 s timeout passes,
// and once Redis is taken for down they no longer ask it.
func TestLayeredHungRedis(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var held []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range held {
			c.Close()
		}
		mu.Unlock()
	})
	dir := t.TempDir()
	set := metrics.NewSet()
	l, err := NewLayered(Config{Addr: ln.Addr().String()}, dir, set, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx := context.Background()
	if err := l.local.Store(ctx, certKey, []byte("c")); err != nil {
		t.Fatal(err)
	}
	if got, err := l.Load(ctx, certKey); err != nil || string(got) != "c" {
		t.Fatalf("Load = %q, %v; want the local copy", got, err)
	}
	n := &node{Layered: l, set: set}
	n.waitUp(t, 0)
	asked := n.metric(t, `redirectd_tls_storage_errors_total{op="load"}`)
	for range 5 {
		if got, err := l.Load(ctx, certKey); err != nil || string(got) != "c" {
			t.Fatalf("Load = %q, %v; want the local copy", got, err)
		}
	}
	if now := n.metric(t, `redirectd_tls_storage_errors_total{op="load"}`); now != asked {
		t.Errorf("loads asked the hung Redis while it was down: %v load errors, then %v", asked, now)
	}
	if f := n.metric(t, `redirectd_tls_storage_fallbacks_total{op="load"}`); f < 6 {
		t.Errorf("%v loads answered by the local copy, want 6", f)
	}
}
