package exchange

import (
	"iter"
	"testing"

	"github.com/VictoriaMetrics/metrics"
	"github.com/google/go-cmp/cmp"
)

// TestAnswerHead: the head a relayed answer gets, by the client's
// version, the request's method and what the upstream says of the body:
// its length as given, else chunked to an HTTP/1.1 client and the end of
// the connection to an HTTP/1.0 one; no framing where there is no body;
// hop-by-hop fields dropped, the connection's own fields and the failed
// conditions' Vary added.
func TestAnswerHead(t *testing.T) {
	type out struct {
		Head                     string
		Chunked, NoBody, Closing bool
	}
	fields := func(kv ...string) iter.Seq2[[]byte, []byte] {
		return func(yield func([]byte, []byte) bool) {
			for i := 0; i+1 < len(kv); i += 2 {
				if !yield([]byte(kv[i]), []byte(kv[i+1])) {
					return
				}
			}
		}
	}
	for _, tc := range []struct {
		name                  string
		http10, head, closing bool
		own, vary             string
		code, length          int
		fields                []string
		want                  out
	}{
		{name: "length", code: 200, length: 5, fields: []string{"Content-Type", "text/plain", "Connection", "x", "Keep-Alive", "1"},
			want: out{Head: "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\n"}},
		{name: "chunked to 1.1", code: 200, length: -1,
			want: out{Head: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", Chunked: true}},
		{name: "the end of the connection to 1.0", http10: true, code: 200, length: -1,
			want: out{Head: "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n", Closing: true}},
		{name: "1.0 kept alive", http10: true, code: 200, length: 0,
			want: out{Head: "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: keep-alive\r\n\r\n"}},
		{name: "HEAD", head: true, code: 200, length: -1,
			want: out{Head: "HTTP/1.1 200 OK\r\n\r\n", NoBody: true}},
		{name: "304", code: 304, length: -1,
			want: out{Head: "HTTP/1.1 304 Not Modified\r\n\r\n", NoBody: true}},
		{name: "closing, own fields and vary", closing: true, own: "Strict-Transport-Security: max-age=60\r\n", vary: "Vary: Cookie\r\n",
			code: 404, length: 0, fields: []string{"Strict-Transport-Security", "max-age=1"},
			want: out{Head: "HTTP/1.1 404 Not Found\r\nVary: Cookie\r\nStrict-Transport-Security: max-age=60\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", Closing: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &Metrics{FieldsDropped: metrics.NewSet().NewCounter("dropped")}
			f := &Forward{m: m, http10: tc.http10, head: tc.head, closing: tc.closing, own: tc.own, ownHSTS: tc.own != "", vary: tc.vary}
			head, chunked, noBody := f.answerHead(tc.code, nil, fields(tc.fields...), tc.length)
			got := out{Head: string(head), Chunked: chunked, NoBody: noBody, Closing: f.closing}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if st := f.status.Load(); int(st) != tc.code {
				t.Errorf("status for the log %d, want %d", st, tc.code)
			}
		})
	}
}
