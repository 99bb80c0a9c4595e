//go:build !race

package engine

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/redirectd/redirectd/matcher"
)

// TestConditionsAllocs checks that a request decided by conditions on
// language, header and cookie allocates nothing, Vary included.
func TestConditionsAllocs(t *testing.T) {
	set, err := matcher.Compile([]matcher.Rule{
		{From: "/home", To: "https://example.com/en/", Status: 302},
		{From: "/home", To: "https://example.com/at/", Status: 302, When: &matcher.When{Country: []string{"AT"}}},
		{From: "/home", To: "https://example.com/de/", Status: 302, When: &matcher.When{
			Language: []string{"de"}, Header: []matcher.KeyValue{{Name: "X-Device", Value: "mobile"}},
			Cookie: []matcher.KeyValue{{Name: "lang", Value: "de"}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := New(Options{}, set)
	f := &serveFixture{srv: srv, conn: &conn{loop: newLoop(srv, nil)}}
	buf := []byte("GET /home HTTP/1.1\r\nHost: a\r\nAccept-Language: fr;q=0.5, de-DE\r\nX-Device: mobile\r\nCookie: x=1; lang=de\r\n\r\n")
	out := string(f.serve(t, buf))
	if !strings.Contains(out, "Location: https://example.com/de/\r\n") || !strings.Contains(out, "Vary: Accept-Language, X-Device, Cookie\r\n") {
		t.Fatalf("answer %q, want /de/ with Vary", out)
	}
	if allocs := testing.AllocsPerRun(100, func() { f.serve(t, buf) }); allocs != 0 {
		t.Errorf("%v allocations per request, want 0", allocs)
	}
}

// TestSchemeConditionAllocs checks that a request decided by when.scheme
// (a plain port's catch-all passed over, then a no-redirect entry) and one
// answered by the catch-all allocate nothing.
func TestSchemeConditionAllocs(t *testing.T) {
	set, err := matcher.Compile([]matcher.Rule{
		{Kind: matcher.Regex, From: "^", To: "https://a${path}", Status: 301, Host: "a", When: &matcher.When{Scheme: "https"}},
		{Kind: matcher.Regex, From: "^/x", To: "/y", Status: 301, Host: "a", When: &matcher.When{Scheme: "http"}},
		{Kind: matcher.Regex, From: "^", Pass: true, Host: "a", When: &matcher.When{Scheme: "http"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := New(Options{}, set)
	f := &serveFixture{srv: srv, conn: &conn{loop: newLoop(srv, nil)}}
	for _, tc := range []struct{ target, want string }{
		{"/x/1", "Location: /y\r\n"},
		{"/z", "HTTP/1.1 404 "},
	} {
		buf := []byte("GET " + tc.target + " HTTP/1.1\r\nHost: a\r\n\r\n")
		if out := string(f.serve(t, buf)); !strings.Contains(out, tc.want) {
			t.Fatalf("answer %q, want %q", out, tc.want)
		}
		if allocs := testing.AllocsPerRun(100, func() { f.serve(t, buf) }); allocs != 0 {
			t.Errorf("%s: %v allocations per request, want 0", tc.target, allocs)
		}
	}
}

// TestClientConditionAllocs checks that requests decided by when.ip (a
// short list and an indexed one), when.method and when.sample allocate
// nothing, the client read from the connection.
func TestClientConditionAllocs(t *testing.T) {
	rules := []matcher.Rule{
		{From: "/home", To: "https://example.com/all/", Status: 302},
		{From: "/home", To: "https://example.com/office/", Status: 302, When: &matcher.When{IP: []netip.Prefix{netip.MustParsePrefix("203.0.113.0/24")}}},
		{From: "/home", To: "https://example.com/post/", Status: 307, When: &matcher.When{Method: []string{"POST"}}},
		{From: "/split", To: "https://example.com/b/", Status: 302},
		{From: "/split", To: "https://example.com/a/", Status: 302, When: &matcher.When{Sample: 0.5}},
		{From: "/many", To: "https://example.com/other/", Status: 302},
	}
	for i := range 100 {
		rules = append(rules, matcher.Rule{From: "/many", To: "https://example.com/net/", Status: 302,
			When: &matcher.When{IP: []netip.Prefix{netip.PrefixFrom(netip.AddrFrom4([4]byte{203, 0, byte(i + 100), 0}), 24)}}})
	}
	set, err := matcher.Compile(rules)
	if err != nil {
		t.Fatal(err)
	}
	srv := New(Options{}, set)
	for _, tc := range []struct{ client, req, want string }{
		{"203.0.113.9", "GET /home HTTP/1.1\r\nHost: a\r\n\r\n", "/office/"},
		{"192.0.2.1", "POST /home HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n", "/post/"},
		{"192.0.2.1", "GET /home HTTP/1.1\r\nHost: a\r\n\r\n", "/all/"},
		// The hash puts 192.0.2.1 in the first half, on every run.
		{"192.0.2.1", "GET /split HTTP/1.1\r\nHost: a\r\n\r\n", "/a/"},
		{"203.0.150.1", "GET /many HTTP/1.1\r\nHost: a\r\n\r\n", "/net/"},
		{"192.0.2.1", "GET /many HTTP/1.1\r\nHost: a\r\n\r\n", "/other/"},
	} {
		f := &serveFixture{srv: srv, conn: &conn{loop: newLoop(srv, nil), ip: netip.MustParseAddr(tc.client)}}
		buf := []byte(tc.req)
		if out := string(f.serve(t, buf)); !strings.Contains(out, tc.want+"\r\n") {
			t.Fatalf("%s from %s: answer %q, want %q", tc.req, tc.client, out, tc.want)
		}
		if allocs := testing.AllocsPerRun(100, func() { f.serve(t, buf) }); allocs != 0 {
			t.Errorf("%q from %s: %v allocations per request, want 0", tc.req, tc.client, allocs)
		}
	}
}
