package engine_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"

	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/engine/h2"
	"github.com/redirectd/redirectd/engine/upstream"
	"github.com/redirectd/redirectd/internal/testutil"
	"github.com/redirectd/redirectd/matcher"
)

// rawH2 is a client that writes frames as the test says, over TLS with
// ALPN h2, to the real server.
type rawH2 struct {
	t   *testing.T
	c   *tls.Conn
	fr  *http2.Framer
	enc *hpack.Encoder
	blk bytes.Buffer
}

func dialH2(t *testing.T, srv *engine.Server) *rawH2 {
	t.Helper()
	c, err := tls.Dial("tcp", srv.TLSAddr(), clientTLS(t, "h2"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if p := c.ConnectionState().NegotiatedProtocol; p != "h2" {
		t.Fatalf("ALPN chose %q, want h2", p)
	}
	r := &rawH2{t: t, c: c, fr: http2.NewFramer(c, c)}
	r.enc = hpack.NewEncoder(&r.blk)
	if _, err := io.WriteString(c, http2.ClientPreface); err != nil {
		t.Fatal(err)
	}
	r.fr.WriteSettings()
	c.SetDeadline(time.Now().Add(testutil.Patience))
	return r
}

// block encodes a request's fields: pseudo-headers for method and path,
// then extra as name, value pairs.
func (r *rawH2) block(method, path string, extra ...string) []byte {
	r.blk.Reset()
	r.enc.WriteField(hpack.HeaderField{Name: ":method", Value: method})
	r.enc.WriteField(hpack.HeaderField{Name: ":scheme", Value: "https"})
	r.enc.WriteField(hpack.HeaderField{Name: ":authority", Value: "a"})
	r.enc.WriteField(hpack.HeaderField{Name: ":path", Value: path})
	for i := 0; i+1 < len(extra); i += 2 {
		r.enc.WriteField(hpack.HeaderField{Name: extra[i], Value: extra[i+1]})
	}
	return bytes.Clone(r.blk.Bytes())
}

func (r *rawH2) headers(id uint32, end bool, block []byte) {
	r.t.Helper()
	if err := r.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: block, EndStream: end, EndHeaders: true}); err != nil {
		r.t.Fatal(err)
	}
}

// next reads frames until one satisfies want, and returns it; it fails
// the test when the connection ends first.
func (r *rawH2) next(what string, want func(http2.Frame) bool) http2.Frame {
	r.t.Helper()
	for {
		f, err := r.fr.ReadFrame()
		if err != nil {
			r.t.Fatalf("waiting for %s: %v", what, err)
		}
		if want(f) {
			return f
		}
	}
}

// status reads until stream id's HEADERS and returns its :status.
func (r *rawH2) status(id uint32) string {
	r.t.Helper()
	return r.fields(id)[":status"]
}

// fields reads until stream id's HEADERS and returns its fields. The
// server's blocks never use the dynamic table, so a fresh decoder reads
// each.
func (r *rawH2) fields(id uint32) map[string]string {
	r.t.Helper()
	f := r.next("HEADERS", func(f http2.Frame) bool { _, ok := f.(*http2.HeadersFrame); return ok && f.Header().StreamID == id })
	m := map[string]string{}
	hpack.NewDecoder(4096, func(hf hpack.HeaderField) { m[hf.Name] = hf.Value }).Write(f.(*http2.HeadersFrame).HeaderBlockFragment())
	return m
}

// goAway reads until GOAWAY and checks its code; the connection must then
// end.
func (r *rawH2) goAway(code http2.ErrCode) {
	r.t.Helper()
	f := r.next("GOAWAY", func(f http2.Frame) bool { _, ok := f.(*http2.GoAwayFrame); return ok }).(*http2.GoAwayFrame)
	if f.ErrCode != code {
		r.t.Fatalf("GOAWAY %v, want %v", f.ErrCode, code)
	}
	for {
		if _, err := r.fr.ReadFrame(); err != nil {
			if !errors.Is(err, io.EOF) && !isReset(err) && !strings.Contains(err.Error(), "closed") {
				r.t.Fatalf("after GOAWAY: %v, want the connection closed", err)
			}
			return
		}
	}
}

func (r *rawH2) reset(id uint32, code http2.ErrCode) {
	r.t.Helper()
	f := r.next("RST_STREAM", func(f http2.Frame) bool { _, ok := f.(*http2.RSTStreamFrame); return ok }).(*http2.RSTStreamFrame)
	if f.StreamID != id || f.ErrCode != code {
		r.t.Fatalf("RST_STREAM %d %v, want %d %v", f.StreamID, f.ErrCode, id, code)
	}
}

