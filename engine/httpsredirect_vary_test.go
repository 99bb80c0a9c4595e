package engine_test

import (
	"bufio"
	"io"
	"net/http"
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/engine"
)

// TestHTTPSRedirectVary: under https_redirect, every answer to a peer whose
// X-Forwarded-Proto is believed depends on that field, so each says Vary:
// X-Forwarded-Proto (a cache between the TLS terminator and redirectd
// would otherwise replay the 301 to https visitors, who would loop);
// answers to a peer whose field is ignored do not vary. OPTIONS * is not
// redirected (it would be https://host*).
func TestHTTPSRedirectVary(t *testing.T) {
	type answer struct {
		Status         int
		Location, Vary string
	}
	const vary = "X-Forwarded-Proto"
	for _, tc := range []struct {
		name    string
		trusted []netip.Prefix
		want    []answer
	}{
		{"believed", trustLoopback, []answer{
			{301, "https://site.example/old", vary},
			{301, "https://example.com/new", vary},
			{200, "", vary},
			{200, "", vary}, // OPTIONS * is forwarded, not redirected
			{400, "", vary},
		}},
		{"ignored", trustTen, []answer{
			{301, "https://site.example/old", ""},
			{301, "https://site.example/old", ""},
			{301, "https://site.example/miss/x", ""},
			{200, "", ""},
			{400, "", ""},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := ppServer(t, engine.Options{HTTPSRedirect: true, Proxies: engine.ProxyOptions{Trusted: tc.trusted}})
			c := dial(t, srv)
			br := bufio.NewReader(c)
			var got []answer
			for _, req := range []string{
				"GET /old HTTP/1.1\r\nHost: site.example\r\n\r\n",
				"GET /old HTTP/1.1\r\nHost: site.example\r\nX-Forwarded-Proto: https\r\n\r\n",
				"GET /miss/x HTTP/1.1\r\nHost: site.example\r\nX-Forwarded-Proto: https\r\n\r\n",
				"OPTIONS * HTTP/1.1\r\nHost: site.example\r\n\r\n",
				"GET /old HTTP/1.1\r\n\r\n", // no Host: nowhere to redirect to
			} {
				io.WriteString(c, req)
				resp, err := http.ReadResponse(br, nil)
				if err != nil {
					t.Fatalf("%q: %v", req, err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				got = append(got, answer{resp.StatusCode, resp.Header.Get("Location"), resp.Header.Get("Vary")})
				if resp.Close {
					c = dial(t, srv)
					br = bufio.NewReader(c)
				}
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("answers (-want +got):\n%s", d)
			}
		})
	}
}
