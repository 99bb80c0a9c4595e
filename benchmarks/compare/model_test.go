package main

import (
	"testing"
)

// redirectd started with the nginx-model config answers model-exact, and
// its model tables are in force: the exact rule sees nginx's $uri, the
// server-level steps, the second server and each location answer. So
// model-exact times an exact hit in a config where all of them are live.
func TestModelConfigAnswers(t *testing.T) {
	h, bin := testHarness(t)
	srv := &redirectd{name: "redirectd", bin: bin}
	p, addr, _, err := h.launch(srv, Instance{Spec: h.s.Spec, Model: true}, "test-model")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	hit := exactHit(h.s.Spec)
	req := func(host, path, extra string, w Want) Req {
		return Req{Path: path, Raw: "GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\n" + extra + "\r\n", Want: w}
	}
	const host = "www.example.com"
	checks := []Req{
		req(host, "//"+hit[1:], "", expect(h.s.Spec, hit)),                                        // merged slashes: $uri
		req(host, "/exact/./"+hit[len("/exact/"):], "", expect(h.s.Spec, hit)),                    // a dot segment
		req(host, "/exact%2F"+hit[len("/exact/"):], "", expect(h.s.Spec, hit)),                    // %2F decoded
		req("www.example.org", hit, "", Want{Status: 308, Location: "https://example.org" + hit}), // the second server
		req(host, hit, "X-Forwarded-Proto: http\r\n", Want{Status: 301, Location: "https://" + host + hit}),
		req(host, "/index.html", "", Want{Status: 301, Location: "/"}),
		req(host, "/healthz", "", Want{Status: 200, Body: 2}),
		req(host, "/docs/a/usage", "", Want{Status: 302, Location: "/docs/a/usage/overview.html"}),
		req(host, "/docs/x", "", Want{Status: 302, Location: "/docs/v2/"}), // the lookahead: PCRE
		req(host, "/docs/v1/old/q", "", Want{Status: 301, Location: "/docs/v2/q"}),
		req(host, "/a.php", "", Want{Status: 410}),
	}
	for _, sc := range h.scenarios {
		if sc.Model {
			checks = append(checks, sc.Reqs...)
		}
	}
	if err := verify(addr, Scenario{Name: "model", Reqs: checks}); err != nil {
		t.Error(err)
	}
}
