package h2_test

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"

	"github.com/redirectd/redirectd/engine/h2"
)

// tester drives one server connection from the client's side, in the
// shape of x/net's server_common_test.go: the test writes frames with
// x/net's Framer over an in-memory connection (memPipe), waits for the
// server to act on them (synctest.Wait: every goroutine of the bubble
// blocked) and reads what it wrote. Time is the bubble's fake clock:
// waiting out a deadline (advance) takes no real time, so no test here
// depends on the machine being quiet.
type tester struct {
	t   *testing.T
	cc  *memConn
	fr  *http2.Framer
	enc *hpack.Encoder
	blk bytes.Buffer
	// served is closed when Serve has returned for good, err its reason.
	served chan struct{}
	err    error
	// quiets counts Serve's quiet returns.
	quiets atomic.Int32
	// sc and conn are the server's end and connection; closing is what
	// the connection's closing function reports (a drain).
	sc      *memConn
	conn    *h2.Conn
	closing atomic.Bool
}

// testOptions are the Options the tests start from: the defaults, but
// for an idle timeout no test reaches unless it means to.
var testOptions = h2.Options{IdleTimeout: time.Hour}

// newTester starts a connection served with h and o, sends the client
// preface and SETTINGS, and reads the server's SETTINGS. It must run
// inside a synctest bubble (run).
func newTester(t *testing.T, h h2.Handler, o h2.Options) *tester {
	t.Helper()
	sc, cc := memPipe()
	tt := &tester{t: t, cc: cc, sc: sc, served: make(chan struct{})}
	tt.fr = http2.NewFramer(cc, cc)
	tt.enc = hpack.NewEncoder(&tt.blk)
	c := h2.NewConn(sc, h, o, tt.closing.Load)
	tt.conn = c
	go func() {
		defer close(tt.served)
		defer sc.Close()
		for {
			// A quiet return is served again at once, as the engine does
			// once the connection is readable.
			quiet, err := c.Serve()
			if !quiet {
				tt.err = err
				return
			}
			tt.quiets.Add(1)
		}
	}()
	t.Cleanup(func() {
		cc.Close()
		<-tt.served
	})
	io.WriteString(cc, http2.ClientPreface)
	tt.fr.WriteSettings()
	tt.wantFrame("the server's SETTINGS", func(f http2.Frame) bool {
		s, ok := f.(*http2.SettingsFrame)
		return ok && !s.IsAck()
	})
	return tt
}

// run runs f in a synctest bubble with a tester of h and o.
func run(t *testing.T, h h2.Handler, o h2.Options, f func(*tester)) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) { f(newTester(t, h, o)) })
}

// block encodes a request's fields: pseudo-headers for method and path,
// then extra as name, value pairs.
func (tt *tester) block(method, path string, extra ...string) []byte {
	tt.blk.Reset()
	tt.enc.WriteField(hpack.HeaderField{Name: ":method", Value: method})
	tt.enc.WriteField(hpack.HeaderField{Name: ":scheme", Value: "https"})
	tt.enc.WriteField(hpack.HeaderField{Name: ":authority", Value: "a"})
	tt.enc.WriteField(hpack.HeaderField{Name: ":path", Value: path})
	for i := 0; i+1 < len(extra); i += 2 {
		tt.enc.WriteField(hpack.HeaderField{Name: extra[i], Value: extra[i+1]})
	}
	return bytes.Clone(tt.blk.Bytes())
}

// headers writes a HEADERS frame with a whole block.
func (tt *tester) headers(id uint32, end bool, block []byte) {
	tt.t.Helper()
	if err := tt.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: block, EndStream: end, EndHeaders: true}); err != nil {
		tt.t.Fatal(err)
	}
}

// get opens stream id with a GET of path that ends the stream.
func (tt *tester) get(id uint32, path string) {
	tt.t.Helper()
	tt.headers(id, true, tt.block("GET", path))
}

// readFrame returns the next frame the server wrote, once the server has
// acted on everything sent so far; nil when it wrote none.
func (tt *tester) readFrame() http2.Frame {
	tt.t.Helper()
	synctest.Wait()
	if tt.cc.r.buffered() == 0 {
		return nil
	}
	f, err := tt.fr.ReadFrame()
	if err != nil {
		tt.t.Fatalf("reading a frame: %v", err)
	}
	return f
}

// wantFrame reads frames until one satisfies want, and returns it; it
// fails the test when the server has written none.
func (tt *tester) wantFrame(what string, want func(http2.Frame) bool) http2.Frame {
	tt.t.Helper()
	for {
		f := tt.readFrame()
		if f == nil {
			tt.t.Fatalf("waiting for %s: the server wrote nothing more", what)
		}
		if want(f) {
			return f
		}
	}
}

// noFrame fails the test when the server wrote a frame that match says
// is unwanted; the others are read and dropped.
func (tt *tester) noFrame(what string, match func(http2.Frame) bool) {
	tt.t.Helper()
	for f := tt.readFrame(); f != nil; f = tt.readFrame() {
		if match(f) {
			tt.t.Fatalf("%s: %v", what, f)
		}
	}
}

// fields reads until stream id's HEADERS and returns its fields. The
// server's blocks never use the dynamic table, so a fresh decoder reads
// each.
func (tt *tester) fields(id uint32) map[string]string {
	tt.t.Helper()
	f := tt.wantFrame("HEADERS", func(f http2.Frame) bool {
		_, ok := f.(*http2.HeadersFrame)
		return ok && f.Header().StreamID == id
	})
	m := map[string]string{}
	hpack.NewDecoder(4096, func(hf hpack.HeaderField) { m[hf.Name] = hf.Value }).Write(f.(*http2.HeadersFrame).HeaderBlockFragment())
	return m
}

