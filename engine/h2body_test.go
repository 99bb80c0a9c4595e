package engine_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/http2"

	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/engine/h2"
	"github.com/redirectd/redirectd/engine/upstream"
	"github.com/redirectd/redirectd/matcher"
)

// pingAck reads until the PING ack, calling each for the frames before.
func (r *rawH2) pingAck(each func(http2.Frame)) {
	r.t.Helper()
	r.next("PING ack", func(f http2.Frame) bool {
		if p, ok := f.(*http2.PingFrame); ok && p.IsAck() {
			return true
		}
		each(f)
		return false
	})
}

// keepPinging sends a PING every 50 ms until the test ends: frames that
// carry no body byte, which must not extend a body's deadline.
func (r *rawH2) keepPinging(t *testing.T) {
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	go func() {
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				if r.fr.WritePing(false, [8]byte{9}) != nil {
					return
				}
			}
		}
	}()
}

// TestH2BodyDeadline: the engine's wiring of a forward's body deadline:
// a body buffered for a forward that makes no progress is reset with
// CANCEL after the group's body_timeout (NeedsBody), the upstream never
// asked. (The deadlines themselves, PINGs meanwhile or not, a body
// dropped after an answer from its head: engine/h2's TestBodyDeadline.)
func TestH2BodyDeadline(t *testing.T) {
	t.Parallel()
	hits := make(chan string, 10)
	addr := startUpstream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits <- r.URL.Path }))
	pool := testPool(t, upstream.Config{Servers: []string{addr}}, nil)
	srv := startH2(t, engine.Options{IdleTimeout: time.Minute, HeaderTimeout: 300 * time.Millisecond,
		Upstream: &engine.UpstreamOptions{Pool: pool, BodyTimeout: 300 * time.Millisecond}})
	for _, tt := range []struct {
		name, path string
		ping       bool
		code       http2.ErrCode
	}{
		{"buffered, nothing meanwhile", "/upload", false, http2.ErrCodeCancel},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := dialH2(t, srv) // the test fails at its 10s deadline
			r.headers(1, false, r.block("POST", tt.path, "content-length", "100"))
			r.fr.WriteData(1, false, make([]byte, 10))
			if tt.ping {
				r.keepPinging(t)
			}
			r.reset(1, tt.code)
		})
	}
	select {
	case p := <-hits:
		t.Fatalf("the upstream was asked for %s, whose body never came", p)
	default:
	}
}

// TestH2ClientBodyBudget: the bodies buffered for one client are bounded
// across all its connections: once they hold MaxClientBodyBytes, a new
// stream's body, on another connection, is streamed to the upstream as
// it comes (so the upstream is asked before the body ends), not
// buffered.
func TestH2ClientBodyBudget(t *testing.T) {
	t.Parallel()
	hits := make(chan string, 10)
	addr := startUpstream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits <- r.URL.Path }))
	pool := testPool(t, upstream.Config{Servers: []string{addr}, MaxConnsPerServer: 8}, nil)
	srv := startH2With(t, h2.Options{MaxClientBodyBytes: 2500}, engine.Options{Upstream: &engine.UpstreamOptions{Pool: pool}})
	open := func(paths ...string) []*rawH2 {
		var rs []*rawH2
		for i, path := range paths {
			r := dialH2(t, srv)
			r.headers(1, false, r.block("POST", path))
			r.fr.WriteData(1, false, make([]byte, 1000))
			r.fr.WritePing(false, [8]byte{byte(i)})
			r.pingAck(func(http2.Frame) {})
			rs = append(rs, r)
		}
		return rs
	}
	firstHit := func(want string) {
		t.Helper()
		select {
		case p := <-hits:
			if p != want {
				t.Fatalf("the upstream was asked for %s first, want %s (past the budget: streamed)", p, want)
			}
		case <-time.After(8 * time.Second):
			t.Fatalf("%s's body is buffered: 3000 bytes held for one client with a budget of 2500", want)
		}
		select {
		case p := <-hits:
			t.Fatalf("the upstream was asked for %s, whose body is buffered and not ended", p)
		default:
		}
	}
	rs := open("/a", "/b", "/c")
	firstHit("/c")
	// The buffered bodies end and are forwarded: their bytes go back to
	// the budget, which holds as before.
	for i, r := range rs[:2] {
		r.fr.WriteData(1, true, nil)
		if st := r.status(1); st != "200" {
			t.Fatalf("%s: %s, want 200", []string{"/a", "/b"}[i], st)
		}
		<-hits
	}
	open("/d", "/e", "/f")
	firstHit("/f")
}

