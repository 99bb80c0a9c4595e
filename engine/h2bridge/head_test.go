package h2bridge

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/engine/h2"
)

func fields(kv ...string) []h2.Field {
	var f []h2.Field
	for i := 0; i < len(kv); i += 2 {
		f = append(f, h2.Field{Name: []byte(kv[i]), Value: []byte(kv[i+1])})
	}
	return f
}

// TestAppendH2Head: a stream is written as the HTTP/1.1 head it stands
// for (RFC 9113 8.3.1): :authority as Host, else the host field; the
// cookies joined with "; " (8.2.3); CONNECT's target its authority, for
// the parser to refuse; the body's length the one received when it is
// whole, else the one declared.
func TestAppendH2Head(t *testing.T) {
	tests := []struct {
		name  string
		st    h2.Stream
		whole bool
		want  string
	}{
		{"get", h2.Stream{Method: []byte("GET"), Path: []byte("/a?b"), Authority: []byte("example.com"),
			Fields: fields("accept", "*/*"), ContentLength: -1}, true,
			"GET /a?b HTTP/1.1\r\nHost: example.com\r\naccept: */*\r\n\r\n"},
		{"host field without authority", h2.Stream{Method: []byte("GET"), Path: []byte("/"),
			Fields: fields("host", "h.example", "x", "1"), ContentLength: -1}, true,
			"GET / HTTP/1.1\r\nHost: h.example\r\nx: 1\r\n\r\n"},
		{"no host", h2.Stream{Method: []byte("GET"), Path: []byte("/"), ContentLength: -1}, true,
			"GET / HTTP/1.1\r\n\r\n"},
		{"cookies joined", h2.Stream{Method: []byte("GET"), Path: []byte("/"), Authority: []byte("a"),
			Fields: fields("cookie", "a=1", "x", "y", "cookie", "b=2"), ContentLength: -1}, true,
			"GET / HTTP/1.1\r\nHost: a\r\nx: y\r\ncookie: a=1; b=2\r\n\r\n"},
		{"connect", h2.Stream{Method: []byte("CONNECT"), Authority: []byte("a:443"), ContentLength: -1}, true,
			"CONNECT a:443 HTTP/1.1\r\nHost: a:443\r\n\r\n"},
		{"whole body", h2.Stream{Method: []byte("POST"), Path: []byte("/"), Authority: []byte("a"),
			Fields: fields("content-length", "3"), Body: []byte("abc"), ContentLength: 3}, true,
			"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\n"},
		{"whole, empty, declared", h2.Stream{Method: []byte("POST"), Path: []byte("/"), Authority: []byte("a"),
			ContentLength: 0}, true,
			"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n"},
		{"body to come, declared", h2.Stream{Method: []byte("POST"), Path: []byte("/"), Authority: []byte("a"),
			Body: []byte("ab"), ContentLength: 10}, false,
			"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\n"},
		{"body to come, undeclared", h2.Stream{Method: []byte("POST"), Path: []byte("/"), Authority: []byte("a"),
			ContentLength: -1}, false,
			"POST / HTTP/1.1\r\nHost: a\r\n\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(appendH2Head(nil, &tt.st, tt.whole))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("head (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAppendH2HeadAllocs: writing a stream's head into the connection's
// buffer allocates nothing once the buffer has grown.
func TestAppendH2HeadAllocs(t *testing.T) {
	st := &h2.Stream{Method: []byte("POST"), Path: []byte("/old/page?x=1"), Authority: []byte("example.com"),
		Fields: fields("cookie", "a=1", "user-agent", "test", "cookie", "b=2"), ContentLength: 1 << 20}
	buf := make([]byte, 0, 512)
	if n := testing.AllocsPerRun(100, func() { buf = appendH2Head(buf[:0], st, false) }); n != 0 {
		t.Errorf("appendH2Head: %v allocations, want 0", n)
	}
}

// TestOptions: the bounds [tls] sets apply; where it sets none, the
// server's idle and header timeouts, then h2's defaults.
func TestOptions(t *testing.T) {
	tests := []struct {
		name string
		set  h2.Options
		want h2.Options
	}{
		{"none set", h2.Options{}, h2.Options{IdleTimeout: 7, PrefaceTimeout: 3, BodyTimeout: 3}},
		{"set", h2.Options{IdleTimeout: 1, PrefaceTimeout: 2, BodyTimeout: 4, MaxConcurrentStreams: 5},
			h2.Options{IdleTimeout: 1, PrefaceTimeout: 2, BodyTimeout: 4, MaxConcurrentStreams: 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want.WithDefaults(), Options(tt.set, 7, 3)); diff != "" {
				t.Errorf("Options (-want +got):\n%s", diff)
			}
		})
	}
}
