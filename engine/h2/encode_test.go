package h2

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/net/http2/hpack"
)

// TestAppendBlock decodes the blocks appendBlock makes with hpack's own
// decoder: the status, the fields in lower case and in order, the
// connection's fields left out, the body's offset.
func TestAppendBlock(t *testing.T) {
	for _, tt := range []struct {
		name, answer string
		status       int
		fields       []hpack.HeaderField
		body         string
	}{
		{"redirect", "HTTP/1.1 301 Moved Permanently\r\nLocation: https://example.com/new?a=1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", 301,
			[]hpack.HeaderField{{Name: ":status", Value: "301"}, {Name: "location", Value: "https://example.com/new?a=1"}, {Name: "content-length", Value: "0"}}, ""},
		{"404 with a body, static status", "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 10\r\nX-Custom: v  \r\n\r\nnot found\n", 404,
			[]hpack.HeaderField{{Name: ":status", Value: "404"}, {Name: "content-type", Value: "text/plain; charset=utf-8"}, {Name: "content-length", Value: "10"}, {Name: "x-custom", Value: "v"}}, "not found\n"},
		{"upstream's hop-by-hop fields", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nKeep-Alive: timeout=5\r\nUpgrade: h2c\r\nSet-Cookie: a=b\r\n\r\n", 200,
			[]hpack.HeaderField{{Name: ":status", Value: "200"}, {Name: "set-cookie", Value: "a=b"}}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			block, status, headLen, ok := appendBlock(nil, []byte(tt.answer))
			if !ok || status != tt.status || tt.answer[headLen:] != tt.body {
				t.Fatalf("ok %v, status %d, body %q; want %d, %q", ok, status, tt.answer[headLen:], tt.status, tt.body)
			}
			got, err := hpack.NewDecoder(4096, nil).DecodeFull(block)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.fields, got); diff != "" {
				t.Errorf("fields (-want +got):\n%s", diff)
			}
		})
	}
	for _, bad := range []string{"", "HTTP/1.1 301 Moved", "SSH-2.0\r\n\r\n", "HTTP/1.1 3x1 Bad\r\n\r\n"} {
		if _, _, _, ok := appendBlock(nil, []byte(bad)); ok {
			t.Errorf("appendBlock(%q) ok, want refused", bad)
		}
	}
}
