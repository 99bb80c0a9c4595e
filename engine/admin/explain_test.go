package admin

import (
	"bufio"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/redirectd/redirectd/internal/testutil"
)

// hostileQueries are /explain queries an attacker or a careless script
// might send: huge, binary, malformed escapes, repeated parameters.
func hostileQueries() map[string]string {
	var all strings.Builder
	for b := 0; b < 256; b++ {
		all.WriteByte(byte(b))
	}
	enc := func(u string) string { return url.Values{"url": {u}}.Encode() }
	return map[string]string{
		"long path under header limit": enc("http://example.com/" + strings.Repeat("a", 60<<10)),
		"long host":                    enc("http://" + strings.Repeat("h", 50<<10) + "/"),
		"over header limit":            enc("http://example.com/" + strings.Repeat("a", 100<<10)),
		"every byte":                   enc(all.String()),
		"every byte after scheme":      enc("http://example.com/" + all.String()),
		"nul bytes":                    enc("http://example.com/\x00\x00"),
		"invalid utf-8":                enc("http://ex\xff\xfeample.com/\xc3"),
		"crlf":                         enc("http://example.com/\r\nSet-Cookie: x=1"),
		"lone percent":                 "url=%",
		"bad escape":                   "url=http%3A%2F%2Fa%2F%zz",
		"semicolon":                    "url=http://a/;x=1",
		"many url params":              strings.Repeat("url=http%3A%2F%2Fa%2F&", 2000),
		"deep brackets":                enc("http://[" + strings.Repeat("[", 10000) + "/"),
		"only scheme":                  enc("http:"),
		"just spaces":                  enc("   "),
	}
}

// TestExplainHostile sends each hostile query over a real connection and
// expects 200, 400, or 431 from net/http's header limit, and never a
// dropped connection (which is how net/http reports a handler panic). The
// server must still answer afterwards.
func TestExplainHostile(t *testing.T) {
	s := start(t, Options{}, newFake())
	base := "http://" + s.Addr()
	for name, q := range hostileQueries() {
		t.Run(name, func(t *testing.T) {
			got := do(t, "GET", base+"/explain?"+q, nil)
			switch got.Status {
			case http.StatusOK, http.StatusBadRequest, http.StatusRequestHeaderFieldsTooLarge:
			default:
				t.Errorf("status = %d (%q), want 200, 400 or 431", got.Status, cut(got.Body))
			}
		})
	}
	if got := do(t, "GET", base+"/healthz", nil); got.Status != 200 {
		t.Errorf("healthz after hostile input: %d", got.Status)
	}
}

// TestExplainHostileHandler calls the handler directly, so a panic fails
// the test rather than being recovered by net/http, and raw bytes reach
// the query without the client escaping them.
func TestExplainHostileHandler(t *testing.T) {
	s, err := New(Options{}, newFake())
	if err != nil {
		t.Fatal(err)
	}
	queries := hostileQueries()
	queries["raw binary"] = "url=\x00\x01\xff\xfe%00"
	queries["raw crlf"] = "url=http://a/\r\n\r\nGET / HTTP/1.1"
	for name, q := range queries {
		t.Run(name, func(t *testing.T) {
			req := httptest.NewRequest("GET", "http://127.0.0.1/explain", nil)
			req.URL.RawQuery = q
			w := httptest.NewRecorder()
			s.Handler().ServeHTTP(w, req)
			if w.Code != http.StatusOK && w.Code != http.StatusBadRequest {
				t.Errorf("status = %d (%q), want 200 or 400", w.Code, cut(w.Body.String()))
			}
			if got := w.Header().Get("Content-Type"); got != textType {
				t.Errorf("Content-Type = %q, want %q", got, textType)
			}
		})
	}
}

// TestExplainRawTarget writes request lines with bytes a client would
// escape; net/http may refuse them with a 400 before the handler runs.
func TestExplainRawTarget(t *testing.T) {
	s := start(t, Options{}, newFake())
	targets := map[string]string{
		"high bytes":  "/explain?url=http://a/\xff\xfe\x80",
		"control":     "/explain?url=http://a/\x01\x7f",
		"tab":         "/explain?url=http://a/\tb",
		"bare escape": "/explain?url=%",
	}
	for name, target := range targets {
		t.Run(name, func(t *testing.T) {
			c, err := net.DialTimeout("tcp", s.Addr(), time.Second)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(testutil.Patience))
			if _, err := c.Write([]byte("GET " + target + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")); err != nil {
				t.Fatal(err)
			}
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				t.Fatalf("no answer: %v", err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusBadRequest {
				t.Errorf("status = %d, want 200 or 400", resp.StatusCode)
			}
		})
	}
}
