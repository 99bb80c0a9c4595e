//go:build !race

package engine_test

import (
	"bytes"
	"encoding/binary"
	"io"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"

	"github.com/redirectd/redirectd/engine"
)

// TestH2AnswerAllocs holds an answered redirect stream, through the
// engine's decision and over TLS, and the same redirect asked over
// HTTP/1.1 on the TLS port, to no allocation but crypto/tls's: it
// allocates one atLeastReader (24 bytes) each time it reads a record
// from the socket (crypto/tls.(*Conn).readFromUntil), one in the server
// and one in the client, so each costs 2 in all. A heap profile of every
// allocation (MemProfileRate 1) during the runs must show none outside
// crypto/tls's record read: the HTTP/2 framing, the decision, the
// deadlines and the TLS connection's goroutine add none (engine/h2's
// TestConnAnswerAllocs holds the framing to zero without TLS). The
// client repeats one request, whose fields are all in the server's hpack
// table after the first, as a browser's or h2load's are, and writes and
// reads raw bytes into buffers of its own. The engine's deadline sweep
// starts a goroutine now and then, which is counted when it lands in a
// run: the best of three runs is taken. (The race detector allocates,
// hence the build tag.)
func TestH2AnswerAllocs(t *testing.T) {
	srv := startH2(t, engine.Options{})
	for _, p := range []struct {
		name string
		f    func()
	}{{"HTTP/2 stream", h2Streams(t, srv)}, {"HTTP/1.1 request", h1Requests(t, srv)}} {
		all := bestAllocs(p.f)
		other, where := allocsOutside(p.f, "crypto/") // crypto/tls and the AEADs it calls
		t.Logf("allocations per redirect over TLS, %s: %v, %v of them not crypto/tls's", p.name, all, other)
		// Whole allocations per run, as AllocsPerRun counts them: a
		// fraction (2 in 500 runs were seen in a full package run) is
		// goroutines of earlier tests ending or the sweep's, whose stacks
		// pass through this module too, not the request path.
		if other >= 1 {
			t.Errorf("%s: %v allocations per redirect not made by crypto/tls, want 0; one of them:\n%s", p.name, other, where)
		}
		if all > 2 {
			t.Errorf("%s: %v allocations per redirect over TLS, want at most crypto/tls's 2 (a record read by the server, one by the client)", p.name, all)
		}
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

// allocsOutside runs f 500 times with every allocation recorded in the
// heap profile, and returns how many allocations per run were made by
// code other than the package prefix except names (allocator), on a
// stack that passes through this module (the server's goroutines and the
// test's client; not the runtime's or testing's own in the background),
// and the stack that made the most of them: the best of three tries. (crypto/tls also takes its
// record output buffer from a sync.Pool, which misses now and then once
// a collection has emptied it, as the profile's own collections do: that
// allocation is crypto/tls's too.)
func allocsOutside(f func(), except string) (float64, string) {
	defer func(rate int) { runtime.MemProfileRate = rate }(runtime.MemProfileRate)
	runtime.MemProfileRate = 1
	const runs = 500
	best, where := 1e9, ""
	for range 3 {
		f()
		runtime.GC()
		runtime.GC() // the profile is as of the last completed collection
		before := allocsByStack()
		for range runs {
			f()
		}
		runtime.GC()
		runtime.GC()
		n, w, most := 0, "", int64(0)
		for stk, objs := range allocsByStack() {
			d := objs - before[stk]
			if d <= 0 || strings.HasPrefix(allocator(stk), except) || strings.Contains(stk, "engine_test.allocsByStack\n") ||
				!strings.Contains(stk, "github.com/redirectd/redirectd/") {
				continue // none, or crypto/tls's, or this profile's own, or the runtime's or testing's in the background
			}
			n += int(d)
			if d > most {
				w, most = stk, d
			}
		}
		if float64(n)/runs < best {
			best, where = float64(n)/runs, w
		}
	}
	return best, where
}

// allocator returns the innermost function of stk outside the runtime
// and package sync (a pool's allocation is its user's).
func allocator(stk string) string {
	for fn := range strings.SplitSeq(stk, "\n") {
		if !strings.HasPrefix(fn, "runtime.") && !strings.HasPrefix(fn, "internal/runtime/") && !strings.HasPrefix(fn, "sync.") {
			return fn
		}
	}
	return ""
}

// allocsByStack returns the heap profile's allocation counts by stack,
// each stack its function names one a line.
func allocsByStack() map[string]int64 {
	var recs []runtime.MemProfileRecord
	n, _ := runtime.MemProfile(nil, true)
	for {
		recs = make([]runtime.MemProfileRecord, n+50)
		var ok bool
		if n, ok = runtime.MemProfile(recs, true); ok {
			recs = recs[:n]
			break
		}
	}
	m := make(map[string]int64, len(recs))
	for i := range recs {
		var b strings.Builder
		frames := runtime.CallersFrames(recs[i].Stack())
		for {
			fr, more := frames.Next()
			b.WriteString(fr.Function)
			b.WriteByte('\n')
			if !more {
				break
			}
		}
		m[b.String()] += recs[i].AllocObjects
	}
	return m
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
