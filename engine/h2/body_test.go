package h2_test

import (
	"bytes"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"

	"github.com/redirectd/redirectd/engine/h2"
)

// The tests of this file hold what bounds a request body and an answer
// waiting for the client's window (discard.go, sendtimeout.go), on the
// fake clock (tester).

// TestBodyDecidedFromHead: the reported attack, a POST to a redirect
// whose body is held open while PINGs keep the connection busy, gets its
// redirect from the head, before the server reads on; the body is
// dropped, never given window (so at most one window of it is ever
// sent), and the stream reset with NO_ERROR once the client spends half
// of it; DATA in flight after that reset is dropped, drawing no other
// reset, and the connection goes on.
func TestBodyDecidedFromHead(t *testing.T) {
	run(t, &handler{}, testOptions, func(tt *tester) {
		tt.headers(1, false, tt.block("POST", "/old", "content-length", "10000000"))
		tt.fr.WriteData(1, false, make([]byte, 1000))
		answered := false
		tt.pingAck(func(f http2.Frame) {
			if h, ok := f.(*http2.HeadersFrame); ok && h.StreamID == 1 {
				answered = true
			}
		})
		if !answered {
			t.Fatal("no answer to the POST before the PING after its first DATA: the body is waited for")
		}
		// Half the stream's window more: the server gives none back,
		// and resets the stream.
		for range 2 {
			tt.fr.WriteData(1, false, make([]byte, 16384))
		}
		tt.fr.WriteData(1, false, make([]byte, 1000)) // sent before the reset is read: dropped
		resets := 0
		tt.pingAck(func(f http2.Frame) {
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
		tt.get(3, "/old")
		tt.wantStatus(3, "301")
	})
}

// TestBodyDeadline: a body that makes no progress gets its deadline,
// whatever other frames the client sends, or none: one buffered for the
// handler (the HeadDecider's timeout) is reset with CANCEL before the
// handler sees it; one dropped after an answer from its head
// (BodyTimeout) is reset with NO_ERROR. The deadline is looked at every
// quarter of it: the reset comes between 1 and 1.25 times it.
func TestBodyDeadline(t *testing.T) {
	for _, c := range []struct {
		name, path string
		ping       bool
		code       http2.ErrCode
	}{
		{"buffered, PINGs meanwhile", "/upload", true, http2.ErrCodeCancel},
		{"buffered, nothing meanwhile", "/upload", false, http2.ErrCodeCancel},
		{"dropped after a redirect, PINGs meanwhile", "/old", true, http2.ErrCodeNo},
		{"dropped after a redirect, nothing meanwhile", "/old", false, http2.ErrCodeNo},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := &handler{bodyTimeout: 400 * time.Millisecond}
			run(t, h, options(h2.Options{BodyTimeout: 400 * time.Millisecond}), func(tt *tester) {
				tt.headers(1, false, tt.block("POST", c.path, "content-length", "100"))
				tt.fr.WriteData(1, false, make([]byte, 10))
				var ping func()
				if c.ping {
					ping = func() { tt.fr.WritePing(false, [8]byte{9}) }
				}
				f, took := tt.waitFor("RST_STREAM", 50*time.Millisecond, 2*time.Second, ping, isReset(1))
				if code := f.(*http2.RSTStreamFrame).ErrCode; code != c.code {
					t.Errorf("RST_STREAM %v, want %v", code, c.code)
				}
				if took < 400*time.Millisecond || took > 500*time.Millisecond {
					t.Errorf("reset after %v, want between 400ms and 500ms", took)
				}
			})
		})
	}
}

// TestBodyMinRate: a buffered body that trickles in, a byte far more
// often than its timeout, must still be whole within the timeout plus a
// second per minRate bytes received, as the HTTP/1.1 path's
// body_min_rate; past it the stream is reset.
func TestBodyMinRate(t *testing.T) {
	h := &handler{bodyTimeout: 300 * time.Millisecond, minRate: 1000}
	run(t, h, testOptions, func(tt *tester) {
		tt.headers(1, false, tt.block("POST", "/upload", "content-length", "100000"))
		// 10 bytes every 50ms: 200 a second, so the deadline t = 300ms +
		// 200t/1000 falls at 375ms.
		f, took := tt.waitFor("RST_STREAM", 50*time.Millisecond, 2*time.Second,
			func() { tt.fr.WriteData(1, false, make([]byte, 10)) }, isReset(1))
		if code := f.(*http2.RSTStreamFrame).ErrCode; code != http2.ErrCodeCancel {
			t.Errorf("RST_STREAM %v, want CANCEL", code)
		}
		if took < 375*time.Millisecond || took > 500*time.Millisecond {
			t.Errorf("reset after %v, want soon after 375ms", took)
		}
	})
}