// startH2With runs the server with h2 limits o.
func startH2With(t *testing.T, o h2.Options, opts engine.Options) *engine.Server {
	t.Helper()
	tlsOpts := h2TLSOptions(t)
	tlsOpts.HTTP2 = o
	opts.TLS = tlsOpts
	return startH2(t, opts)
}

// TestH2SendTimeout: the engine's wiring of SendTimeout (send_timeout):
// a forward whose answer a client holds back with a window of 0, while
// it sends a PING every 100 ms, has its stream reset, lets go of its
// upstream connection, and is counted as timeout="send". (The bound
// itself: engine/h2's TestSendTimeout.)
func TestH2SendTimeout(t *testing.T) {
	t.Parallel()
	upstreamGone := make(chan struct{})
	u := startRawUpstream(t, func(u *rawUpstream, rc *rawConn) {
		if _, err := rc.readHead(5 * time.Second); err != nil {
			return
		}
		io.WriteString(rc.c, "HTTP/1.1 200 OK\r\nContent-Length: 1073741824\r\n\r\n")
		chunk := make([]byte, 64<<10)
		for {
			rc.c.SetWriteDeadline(time.Now().Add(20 * time.Second))
			if _, err := rc.c.Write(chunk); err != nil {
				close(upstreamGone)
				return
			}
		}
	})
	pool := testPool(t, upstream.Config{Servers: []string{u.addr}}, nil)
	srv := startH2(t, engine.Options{Upstream: &engine.UpstreamOptions{Pool: pool, SendTimeout: 300 * time.Millisecond}})
	r := dialH2(t, srv)
	r.fr.WriteSettings(http2.Setting{ID: http2.SettingInitialWindowSize, Val: 0})
	r.headers(1, true, r.block("GET", "/download"))
	r.keepPinging(t)
	r.reset(1, http2.ErrCodeCancel)
	select {
	case <-upstreamGone:
	case <-time.After(8 * time.Second):
		t.Fatal("the upstream connection is still held 8s after the stream was reset")
	}
	if m := metricsOf(srv); !strings.Contains(m, `timeout="send"} 1`) {
		t.Errorf("send timeout not counted:\n%s", m)
	}
}

// TestH2BodyTooLarge: a forwarded request whose content-length is over
// max_request_body_bytes gets 413 from its head, before any of its body,
// without the upstream being asked; one without content-length that
// streams past it gets 413 too.
func TestH2BodyTooLarge(t *testing.T) {
	t.Parallel()
	hits := make(chan string, 10)
	addr := startUpstream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		hits <- r.URL.Path
	}))
	pool := testPool(t, upstream.Config{Servers: []string{addr}, MaxConnsPerServer: 4}, nil)
	srv := startH2With(t, h2.Options{MaxBodyBytes: 1000}, engine.Options{Upstream: &engine.UpstreamOptions{Pool: pool, MaxRequestBodyBytes: 1200}})
	r := dialH2(t, srv)
	r.headers(1, false, r.block("POST", "/upload", "content-length", "5000"))
	if st := r.status(1); st != "413" {
		t.Fatalf("with content-length: %s, want 413", st)
	}
	r.fr.WriteData(1, true, make([]byte, 5000)) // dropped
	select {
	case p := <-hits:
		t.Fatalf("the upstream was asked for %s", p)
	default:
	}
	r.headers(3, false, r.block("POST", "/streamed"))
	for range 3 {
		r.fr.WriteData(3, false, make([]byte, 800))
	}
	if st := r.status(3); st != "413" {
		t.Fatalf("streamed past the bound: %s, want 413", st)
	}
}

