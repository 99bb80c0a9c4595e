package h2_test

import (
	"bytes"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"golang.org/x/net/http2"

	"github.com/redirectd/redirectd/engine/h2"
)

// The tests of this file hold each of Options' bounds (README.md,
// Limits), one connection at a time over memPipe under testing/synctest:
// a rate is crossed in no time at all, a timeout on the fake clock, so
// a loaded machine changes nothing.

func options(o h2.Options) h2.Options {
	if o.IdleTimeout == 0 {
		o.IdleTimeout = testOptions.IdleTimeout
	}
	return o
}

// TestMaxConcurrentStreams: a stream past the limit is refused, and
// the connection goes on.
func TestMaxConcurrentStreams(t *testing.T) {
	run(t, &handler{}, options(h2.Options{MaxConcurrentStreams: 3}), func(tt *tester) {
		post := tt.block("POST", "/old")
		for id := uint32(1); id <= 7; id += 2 {
			// Bodies to come: each is answered from its head, and stays
			// open (half closed) until its body ends.
			tt.headers(id, false, post)
		}
		tt.wantStatus(1, "301")
		tt.wantReset(7, http2.ErrCodeRefusedStream)
		tt.fr.WriteData(1, true, []byte("x"))
		tt.get(9, "/old")
		tt.wantStatus(9, "301")
	})
}

// TestHeaderListSize: a field list over MAX_HEADER_LIST_SIZE, sent in
// CONTINUATION frames, gets the handler's 431 (HeadersTooLarge), and the
// connection goes on.
func TestHeaderListSize(t *testing.T) {
	run(t, &handler{}, testOptions, func(tt *tester) {
		blk := tt.block("GET", "/old", "x-big", strings.Repeat("a", 70_000))
		tt.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: blk[:16000], EndStream: true})
		for rest := blk[16000:]; len(rest) > 0; {
			n := min(len(rest), 16000)
			tt.fr.WriteContinuation(1, n == len(rest), rest[:n])
			rest = rest[n:]
		}
		tt.wantStatus(1, "431")
		tt.get(3, "/old")
		tt.wantStatus(3, "301")
	})
}

// TestContinuationFlood: a header block of too many frames, or too many
// bytes, ends the connection before it is read further.
func TestContinuationFlood(t *testing.T) {
	t.Run("frames", func(t *testing.T) {
		run(t, &handler{}, testOptions, func(tt *tester) {
			tt.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: tt.block("GET", "/old")})
			for range h2.DefaultMaxHeaderBlockFrames + 1 {
				tt.fr.WriteContinuation(1, false, nil)
			}
			tt.wantGoAway(http2.ErrCodeEnhanceYourCalm)
		})
	})
	t.Run("bytes", func(t *testing.T) {
		run(t, &handler{}, testOptions, func(tt *tester) {
			// A literal field whose value claims 1 MB: the decoder would
			// keep every byte of it until its end.
			blk := append(tt.block("GET", "/old"), 0x00, 0x01, 'x', 0x7f, 0xc1, 0xff, 0x3f)
			tt.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: blk})
			chunk := bytes.Repeat([]byte("v"), 16000)
			for range 2 * h2.DefaultMaxHeaderListSize / len(chunk) {
				tt.fr.WriteContinuation(1, false, chunk)
			}
			if !tt.open() {
				t.Fatal("closed with the block at the bound")
			}
			tt.fr.WriteContinuation(1, false, chunk)
			tt.wantGoAway(http2.ErrCodeEnhanceYourCalm)
		})
	})
}