// TestDroppedBodyEnds: a stream answered from its head closes when its
// body ends, by DATA or by trailers, freeing its place among the
// concurrent streams.
func TestDroppedBodyEnds(t *testing.T) {
	run(t, &handler{}, options(h2.Options{MaxConcurrentStreams: 1}), func(tt *tester) {
		tt.headers(1, false, tt.block("POST", "/old"))
		tt.wantStatus(1, "301")
		tt.fr.WriteData(1, true, []byte("x"))
		tt.headers(3, false, tt.block("POST", "/old"))
		tt.wantStatus(3, "301")
		tt.blk.Reset()
		tt.enc.WriteField(hpack.HeaderField{Name: "x-trailer", Value: "1"})
		tt.headers(3, true, bytes.Clone(tt.blk.Bytes())) // trailers end it
		tt.get(5, "/old")
		tt.wantStatus(5, "301")
	})
}

// TestBufferedBody: a body within MaxBodyBytes is buffered and handed
// over whole; past MaxBodyBytes, or MaxConnBodyBytes for all the
// connection's streams, the stream is handed over at once with
// BodyTooLarge.
func TestBufferedBody(t *testing.T) {
	run(t, &handler{}, options(h2.Options{MaxBodyBytes: 1000, MaxConnBodyBytes: 1500}), func(tt *tester) {
		post := tt.block("POST", "/upload")
		tt.headers(1, false, post)
		tt.headers(3, false, post)
		tt.fr.WriteData(1, false, make([]byte, 800))
		tt.fr.WriteData(3, false, make([]byte, 800)) // 1600 in all
		if got := tt.fields(3)["x-got"]; got != "800" {
			t.Errorf("stream 3, past the connection's bound: handed over with %s bytes, want 800 at once", got)
		}
		tt.noFrame("stream 1 answered before its body ended", func(f http2.Frame) bool { return f.Header().StreamID == 1 })
		tt.fr.WriteData(1, true, make([]byte, 100))
		if got := tt.fields(1)["x-got"]; got != "900" {
			t.Errorf("stream 1: handed over with %s bytes, want 900", got)
		}
		tt.headers(5, false, post)
		tt.fr.WriteData(5, false, make([]byte, 1001))
		if got := tt.fields(5)["x-got"]; got != "1001" {
			t.Errorf("stream 5, past its own bound: handed over with %s bytes, want 1001 at once", got)
		}
	})
}

// TestSendTimeout: an answer held back by a client that keeps its
// window at 0, while it sends a PING every 100ms, is reset with CANCEL
// after SendTimeout without a byte going out: a local answer's body (the
// reader finds it between frames) and a streamed one (its writer, which
// gets ErrSendTimeout).
func TestSendTimeout(t *testing.T) {
	const timeout = 400 * time.Millisecond
	for _, c := range []struct {
		name string
		h    h2.Handler
		path string
	}{
		{"local answer", &handler{}, "/nothing"},
		{"streamed answer", &streamer{errs: make(chan error, 1)}, "/stream"},
	} {
		t.Run(c.name, func(t *testing.T) {
			run(t, c.h, options(h2.Options{SendTimeout: timeout}), func(tt *tester) {
				tt.fr.WriteSettings(http2.Setting{ID: http2.SettingInitialWindowSize, Val: 0})
				tt.get(1, c.path)
				ping := func() { tt.fr.WritePing(false, [8]byte{7}) }
				f, took := tt.waitFor("RST_STREAM", 100*time.Millisecond, 3*time.Second, ping, isReset(1))
				if code := f.(*http2.RSTStreamFrame).ErrCode; code != http2.ErrCodeCancel {
					t.Errorf("RST_STREAM %v, want CANCEL", code)
				}
				if took < timeout || took > timeout*5/4+100*time.Millisecond {
					t.Errorf("reset after %v, want soon after %v", took, timeout)
				}
				if s, ok := c.h.(*streamer); ok {
					if err := <-s.errs; err != h2.ErrSendTimeout {
						t.Errorf("the writer got %v, want ErrSendTimeout", err)
					}
				}
			})
		})
	}
}

// streamer answers on a goroutine of its own, as a forward does: a head,
// then a body far past MaxPendingBytes, written until a write fails;
// errs gets the failure.
type streamer struct{ errs chan error }

func (s *streamer) Serve(st *h2.Stream) {
	go func() {
		if err := st.AnswerHead([]byte("HTTP/1.1 200 OK\r\n\r\n"), false); err != nil {
			s.errs <- err
			return
		}
		chunk := make([]byte, 16<<10)
		for {
			if err := st.WriteData(chunk, false); err != nil {
				s.errs <- err
				return
			}
		}
	}()
}
