package engine_test

import (
	"bufio"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/matcher"
	"github.com/redirectd/redirectd/matcher/rewrite"
)

// TestLocationSchemes serves a site as certbot lays it out in nginx (a
// plain server that sends everything to https, the site on the TLS
// one) and asks over the plain port, over TLS, and over the plain port
// marked https by a trusted terminator (no https_redirect) or by a
// client that is not trusted.
func TestLocationSchemes(t *testing.T) {
	t.Parallel()
	hosts, err := rewrite.CompileHosts([]rewrite.HostSpec{
		{Host: "example.com", Scheme: "http", Spec: rewrite.Spec{Steps: []rewrite.Text{{Src: `return 301 https://$host$request_uri;`}}}},
		{Host: "example.com", Scheme: "https", Spec: rewrite.Spec{Locations: []rewrite.LocationSpec{
			{Match: rewrite.Prefix, Path: "/", Steps: `return 200 "site";`},
			{Match: rewrite.Prefix, Path: "/old/", Steps: `rewrite ^/old/(.*)$ /new/$1 permanent;`},
		}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	set, err := matcher.Compile(nil)
	if err != nil {
		t.Fatal(err)
	}
	set.SetLocations(hosts)
	for _, tc := range []struct {
		name    string
		trusted bool
		want    []string
	}{
		{"trusted terminator", true, []string{"plain: 301 https://example.com/old/a", "tls: 301 /new/a", "forwarded https: 301 /new/a"}},
		{"untrusted client", false, []string{"plain: 301 https://example.com/old/a", "tls: 301 /new/a", "forwarded https: 301 https://example.com/old/a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := engine.Options{TLS: testTLSOptions(t)}
			if tc.trusted {
				opts.Proxies = engine.ProxyOptions{Trusted: trustLoopback}
			}
			srv := startServerWith(t, opts)
			srv.Swap(set)
			var got []string
			for _, how := range []string{"plain", "tls", "forwarded https"} {
				req := "GET /old/a HTTP/1.1\r\nHost: example.com\r\n"
				if how == "forwarded https" {
					req += "X-Forwarded-Proto: https\r\n"
				}
				req += "\r\n"
				var br *bufio.Reader
				if how == "tls" {
					br, _ = readTLSAnswer(t, srv, req)
				} else {
					c := dial(t, srv)
					if _, err := c.Write([]byte(req)); err != nil {
						t.Fatal(err)
					}
					br = bufio.NewReader(c)
				}
				resp, err := http.ReadResponse(br, &http.Request{Method: "GET"})
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				got = append(got, how+": "+resp.Status[:3]+" "+resp.Header.Get("Location"))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("answers (-want +got):\n%s", diff)
			}
		})
	}
}