// TestRapidReset: streams opened and cancelled past ResetBurst at once
// (CVE-2023-44487) end the connection; at ResetsPerSecond they do not.
func TestRapidReset(t *testing.T) {
	o := options(h2.Options{ResetsPerSecond: 10, ResetBurst: 20})
	run(t, &handler{}, o, func(tt *tester) {
		post := tt.block("POST", "/upload")
		id := uint32(1)
		reset := func() {
			tt.headers(id, false, post)
			tt.fr.WriteRSTStream(id, http2.ErrCodeCancel)
			id += 2
		}
		for range 20 {
			reset()
		}
		for range 30 { // the rate: one every 100ms
			tt.advance(100 * time.Millisecond)
			reset()
		}
		if !tt.open() {
			t.Fatal("closed at ResetsPerSecond")
		}
		reset()
		tt.wantGoAway(http2.ErrCodeEnhanceYourCalm)
	})
}

// TestControlFloods: PING, SETTINGS, PRIORITY, empty DATA and unknown
// frames past ControlBurst at once end the connection.
func TestControlFloods(t *testing.T) {
	for _, c := range []struct {
		name  string
		flood func(*http2.Framer) error
	}{
		{"ping", func(fr *http2.Framer) error { return fr.WritePing(false, [8]byte{1}) }},
		{"settings", func(fr *http2.Framer) error {
			return fr.WriteSettings(http2.Setting{ID: http2.SettingEnablePush, Val: 0})
		}},
		{"priority", func(fr *http2.Framer) error { return fr.WritePriority(3, http2.PriorityParam{Weight: 1}) }},
		{"empty data", func(fr *http2.Framer) error { return fr.WriteData(1, false, nil) }},
		{"unknown type", func(fr *http2.Framer) error { return fr.WriteRawFrame(0x20, 0, 0, nil) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			run(t, &handler{}, testOptions, func(tt *tester) {
				tt.headers(1, false, tt.block("POST", "/old"))
				tt.wantStatus(1, "301")
				for range 2 * h2.DefaultControlPerSecond {
					c.flood(tt.fr)
				}
				if !tt.open() {
					t.Fatal("closed at ControlBurst")
				}
				c.flood(tt.fr)
				tt.wantGoAway(http2.ErrCodeEnhanceYourCalm)
			})
		})
	}
}

// TestDrawnResets: frames that draw a reset from the server (a
// WINDOW_UPDATE of 0, DATA on a closed stream) count against the same
// budget as the resets a client sends, whatever their kind, so a flood of
// them ends the connection; on an idle stream such a frame is a
// connection error at once (RFC 9113 5.1).
func TestDrawnResets(t *testing.T) {
	for _, c := range []struct {
		name  string
		flood func(*http2.Framer) error
	}{
		{"window update of 0", func(fr *http2.Framer) error { return fr.WriteWindowUpdate(1, 0) }},
		{"empty data on a closed stream", func(fr *http2.Framer) error { return fr.WriteData(1, false, nil) }},
		{"data on a closed stream", func(fr *http2.Framer) error { return fr.WriteData(1, false, []byte("x")) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			run(t, &handler{}, testOptions, func(tt *tester) {
				tt.fr.AllowIllegalWrites = true
				tt.get(1, "/old")
				tt.wantStatus(1, "301")
				for range 2 * h2.DefaultResetsPerSecond {
					c.flood(tt.fr)
				}
				if !tt.open() {
					t.Fatal("closed at ResetBurst")
				}
				c.flood(tt.fr)
				tt.wantGoAway(http2.ErrCodeEnhanceYourCalm)
			})
		})
	}
	t.Run("window update of 0 on an idle stream", func(t *testing.T) {
		run(t, &handler{}, testOptions, func(tt *tester) {
			tt.fr.AllowIllegalWrites = true
			tt.fr.WriteWindowUpdate(99, 0)
			tt.wantGoAway(http2.ErrCodeProtocol)
		})
	})
}