// TestH2HeadDecisionCountsOnce: the decision from the head is the one
// decision run without its effects: a redirect decided from its head and
// a forward whose body is waited for are each counted once (metrics,
// misses), as on HTTP/1.1.
func TestH2HeadDecisionCountsOnce(t *testing.T) {
	t.Parallel()
	addr := startUpstream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	pool := testPool(t, upstream.Config{Servers: []string{addr}}, nil)
	srv := startH2(t, engine.Options{Upstream: &engine.UpstreamOptions{Pool: pool}, MissesCapacity: 32})
	r := dialH2(t, srv)
	r.headers(1, false, r.block("POST", "/old"))
	if st := r.status(1); st != "301" {
		t.Fatalf("/old: %s, want 301", st)
	}
	r.headers(3, false, r.block("POST", "/forwarded"))
	r.fr.WriteData(3, true, []byte("body"))
	if st := r.status(3); st != "200" {
		t.Fatalf("/forwarded: %s, want 200", st)
	}
	m := metricsOf(srv)
	for _, want := range []string{
		`redirectd_http2_streams_total 2`,
		`redirectd_requests_total{outcome="redirect",status="301"} 1`,
		`redirectd_requests_total{outcome="forwarded",status="2xx"} 1`,
	} {
		if !strings.Contains(m, want+"\n") {
			t.Errorf("metrics lack %q:\n%s", want, m)
		}
	}
	got, err := srv.Misses(context.Background(), "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Path != "/forwarded" || got[0].Count != 1 {
		t.Errorf("misses %+v, want /forwarded once", got)
	}
}

// TestH2BodyPanicEndsDry: a panic recovered while a stream's body is
// asked about (NeedsBody decides dry, on the loop's flag) leaves the loop
// deciding for real: a later request on that loop is counted.
func TestH2BodyPanicEndsDry(t *testing.T) {
	t.Parallel()
	set, err := matcher.Compile(testRules)
	if err != nil {
		t.Fatal(err)
	}
	srv := engine.New(engine.Options{Listen: "127.0.0.1:0", EventLoops: 1, IdleTimeout: time.Minute,
		TLS: h2TLSOptions(t)}, set)
	engine.SetPanicHook(srv, func(at string, data []byte) {
		if at == "traffic" && strings.Contains(string(data), "/panic-body") {
			panic("injected while deciding a body")
		}
	})
	runServer(t, srv)

	r := dialH2(t, srv)
	r.headers(1, false, r.block("POST", "/panic-body", "content-length", "10"))
	r.fr.WriteData(1, false, make([]byte, 5))
	for { // the connection the panic was on is closed
		if _, err := r.fr.ReadFrame(); err != nil {
			break
		}
	}

	hits := func() (n uint64) {
		srv.Rules().Each(func(h matcher.RuleHits) { n += h.Hits })
		return n
	}
	before := hits()
	if got := doRequest(t, h2Client(t), "GET", "https://"+srv.TLSAddr()+"/old", "a", ""); got.Status != 301 {
		t.Fatalf("after the panic: %+v", got)
	}
	if n := hits() - before; n != 1 {
		t.Errorf("the redirect after the panic counted %d hits, want 1: the loop still decides dry", n)
	}
}
