//go:build !race

package engine_test

import (
	"bytes"
	"encoding/binary"
	"io"
	"testing"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"

	"github.com/redirectd/redirectd/engine"
)

// TestH2AnswerAllocs holds an answered redirect stream, through the
// engine's decision and over TLS, to no more allocations than the same
// redirect asked over HTTP/1.1 on the TLS port: what both cost is
// crypto/tls's, which allocates on each record it reads (its
// atLeastReader), client and server; the HTTP/2 framing and the decision
// add none (engine/h2's TestConnAnswerAllocs holds the framing to zero
// without TLS). The client repeats one request, whose fields are all in
// the server's hpack table after the first, as a browser's or h2load's
// are, and writes and reads raw bytes into buffers of its own. The
// engine's deadline sweep starts a goroutine now and then, which is
// counted when it lands in a run: the best of three runs is taken. (The
// race detector allocates, hence the build tag.)
func TestH2AnswerAllocs(t *testing.T) {
	srv := startH2(t, engine.Options{})
	h2 := bestAllocs(h2Streams(t, srv))
	h1 := bestAllocs(h1Requests(t, srv))
	t.Logf("allocations per redirect over TLS: HTTP/2 stream %v, HTTP/1.1 request %v", h2, h1)
	if h2 > h1 {
		t.Errorf("%v allocations per answered HTTP/2 stream, more than HTTP/1.1's %v over TLS", h2, h1)
	}
}

func bestAllocs(f func()) float64 {
	for range 200 {
		f() // the buffers, the free list, the maps
	}
	best := 1e9
	for range 3 {
		best = min(best, testing.AllocsPerRun(500, f))
	}
	return best
}

// h1Requests returns a function that asks for a redirect over HTTP/1.1
// on the TLS port and reads its answer.
func h1Requests(t *testing.T, srv *engine.Server) func() {
	c := dialTLS(t, srv)
	req := []byte("GET /old?utm=1 HTTP/1.1\r\nHost: old.example\r\nUser-Agent: alloc-test/1\r\n\r\n")
	buf := make([]byte, 4096)
	return func() {
		if _, err := c.Write(req); err != nil {
			t.Fatal(err)
		}
		n := 0
		for !bytes.HasSuffix(buf[:n], []byte("\r\n\r\n")) {
			m, err := c.Read(buf[n:])
			if err != nil {
				t.Fatal(err)
			}
			n += m
		}
		if !bytes.HasPrefix(buf, []byte("HTTP/1.1 301")) {
			t.Fatalf("HTTP/1.1: %q", buf[:n])
		}
	}
}

// h2Streams returns a function that asks for the redirect on a new
// stream of one HTTP/2 connection and reads its answer.
func h2Streams(t *testing.T, srv *engine.Server) func() {
	r := dialH2(t, srv)
	var blk bytes.Buffer
	enc := hpack.NewEncoder(&blk)
	fields := []hpack.HeaderField{{Name: ":method", Value: "GET"}, {Name: ":scheme", Value: "https"},
		{Name: ":authority", Value: "old.example"}, {Name: ":path", Value: "/old?utm=1"}, {Name: "user-agent", Value: "alloc-test/1"}}
	encode := func() []byte {
		blk.Reset()
		for _, f := range fields {
			enc.WriteField(f)
		}
		return bytes.Clone(blk.Bytes())
	}
	first, repeat := encode(), encode() // the second is all indexed
	frame := make([]byte, 9+len(repeat))
	frame[2] = byte(len(repeat))
	frame[3] = byte(http2.FrameHeaders)
	frame[4] = byte(http2.FlagHeadersEndHeaders | http2.FlagHeadersEndStream)
	copy(frame[9:], repeat)
	id := uint32(1)
	r.headers(id, true, first)
	if st := r.status(id); st != "301" {
		t.Fatalf("first stream: %s, want 301", st)
	}
	var hdr [9]byte
	payload := make([]byte, 1<<14)
	return func() {
		id += 2
		binary.BigEndian.PutUint32(frame[5:], id)
		if _, err := r.c.Write(frame); err != nil {
			t.Fatal(err)
		}
		for {
			if _, err := io.ReadFull(r.c, hdr[:]); err != nil {
				t.Fatal(err)
			}
			n := int(hdr[0])<<16 | int(hdr[1])<<8 | int(hdr[2])
			if _, err := io.ReadFull(r.c, payload[:n]); err != nil {
				t.Fatal(err)
			}
			if binary.BigEndian.Uint32(hdr[5:]) == id && http2.Flags(hdr[4]).Has(http2.FlagDataEndStream) {
				if http2.FrameType(hdr[3]) != http2.FrameHeaders || payload[0] == 0x80|13 {
					t.Fatalf("stream %d: not a redirect's HEADERS: type %d % x", id, hdr[3], payload[:n])
				}
				return
			}
		}
	}
}