// TestFlowControl: the answer's body is sent as the client's window
// allows.
func TestFlowControl(t *testing.T) {
	run(t, &handler{}, testOptions, func(tt *tester) {
		tt.fr.WriteSettings(http2.Setting{ID: http2.SettingInitialWindowSize, Val: 1})
		tt.wantFrame("SETTINGS ack", func(f http2.Frame) bool { s, ok := f.(*http2.SettingsFrame); return ok && s.IsAck() })
		tt.get(1, "/nothing")
		tt.wantStatus(1, "404")
		isData := func(f http2.Frame) bool { _, ok := f.(*http2.DataFrame); return ok }
		d := tt.wantFrame("DATA", isData).(*http2.DataFrame)
		if string(d.Data()) != "n" || d.StreamEnded() {
			t.Fatalf("first DATA %q (end %v), want one byte", d.Data(), d.StreamEnded())
		}
		tt.noFrame("DATA past the window", isData)
		tt.fr.WriteWindowUpdate(1, 100)
		d = tt.wantFrame("DATA", isData).(*http2.DataFrame)
		if string(d.Data()) != "ot found\n" || !d.StreamEnded() {
			t.Fatalf("second DATA %q (end %v), want the rest and END_STREAM", d.Data(), d.StreamEnded())
		}
	})
}

// TestFrameSize: a frame over SETTINGS_MAX_FRAME_SIZE (16384) is a
// connection error.
func TestFrameSize(t *testing.T) {
	run(t, &handler{}, testOptions, func(tt *tester) {
		tt.headers(1, false, tt.block("POST", "/upload"))
		tt.fr.WriteData(1, true, make([]byte, 16385))
		tt.wantGoAway(http2.ErrCodeFrameSize)
	})
}

// TestMalformed: fields HTTP/2 forbids reset the stream with
// PROTOCOL_ERROR (RFC 9113 8.1.1), and the connection goes on. (What
// HTTP/2 allows and the HTTP/1.1 parser refuses gets the engine's 400:
// engine's TestH2Malformed.)
func TestMalformed(t *testing.T) {
	for _, c := range []struct {
		name   string
		method string
		extra  []string
	}{
		{"upper-case name", "GET", []string{"X-Up", "1"}},
		{"connection field", "GET", []string{"connection", "close"}},
		{"te other than trailers", "GET", []string{"te", "gzip"}},
		{"CR in a value", "GET", []string{"x-a", "b\rc"}},
		{"space at a value's end", "GET", []string{"x-a", "b "}},
		{"pseudo-header after a field", "GET", []string{"x-a", "b", ":path", "/x"}},
		{"unknown pseudo-header", "GET", []string{":protocol", "websocket"}},
		{"content-length not a number", "GET", []string{"content-length", "+1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			run(t, &handler{}, testOptions, func(tt *tester) {
				tt.headers(1, true, tt.block(c.method, "/old", c.extra...))
				tt.wantReset(1, http2.ErrCodeProtocol)
				tt.get(3, "/old")
				tt.wantStatus(3, "301")
			})
		})
	}
}

// TestIdleTimeout: a connection with no stream open gets GOAWAY NO_ERROR
// after IdleTimeout from its last stream's end, not before.
func TestIdleTimeout(t *testing.T) {
	run(t, &handler{}, h2.Options{IdleTimeout: 300 * time.Millisecond}, func(tt *tester) {
		tt.get(1, "/old")
		tt.wantStatus(1, "301")
		_, took := tt.waitFor("GOAWAY", 10*time.Millisecond, time.Second, nil, isGoAway)
		if took < 290*time.Millisecond || took > 310*time.Millisecond {
			t.Errorf("GOAWAY after %v, want 300ms", took)
		}
		tt.wantClosed()
	})
}

