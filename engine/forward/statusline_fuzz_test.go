package forward

import (
	"bufio"
	"bytes"
	"net/http"
	"testing"
)

// FuzzStatusLine: whatever reason an upstream sends, the status line
// written for the client is one line that carries the code and that
// net/http's client reads with no field before the head's end.
func FuzzStatusLine(f *testing.F) {
	f.Add(403, []byte("Forbidden\rSet-Cookie: sid=attacker"))
	f.Add(101, []byte("Switching Protocols"))
	f.Add(200, []byte(""))
	f.Fuzz(func(t *testing.T, code int, reason []byte) {
		code = 100 + (code%500+500)%500
		line := AppendStatusLine(nil, code, reason)
		if bytes.Count(line, []byte("\r")) != 1 || bytes.Count(line, []byte("\n")) != 1 || !bytes.HasSuffix(line, []byte("\r\n")) {
			t.Fatalf("%q is not one line", line)
		}
		resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(append(line, "\r\n"...))), nil)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if resp.StatusCode != code || len(resp.Header) != 0 {
			t.Fatalf("%q read as %d with fields %v", line, resp.StatusCode, resp.Header)
		}
	})
}
