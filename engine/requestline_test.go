package engine_test

import (
	"strings"
	"testing"

	"github.com/redirectd/redirectd/engine"
)

// TestRequestLineParts checks the request line's bounds through the traffic port:
// every part of the request line has its own bound, so a long method gets
// the same answer whatever the target's length, and a '#' in the target is
// 400, since no request-target form holds a fragment.
func TestRequestLineParts(t *testing.T) {
	t.Parallel()
	testRequestLineParts(t, plainTCP)
}

func testRequestLineParts(t *testing.T, tr transport) {
	srv := tr.start(t, engine.Options{}) // max_path_bytes 8192
	method9000 := strings.Repeat("G", 9000)
	tests := []strictCase{
		{"method of 9000 bytes, short target", method9000 + " /old HTTP/1.1\r\nHost: a\r\n\r\n", 501, false},
		{"method of 9000 bytes, long target", method9000 + " /" + strings.Repeat("a", 9000) + " HTTP/1.1\r\nHost: a\r\n\r\n", 501, false},
		{"method of 9000 bytes, unfinished", method9000, 501, false},
		{"method of 33 bytes", strings.Repeat("M", 33) + " /old HTTP/1.1\r\nHost: a\r\n\r\n", 501, false},
		{"method of 32 bytes", strings.Repeat("M", 32) + " /old HTTP/1.1\r\nHost: a\r\n\r\n", 301, true},
		{"target over the limit after a short method", "GET /" + strings.Repeat("a", 8192) + " HTTP/1.1\r\nHost: a\r\n\r\n", 414, false},
		{"fragment in path", "GET /old#top HTTP/1.1\r\nHost: a\r\n\r\n", 400, false},
		{"fragment after query", "GET /old?x=1#top HTTP/1.1\r\nHost: a\r\n\r\n", 400, false},
		{"empty fragment", "GET /old# HTTP/1.1\r\nHost: a\r\n\r\n", 400, false},
		{"fragment in absolute form", "GET http://a/old#top HTTP/1.1\r\nHost: a\r\n\r\n", 400, false},
		{"escaped hash", "GET /old%23top HTTP/1.1\r\nHost: a\r\n\r\n", 404, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tr.runStrict(t, srv, tc) })
	}
}