// TestQuietConnection: a connection that went quiet (its buffers handed
// back and Serve returned after QuietAfter without a frame) serves its
// next streams as before, and times out as before.
func TestQuietConnection(t *testing.T) {
	run(t, &handler{}, h2.Options{IdleTimeout: 2 * time.Second}, func(tt *tester) {
		for id := uint32(1); id <= 5; id += 2 {
			tt.get(id, "/old")
			tt.wantStatus(id, "301")
			tt.advance(h2.DefaultQuietAfter + 50*time.Millisecond)
		}
		if tt.quiets.Load() < 3 {
			t.Errorf("Serve returned quiet %d times, want 3", tt.quiets.Load())
		}
		_, took := tt.waitFor("GOAWAY", 50*time.Millisecond, 3*time.Second, nil, isGoAway)
		if took < 2*time.Second-h2.DefaultQuietAfter-100*time.Millisecond {
			t.Errorf("GOAWAY %v after the quiet wait, want at the 2s idle timeout", took)
		}
	})
}

// TestPrefaceTimeout: a connection that sends no preface is closed after
// PrefaceTimeout, not before.
func TestPrefaceTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sc, cc := memPipe()
		defer cc.Close()
		done := make(chan error, 1)
		go func() {
			defer sc.Close()
			_, err := h2.NewConn(sc, &handler{}, h2.Options{PrefaceTimeout: 300 * time.Millisecond}, nil).Serve()
			done <- err
		}()
		time.Sleep(299 * time.Millisecond)
		synctest.Wait()
		select {
		case <-done:
			t.Fatal("closed before PrefaceTimeout")
		default:
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		select {
		case err := <-done:
			if err == nil {
				t.Error("Serve returned no error without a preface")
			}
		default:
			t.Fatal("still open at PrefaceTimeout")
		}
	})
}

// TestHeaderDeadline: a header block left unfinished (HEADERS without
// END_HEADERS, no CONTINUATION) is bounded by PrefaceTimeout (the
// engine's header_timeout), as an HTTP/1.1 head is, not by the idle
// timeout.
func TestHeaderDeadline(t *testing.T) {
	run(t, &handler{}, options(h2.Options{PrefaceTimeout: 300 * time.Millisecond}), func(tt *tester) {
		tt.get(1, "/old")
		tt.wantStatus(1, "301")
		tt.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 3, BlockFragment: tt.block("GET", "/old"), EndStream: true})
		_, took := tt.waitFor("GOAWAY", 10*time.Millisecond, time.Second, nil, isGoAway)
		if took < 290*time.Millisecond || took > 310*time.Millisecond {
			t.Errorf("GOAWAY after %v, want 300ms", took)
		}
	})
}

// TestDrain: a connection the server wants closed (its closing function
// says so, and its read deadline is moved to now, as the engine's drain
// does) gets GOAWAY NO_ERROR and is closed, whether it was idle or
// waiting for a stream's body.
func TestDrain(t *testing.T) {
	for _, busy := range []bool{false, true} {
		name := map[bool]string{false: "idle", true: "a body to come"}[busy]
		t.Run(name, func(t *testing.T) {
			run(t, &handler{}, testOptions, func(tt *tester) {
				tt.get(1, "/old")
				tt.wantStatus(1, "301")
				if busy {
					tt.headers(3, false, tt.block("POST", "/upload"))
				}
				tt.advance(time.Second)
				tt.closing.Store(true)
				tt.sc.SetReadDeadline(time.Now())
				tt.wantGoAway(http2.ErrCodeNo)
				if tt.err != nil {
					t.Errorf("Serve: %v, want nil after a drain", tt.err)
				}
			})
		})
	}
}

// TestPeerClosed: a client that closes its end after its answer ends
// Serve cleanly, and PeerClosed says so (the engine then closes without
// a close_notify of its own: engine's TestH2ClientClose).
func TestPeerClosed(t *testing.T) {
	run(t, &handler{}, testOptions, func(tt *tester) {
		tt.get(1, "/old")
		tt.wantStatus(1, "301")
		tt.cc.w.close()
		<-tt.served
		if tt.err != nil || !tt.conn.PeerClosed() {
			t.Errorf("Serve: %v, PeerClosed %v; want nil, true", tt.err, tt.conn.PeerClosed())
		}
	})
}