// wantStatus reads until stream id's HEADERS and checks its :status.
func (tt *tester) wantStatus(id uint32, want string) {
	tt.t.Helper()
	if got := tt.fields(id)[":status"]; got != want {
		tt.t.Fatalf("stream %d: status %s, want %s", id, got, want)
	}
}

// wantReset reads until a RST_STREAM and checks its stream and code.
func (tt *tester) wantReset(id uint32, code http2.ErrCode) {
	tt.t.Helper()
	f := tt.wantFrame("RST_STREAM", func(f http2.Frame) bool { _, ok := f.(*http2.RSTStreamFrame); return ok }).(*http2.RSTStreamFrame)
	if f.StreamID != id || f.ErrCode != code {
		tt.t.Fatalf("RST_STREAM %d %v, want %d %v", f.StreamID, f.ErrCode, id, code)
	}
}

// wantGoAway reads until GOAWAY and checks its code; Serve must then
// return and the connection close.
func (tt *tester) wantGoAway(code http2.ErrCode) {
	tt.t.Helper()
	f := tt.wantFrame("GOAWAY", func(f http2.Frame) bool { _, ok := f.(*http2.GoAwayFrame); return ok }).(*http2.GoAwayFrame)
	if f.ErrCode != code {
		tt.t.Fatalf("GOAWAY %v, want %v", f.ErrCode, code)
	}
	tt.wantClosed()
}

// wantClosed waits, on the fake clock (a lingering close reads for a
// second), until Serve has returned, and checks that the server wrote
// nothing more.
func (tt *tester) wantClosed() {
	tt.t.Helper()
	<-tt.served
	for {
		f, err := tt.fr.ReadFrame()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			tt.t.Fatalf("after the server closed: %v", err)
		}
		tt.t.Fatalf("a frame after the server closed: %v", f)
	}
}

// open reports whether Serve is still running, once the server has
// acted on everything sent so far.
func (tt *tester) open() bool {
	synctest.Wait()
	select {
	case <-tt.served:
		return false
	default:
		return true
	}
}

// advance lets d of fake time pass, and the server act on it.
func (tt *tester) advance(d time.Duration) {
	time.Sleep(d)
	synctest.Wait()
}

// pingAck sends a PING and reads until its ack, calling each (when not
// nil) for the frames before it: what the server wrote in answer to the
// frames sent before the PING.
func (tt *tester) pingAck(each func(http2.Frame)) {
	tt.t.Helper()
	tt.fr.WritePing(false, [8]byte{'a', 'c', 'k'})
	tt.wantFrame("PING ack", func(f http2.Frame) bool {
		if p, ok := f.(*http2.PingFrame); ok && p.IsAck() && p.Data == [8]byte{'a', 'c', 'k'} {
			return true
		}
		if each != nil {
			each(f)
		}
		return false
	})
}

// handler answers as the engine's decision would, for the paths the
// tests use: /old a redirect (decided from the head when a body is to
// come), /upload 200 once its body is whole (the body needed, as a
// forward's), anything else 404 with a body; a field list past the
// bound 431.
type handler struct {
	// bodyTimeout and minRate are what NeedsBody gives /upload.
	bodyTimeout time.Duration
	minRate     int64
}

var (
	answerRedirect = []byte("HTTP/1.1 301 Moved Permanently\r\nLocation: /new\r\nContent-Length: 0\r\n\r\n")
	answerNotFound = []byte("HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: 10\r\n\r\nnot found\n")
	answerTooLarge = []byte("HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Length: 0\r\n\r\n")
)

func (h *handler) Serve(st *h2.Stream) {
	switch {
	case st.HeadersTooLarge:
		st.Answer(answerTooLarge)
	case string(st.Path) == "/old":
		st.Answer(answerRedirect)
	case string(st.Path) == "/upload":
		st.Answer([]byte("HTTP/1.1 200 OK\r\nX-Got: " + strconv.Itoa(len(st.Body)) + "\r\nContent-Length: 0\r\n\r\n"))
	default:
		st.Answer(answerNotFound)
	}
}

func (h *handler) NeedsBody(st *h2.Stream) (bool, time.Duration, int64) {
	if string(st.Path) != "/upload" {
		return false, 0, 0
	}
	return true, h.bodyTimeout, h.minRate
}

// waitFor lets fake time pass in steps, calling tick (when not nil)
// before each, until the server writes a frame that want matches; it
// returns the frame and the time that passed, and fails the test past
// limit.
func (tt *tester) waitFor(what string, step, limit time.Duration, tick func(), want func(http2.Frame) bool) (http2.Frame, time.Duration) {
	tt.t.Helper()
	start := time.Now()
	for {
		for f := tt.readFrame(); f != nil; f = tt.readFrame() {
			if want(f) {
				return f, time.Since(start)
			}
		}
		if time.Since(start) > limit {
			tt.t.Fatalf("no %s within %v", what, limit)
		}
		if tick != nil {
			tick()
		}
		tt.advance(step)
	}
}

// isReset matches stream id's RST_STREAM.
func isReset(id uint32) func(http2.Frame) bool {
	return func(f http2.Frame) bool { r, ok := f.(*http2.RSTStreamFrame); return ok && r.StreamID == id }
}

// isGoAway matches GOAWAY.
func isGoAway(f http2.Frame) bool { _, ok := f.(*http2.GoAwayFrame); return ok }