// TestH2StreamedBody: a body past what engine/h2 buffers (one stream's
// MaxBodyBytes, or the connection's MaxConnBodyBytes in all) is streamed
// to the upstream as it comes, whole and in order; the buffered ones
// still are forwarded.
func TestH2StreamedBody(t *testing.T) {
	t.Parallel()
	addr := startUpstream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		sum := 0
		for _, c := range b {
			sum += int(c)
		}
		w.Header().Set("X-Got", strconv.Itoa(len(b))+" "+strconv.Itoa(sum))
	}))
	pool := testPool(t, upstream.Config{Servers: []string{addr}, MaxConnsPerServer: 4}, nil)
	srv := startH2With(t, h2.Options{MaxBodyBytes: 1000, MaxConnBodyBytes: 1500, StreamWindow: 4096},
		engine.Options{Upstream: &engine.UpstreamOptions{Pool: pool}})
	r := dialH2(t, srv)
	post := r.block("POST", "/upload")
	r.headers(1, false, post)
	r.headers(3, false, post)
	r.fr.WriteData(1, false, bytes.Repeat([]byte{1}, 800))
	r.fr.WriteData(3, false, bytes.Repeat([]byte{2}, 800)) // 1600 in all: stream 3 streams
	// 100 KB more on stream 3, far past its 4 KiB window: sent as the
	// server gives the window back (WINDOW_UPDATE, read below).
	credit := make(chan int, 1000)
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		window := 4096 - 800
		for range 100 {
			for window < 1000 {
				window += <-credit
			}
			r.fr.WriteData(3, false, bytes.Repeat([]byte{2}, 1000))
			window -= 1000
		}
		r.fr.WriteData(3, true, nil)
	}()
	var got string
	for got == "" {
		f, err := r.fr.ReadFrame()
		if err != nil {
			t.Fatalf("waiting for stream 3's answer: %v", err)
		}
		switch f := f.(type) {
		case *http2.WindowUpdateFrame:
			if f.StreamID == 3 {
				credit <- int(f.Increment)
			}
		case *http2.HeadersFrame:
			if f.StreamID == 3 {
				hpack.NewDecoder(4096, func(hf hpack.HeaderField) {
					if hf.Name == "x-got" {
						got = hf.Value
					}
				}).Write(f.HeaderBlockFragment())
				if got == "" {
					t.Fatal("stream 3's answer has no x-got")
				}
			}
		case *http2.RSTStreamFrame:
			t.Fatalf("stream %d reset: %v", f.StreamID, f.ErrCode)
		}
	}
	if got != "100800 201600" {
		t.Errorf("stream 3 (streamed): the upstream got %q, want 100800 bytes summing to 201600", got)
	}
	<-sent // one writer at a time on the Framer
	r.fr.WriteData(1, true, bytes.Repeat([]byte{1}, 100))
	if got := r.fields(1)["x-got"]; got != "900 900" {
		t.Errorf("stream 1 (buffered): the upstream got %q, want 900 bytes", got)
	}
}

// TestH2Malformed: what HTTP/2 allows but the HTTP/1.1 parser refuses
// gets the same 400 as on HTTP/1.1, and the connection goes on; one
// field HTTP/2 forbids shows engine/h2's reset reaches the client (the
// rest: engine/h2's TestMalformed).
func TestH2Malformed(t *testing.T) {
	t.Parallel()
	srv := startH2(t, engine.Options{})
	for _, tt := range []struct {
		name   string
		extra  []string
		path   string
		status string // "" for RST_STREAM PROTOCOL_ERROR
	}{
		{"upper-case name", []string{"X-Up", "1"}, "/old", ""},
		{"space in the path", nil, "/a b", "400"},
		{"path not a path", nil, "old", "400"},
		{"control byte in a value", []string{"x-a", "b\x01c"}, "/old", "400"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := dialH2(t, srv)
			r.headers(1, true, r.block("GET", tt.path, tt.extra...))
			if tt.status == "" {
				r.reset(1, http2.ErrCodeProtocol)
			} else if st := r.status(1); st != tt.status {
				t.Fatalf("%s, want %s", st, tt.status)
			}
			r.headers(3, true, r.block("GET", "/old"))
			if st := r.status(3); st != "301" {
				t.Fatalf("next stream: %s, want 301", st)
			}
		})
	}
}

// TestH2Drain: a drain (Shutdown) ends an idle HTTP/2 connection with
// GOAWAY NO_ERROR, and Shutdown returns once it is gone.
func TestH2Drain(t *testing.T) {
	t.Parallel()
	set, err := matcher.Compile(testRules)
	if err != nil {
		t.Fatal(err)
	}
	// Not startH2: its cleanup would stop the server a second time.
	srv := engine.New(engine.Options{Listen: "127.0.0.1:0", EventLoops: 1, TLS: h2TLSOptions(t)}, set)
	done := make(chan error, 1)
	go func() { done <- srv.Run() }()
	<-srv.Ready()
	r := dialH2(t, srv)
	r.headers(1, true, r.block("GET", "/old"))
	if st := r.status(1); st != "301" {
		t.Fatalf("%s, want 301", st)
	}
	shut := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		shut <- srv.Shutdown(ctx)
	}()
	r.goAway(http2.ErrCodeNo)
	select {
	case err := <-shut:
		if err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Shutdown did not return after the HTTP/2 connection closed")
	}
	<-done
}
