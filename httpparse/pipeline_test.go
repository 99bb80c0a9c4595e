package httpparse

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// pipelined is three requests sent back to back, the second with a body.
const pipelined = "GET /one HTTP/1.1\r\nHost: a.example\r\nUser-Agent: t\r\n\r\n" +
	"POST /two?x=1 HTTP/1.1\r\nHost: b.example\r\nContent-Length: 4\r\n\r\nbody" +
	"GET /three HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"

var pipelinedWant = []result{
	{N: 53, Method: "GET", Target: "/one", Path: "/one", Host: "a.example", Version: "1.1", CL: -1, Keep: true},
	{N: 62, Method: "POST", Target: "/two?x=1", Path: "/two", Query: "x=1", HasQuery: true,
		Host: "b.example", Version: "1.1", CL: 4, Keep: true},
	{N: 47, Method: "GET", Target: "/three", Path: "/three", Version: "1.0", CL: -1, Keep: true},
}

func TestPipelined(t *testing.T) {
	var r Request
	got, rest := consume(t, []byte(pipelined), &r)
	if diff := cmp.Diff(pipelinedWant, got); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
	if len(rest) != 0 {
		t.Errorf("left %q unparsed", rest)
	}
}

// TestSplit cuts the pipelined stream at every byte: the first k bytes must
// parse as a whole first request within them or as incomplete, never as an
// error, and feeding the rest later must give the same requests as the
// stream read at once.
func TestSplit(t *testing.T) {
	full := []byte(pipelined)
	var r Request
	for k := 0; k <= len(full); k++ {
		n, err := Parse(full[:k], &r, nil)
		switch {
		case err != nil:
			t.Fatalf("k=%d: Parse(%q): %v", k, full[:k], err)
		case n > k:
			t.Fatalf("k=%d: HeadLen %d past the buffer", k, n)
		case n > 0:
			if diff := cmp.Diff(pipelinedWant[0], summarize(n, err)(&r)); diff != "" {
				t.Fatalf("k=%d: first request mismatch (-want +got):\n%s", k, diff)
			}
		}

		// Two reads: k bytes, then the rest appended to what is left.
		var got []result
		first, rest := consume(t, full[:k], &r)
		got = append(got, first...)
		buf := append(append([]byte(nil), rest...), full[k:]...)
		second, rest := consume(t, buf, &r)
		got = append(got, second...)
		if diff := cmp.Diff(pipelinedWant, got); diff != "" {
			t.Fatalf("k=%d: mismatch (-want +got):\n%s", k, diff)
		}
		if len(rest) != 0 {
			t.Fatalf("k=%d: left %q unparsed", k, rest)
		}
	}
}

// consume parses every whole request at the start of buf the way an event
// loop does, skipping bodies, and returns them with the bytes left over; a
// head whose body is not all there is kept to be parsed again later.
func consume(t *testing.T, buf []byte, r *Request) ([]result, []byte) {
	t.Helper()
	var got []result
	for {
		n, err := Parse(buf, r, nil)
		if err != nil {
			t.Fatalf("Parse(%q): %v", buf, err)
		}
		body := int(max(r.ContentLength, 0))
		if n == 0 || len(buf) < n+body {
			return got, buf
		}
		got = append(got, summarize(n, err)(r))
		buf = buf[n+body:]
	}
}
