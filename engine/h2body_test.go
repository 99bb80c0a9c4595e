package engine_test

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"

	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/engine/h2"
	"github.com/redirectd/redirectd/engine/upstream"
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

// TestH2BodyDecidedFromHead: the reported attack, a POST to a redirect
// rule whose body is held open while PINGs keep the connection busy,
// gets its redirect from the head, before the server reads on; the body
// is dropped, never given window (so at most one window of it is ever
// sent), and the stream reset with NO_ERROR once the client spends it;
// DATA in flight after that reset is dropped, drawing no other reset,
// and the connection goes on.
func TestH2BodyDecidedFromHead(t *testing.T) {
	t.Parallel()
	srv := startH2(t, engine.Options{})
	r := dialH2(t, srv)
	r.headers(1, false, r.block("POST", "/old", "content-length", "10000000"))
	r.fr.WriteData(1, false, make([]byte, 1000))
	r.fr.WritePing(false, [8]byte{1})
	status := ""
	r.pingAck(func(f http2.Frame) {
		if h, ok := f.(*http2.HeadersFrame); ok && h.StreamID == 1 {
			status = "seen"
		}
	})
	if status == "" {
		t.Fatal("no answer to the POST before the PING after its first DATA: the body is waited for")
	}
	// Half the stream's window more: the server gives none back, and
	// resets the stream.
	for range 2 {
		r.fr.WriteData(1, false, make([]byte, 16384))
	}
	r.fr.WriteData(1, false, make([]byte, 1000)) // sent before the reset is read: dropped
	r.fr.WritePing(false, [8]byte{2})
	resets := 0
	r.pingAck(func(f http2.Frame) {
		switch f := f.(type) {
		case *http2.RSTStreamFrame:
			if f.StreamID != 1 || f.ErrCode != http2.ErrCodeNo {
				t.Errorf("RST_STREAM %d %v, want stream 1 NO_ERROR", f.StreamID, f.ErrCode)
			}
			resets++
		case *http2.WindowUpdateFrame:
			if f.StreamID == 1 {
				t.Errorf("WINDOW_UPDATE %d for a body that is dropped", f.Increment)
			}
		}
	})
	if resets != 1 {
		t.Fatalf("%d resets of stream 1, want one (NO_ERROR), the DATA after it dropped", resets)
	}
	r.headers(3, true, r.block("GET", "/old"))
	if st := r.status(3); st != "301" {
		t.Fatalf("the next stream: %s, want 301", st)
	}
}

// TestH2BodyDeadline: a body that makes no progress gets its deadline,
// whatever other frames the client sends: one buffered for a forward
// (the group's body_timeout) is reset with CANCEL, the upstream never
// asked; one dropped after an answer from its head (header_timeout) is
// reset with NO_ERROR; a client that sends nothing at all is bounded
// the same, not by the idle timeout.
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
		{"buffered, PINGs meanwhile", "/upload", true, http2.ErrCodeCancel},
		{"buffered, nothing meanwhile", "/upload", false, http2.ErrCodeCancel},
		{"dropped after a redirect, PINGs meanwhile", "/old", true, http2.ErrCodeNo},
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

// TestH2HeaderDeadline: a header block left unfinished (HEADERS without
// END_HEADERS, no CONTINUATION) is bounded by header_timeout, as an
// HTTP/1.1 head is, not by the idle timeout.
func TestH2HeaderDeadline(t *testing.T) {
	t.Parallel()
	srv := startH2(t, engine.Options{IdleTimeout: time.Minute, HeaderTimeout: 300 * time.Millisecond})
	r := dialH2(t, srv) // the test fails at its 10s deadline
	r.headers(1, true, r.block("GET", "/old"))
	if st := r.status(1); st != "301" {
		t.Fatalf("%s, want 301", st)
	}
	if err := r.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 3, BlockFragment: r.block("GET", "/old"), EndStream: true}); err != nil {
		t.Fatal(err)
	}
	r.goAway(http2.ErrCodeNo)
}

// TestH2DroppedBodyEnds: a stream answered from its head closes when its
// body ends, by DATA or by trailers, freeing its place among the
// concurrent streams.
func TestH2DroppedBodyEnds(t *testing.T) {
	t.Parallel()
	srv := startH2With(t, h2.Options{MaxConcurrentStreams: 1}, engine.Options{})
	r := dialH2(t, srv)
	r.headers(1, false, r.block("POST", "/old"))
	if st := r.status(1); st != "301" {
		t.Fatalf("stream 1: %s, want 301", st)
	}
	r.fr.WriteData(1, true, []byte("x"))
	r.headers(3, false, r.block("POST", "/old"))
	if st := r.status(3); st != "301" {
		t.Fatalf("stream 3 after stream 1's body ended: %s, want 301", st)
	}
	r.blk.Reset()
	r.enc.WriteField(hpack.HeaderField{Name: "x-trailer", Value: "1"})
	r.headers(3, true, bytes.Clone(r.blk.Bytes())) // trailers end it
	r.headers(5, true, r.block("GET", "/old"))
	if st := r.status(5); st != "301" {
		t.Fatalf("stream 5 after stream 3's trailers: %s, want 301", st)
	}
}

// TestH2BodyMinRate: a buffered body that trickles in, a byte now and
// then, must still be whole within body_timeout plus a second per
// body_min_rate bytes, as on HTTP/1.1; past it the stream is reset.
func TestH2BodyMinRate(t *testing.T) {
	t.Parallel()
	addr := startUpstream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	pool := testPool(t, upstream.Config{Servers: []string{addr}}, nil)
	srv := startH2(t, engine.Options{IdleTimeout: time.Minute,
		Upstream: &engine.UpstreamOptions{Pool: pool, BodyTimeout: 300 * time.Millisecond, BodyMinRate: 1000}})
	r := dialH2(t, srv) // the test fails at its 10s deadline
	r.headers(1, false, r.block("POST", "/upload", "content-length", "100000"))
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	go func() {
		// 10 bytes every 50 ms: 200 bytes a second, a byte far more
		// often than body_timeout.
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				if r.fr.WriteData(1, false, make([]byte, 10)) != nil {
					return
				}
			}
		}
	}()
	r.reset(1, http2.ErrCodeCancel)
}
