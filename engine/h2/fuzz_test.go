package h2_test

import (
	"io"
	"net"
	"testing"
	"time"

	"golang.org/x/net/http2"

	"github.com/redirectd/redirectd/engine/h2"
)

// FuzzConn feeds arbitrary bytes after the client preface to a
// connection and checks that it neither panics nor hangs: Serve returns
// once the input ends, whatever the frames said.
func FuzzConn(f *testing.F) {
	var seed []byte
	w := &sliceWriter{}
	fr := http2.NewFramer(w, nil)
	fr.WriteSettings(http2.Setting{ID: http2.SettingInitialWindowSize, Val: 1})
	fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: []byte{0x82, 0x87, 0x84, 0x41, 0x01, 'a'}, EndStream: true, EndHeaders: true})
	fr.WritePing(false, [8]byte{1})
	fr.WriteWindowUpdate(1, 100)
	fr.WriteRSTStream(1, http2.ErrCodeCancel)
	seed = append(seed, w.b...)
	f.Add(seed)
	f.Add([]byte{0, 0, 0, 9, 0, 0, 0, 0, 1}) // a CONTINUATION out of place
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) > 64<<10 {
			return
		}
		sc, cc := net.Pipe()
		done := make(chan struct{})
		go func() {
			defer close(done)
			defer sc.Close()
			c := h2.NewConn(sc, redirect{}, h2.Options{IdleTimeout: time.Second, PrefaceTimeout: time.Second}, nil)
			for {
				quiet, _ := c.Serve()
				if !quiet {
					return
				}
			}
		}()
		go io.Copy(io.Discard, cc)
		cc.SetWriteDeadline(time.Now().Add(2 * time.Second))
		cc.Write([]byte(http2.ClientPreface))
		cc.Write(in)
		cc.Close()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("Serve did not return after the input ended: %x", in)
		}
	})
}

// redirect answers every stream with a fixed redirect, as the engine's
// decision would.
type redirect struct{}

var redirectAnswer = []byte("HTTP/1.1 301 Moved Permanently\r\nLocation: https://example.com/new?utm=1\r\nContent-Length: 0\r\n" +
	"Strict-Transport-Security: max-age=60\r\nDate: Wed, 02 Dec 2026 04:00:00 GMT\r\n\r\n")

func (redirect) Serve(st *h2.Stream) { st.Answer(redirectAnswer) }

type sliceWriter struct{ b []byte }

func (w *sliceWriter) Write(p []byte) (int, error) { w.b = append(w.b, p...); return len(p), nil }
