package forward

import (
	"iter"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func fieldsOf(kv ...string) iter.Seq2[[]byte, []byte] {
	b := make([][]byte, len(kv))
	for i, s := range kv {
		b[i] = []byte(s)
	}
	return func(yield func([]byte, []byte) bool) {
		for i := 0; i+1 < len(b); i += 2 {
			if !yield(b[i], b[i+1]) {
				return
			}
		}
	}
}

type count int

func (c *count) Inc() { *c++ }

// TestAppendAnswerFields: what an answer relayed from an upstream
// carries, a 101's included.
func TestAppendAnswerFields(t *testing.T) {
	up := fieldsOf("Content-Type", "text/plain", "Connection", "Upgrade, X-Hop", "Upgrade", "websocket", "X-Hop", "1",
		"Keep-Alive", "timeout=5", "Content-Length", "3", "Strict-Transport-Security", "max-age=1",
		"X-Bad", "a\rSet-Cookie: x", "Vary", "Accept")
	for _, tc := range []struct {
		name    string
		upgrade bool
		a       Answer
		want    string
		dropped int
	}{
		{"plain", false, Answer{},
			"Content-Type: text/plain\r\nStrict-Transport-Security: max-age=1\r\nVary: Accept\r\n", 1},
		{"tls with vary", false, Answer{Own: "Strict-Transport-Security: max-age=9\r\n", OwnHSTS: true, Vary: "Vary: Cookie\r\n"},
			"Content-Type: text/plain\r\nVary: Accept\r\nVary: Cookie\r\nStrict-Transport-Security: max-age=9\r\n", 1},
		{"101", true, Answer{Own: "Strict-Transport-Security: max-age=9\r\n", OwnHSTS: true},
			"Content-Type: text/plain\r\nConnection: Upgrade, X-Hop\r\nUpgrade: websocket\r\nVary: Accept\r\nStrict-Transport-Security: max-age=9\r\n", 1},
	} {
		var n count
		tc.a.Dropped = &n
		got := string(AppendAnswerFields(nil, up, tc.upgrade, &tc.a))
		if d := cmp.Diff(strings.Split(tc.want, "\r\n"), strings.Split(got, "\r\n")); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, d)
		}
		if int(n) != tc.dropped {
			t.Errorf("%s: %d fields counted dropped, want %d", tc.name, n, tc.dropped)
		}
	}
}
