package matcher

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/internal/testutil"
)

func buildURISet(t *testing.T, u URI, rules []Rule) *Set {
	t.Helper()
	b := NewBuilder(DefaultLimits)
	b.SetURI(u)
	for i := range rules {
		rules[i].File, rules[i].Line = "uri.toml", i+1
		if rules[i].Status == 0 {
			rules[i].Status = 302
		}
		if err := b.Add(&rules[i]); err != nil {
			t.Fatal(err)
		}
	}
	s, err := b.Set()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// uriResult is what a lookup gave: the rule's line and Location, "400"
// for a path nginx refuses, "" for no match.
func uriLookup(s *Set, m *Match, path string) string {
	if !s.Lookup(nil, []byte(path), nil, m) {
		if m.BadURI() {
			return "400"
		}
		return ""
	}
	return fmt.Sprintf("%d %s", m.Rule().Line, m.AppendLocation(nil, nil))
}

// TestNginxURISet checks that every rule kind compares $uri in a Set of
// URI.Nginx, request_uri rules the target as sent, and that a path
// nginx refuses matches nothing and is reported.
func TestNginxURISet(t *testing.T) {
	rules := []Rule{
		{Kind: Exact, From: "/old", To: "/new"},
		{Kind: Exact, From: "/a b", To: "/space"},
		{Kind: Exact, From: "/x//y", To: "/xy"},
		{Kind: Exact, From: "/faq%3F", To: "/faq-q"},
		{Kind: Prefix, From: "/js/", To: "/assets/js/"},
		{Kind: Regex, From: `^/docs/(.*)$`, To: "/d/$1"},
		{Kind: Exact, From: "/raw%2Fx", To: "/raw", RequestURI: true},
		{Kind: Exact, From: "/Case", To: "/case", CaseInsensitive: true},
		{Kind: Exact, From: "/dec%3Ax", To: "/dec", DecodedPath: true},
		{Kind: Regex, From: `^/re/(\w+)\.html$`, To: "/re2/$1"},
		{Kind: Exact, From: "/caf%C3%A9", To: "/cafe"},
	}
	tests := []struct{ path, merged, unmerged string }{
		{"/old", "1 /new", "1 /new"},
		{"//old", "1 /new", ""},
		{"/./old", "1 /new", "1 /new"},
		{"/x/../old", "1 /new", "1 /new"},
		{"/%6Fld", "1 /new", "1 /new"},
		{"/a%20b", "2 /space", "2 /space"},
		{"/x/y", "3 /xy", ""},
		{"/x//y", "3 /xy", "3 /xy"},
		{"/x%2F%2Fy", "3 /xy", "3 /xy"},
		{"/faq%3F", "4 /faq-q", "4 /faq-q"},
		{"/js//x", "5 /assets/js/x", "5 /assets/js//x"},
		{"/js%2Fx", "5 /assets/js/x", "5 /assets/js/x"},
		{"/css/../js/x", "5 /assets/js/x", "5 /assets/js/x"},
		{"/docs/a%20b", "6 /d/a%20b", "6 /d/a%20b"},
		{"/docs/a+b", "6 /d/a+b", "6 /d/a+b"},
		{"/docs/x%3Fy&z", "6 /d/x?y%26z", "6 /d/x?y%26z"},
		{"/docs/a%0Ab", "", ""}, // "." matches no newline, in PCRE too
		{"/docs/a|b", "6 /d/a%7Cb", "6 /d/a%7Cb"},
		{"/raw%2Fx", "7 /raw", "7 /raw"},
		{"/raw/x", "", ""},
		{"/CASE", "8 /case", "8 /case"},
		{"/dec:x", "9 /dec", "9 /dec"},
		{"/re/%61b.html", "10 /re2/ab", "10 /re2/ab"},
		{"/caf%c3%a9", "11 /cafe", "11 /cafe"},
		{"/a/../../x", "400", "400"},
		{"/a%zz", "400", "400"},
		{"/a%00", "400", "400"},
		{"/%2e%2e/old", "400", "400"},
	}
	for _, keep := range []bool{false, true} {
		s := buildURISet(t, URI{Nginx: true, KeepSlashes: keep}, append([]Rule(nil), rules...))
		var m Match
		for _, tt := range tests {
			want := tt.merged
			if keep {
				want = tt.unmerged
			}
			if got := uriLookup(s, &m, tt.path); got != want {
				t.Errorf("keep slashes %v: %s gives %q, want %q", keep, tt.path, got, want)
			}
		}
	}
}

// TestNginxURIRefusedFrom checks that a rule no request can reach is an
// error naming its from.
func TestNginxURIRefusedFrom(t *testing.T) {
	b := NewBuilder(DefaultLimits)
	b.SetURI(URI{Nginx: true})
	err := b.Add(&Rule{Kind: Prefix, From: "/../x", To: "/y", Status: 301, File: "f.toml", Line: 3})
	if err == nil || !strings.Contains(err.Error(), "from") || !strings.Contains(err.Error(), "400") {
		t.Errorf("Add of from /../x: %v, want an error on from naming nginx's 400", err)
	}
}

func TestNginxURILookupAllocs(t *testing.T) {
	s := buildURISet(t, URI{Nginx: true}, []Rule{
		{Kind: Exact, From: "/old", To: "/new"},
		{Kind: Prefix, From: "/js/", To: "/assets/js/"},
		{Kind: Regex, From: `^/docs/(.*)$`, To: "/d/$1"},
	})
	var m Match
	var loc []byte
	paths := [][]byte{[]byte("//old"), []byte("/js%2F/x"), []byte("/docs/caf%C3%A9%3F&x"), []byte("/a%zz")}
	run := func() {
		for _, p := range paths {
			if s.Lookup(nil, p, nil, &m) {
				loc = m.AppendLocation(loc[:0], nil)
			}
		}
	}
	run()
	if n := testing.AllocsPerRun(100, run); n != 0 {
		t.Errorf("a lookup on $uri allocates %v times a run, want 0", n)
	}
}

// TestNginxURILocationAsNginx compares the Location a regex rule (and a
// prefix rule, as nginx's `rewrite ^/p/(.*)$ /q/$1`) builds from $uri
// with a real nginx's rewrite, for paths with escapes, '+', spaces and
// UTF-8. Bytes a Location cannot hold, which nginx may send as they are,
// are percent-encoded in nginx's answer before comparing: the one
// intended difference.
func TestNginxURILocationAsNginx(t *testing.T) {
	bin := testutil.FindNginx(t)
	addr := freeAddr(t)
	startNginx(t, bin, fmt.Sprintf(`
    server { listen %s;
        location / {
            rewrite ^/docs/(.*)$ /d/$1 redirect;
            rewrite ^/a/([^/]*)/(.*)$ /b/$1?k=$2 redirect;
            rewrite ^/js/(.*)$ /assets/js/$1 redirect;
            return 404;
        }
        location ~ ^/u/ { return 302 /b$uri; }
    }`, addr), addr)
	s := buildURISet(t, URI{Nginx: true}, []Rule{
		{Kind: Regex, From: `^/docs/(.*)$`, To: "/d/$1"},
		{Kind: Regex, From: `^/a/([^/]*)/(.*)$`, To: "/b/$1?k=$2"},
		{Kind: Prefix, From: "/js/", To: "/assets/js/"},
		{Kind: Regex, From: `^/u/`, To: "/b$uri"},
	})
	paths := []string{"/u/x%20y%3Fq&a", "/u/a%2541", "/u/a+b%7C%23c", "/u//./x/../y", "/u/caf%C3%A9", "/docs/plain", "/docs/a%20b", "/docs/a+b", "/docs/a%2Bb", "/docs/caf%C3%A9", "/docs/x%3Fy&z+w",
		"/docs/a%7Cb^c", "/docs/a|b^c{d}`e", "/docs/a%25b", "/docs/a%23b", "/docs/x/../y", "/docs//y", "/docs/%2e%2e/z",
		"/docs/a%22b", "/docs/a%3Cb%3E", "/docs/a%26b%3Bc", "/docs/a%5Cb", "/docs/%7Bx%7D", "/docs/a%0Ab", "/docs/a%7F",
		"/docs/a;b&c=d", "/docs/a~b!$'()*,;=:@", "/docs/a%60b", "/docs/%E2%82%AC+%20", "/docs/%3F%3F&%26",
		"/a/x%20y/p%26q+r", "/a/x/p%3Fq", "/a/x%3F/%20", "/a/plain/p&q", "/a/x+y/caf%C3%A9",
		"/js/x%20y", "/js/a+b", "/js//a/./b", "/js/a%3Fb&c", "/js/%C3%A9", "/docs/a%zz", "/docs/../../x"}
	var m Match
	var diffs []string
	for _, p := range paths {
		st, _, loc := nginxGet(t, addr, p)
		want := ""
		switch st {
		case 302:
			want = string(encodeInvalid([]byte(loc)))
		case 400:
			want = "400"
		case 404:
		default:
			t.Fatalf("nginx answered %s with %d", p, st)
		}
		got := ""
		if s.Lookup(nil, []byte(p), nil, &m) {
			got = string(m.AppendLocation(nil, nil))
		} else if m.BadURI() {
			got = "400"
		}
		if got != want {
			diffs = append(diffs, fmt.Sprintf("%s: redirectd %q, nginx %q (sent %q)", p, got, want, loc))
		}
	}
	if diff := cmp.Diff([]string(nil), diffs); diff != "" {
		t.Errorf("Locations differ from nginx's:\n%s", diff)
	}
}

// encodeInvalid percent-encodes the bytes of a Location that a URI
// reference cannot hold, and keeps the rest.
func encodeInvalid(b []byte) []byte {
	var out []byte
	for _, c := range b {
		if escapeInTarget(c) {
			out = append(out, '%', hexDigits[c>>4], hexDigits[c&15])
		} else {
			out = append(out, c)
		}
	}
	return out
}

// TestDecodedPathKeepsCallerMemory: when a path needed no decoding, the
// decoded path is the caller's own slice; the next lookup's decoding must
// go to the Match's memory, not over the bytes after that slice (a
// server's read buffer, another request's).
func TestDecodedPathKeepsCallerMemory(t *testing.T) {
	for _, u := range []URI{{}, {Nginx: true}} {
		s := buildURISet(t, u, []Rule{{Kind: Exact, From: "/a:b", To: "/x", DecodedPath: true}})
		var m Match
		buf := []byte("/plain|/a%3Ab and more bytes of the buffer")
		first := buf[:6]
		s.Lookup(nil, first, nil, &m)
		m.decodedPath()
		if !s.Lookup(nil, []byte("/a%3Ab"), nil, &m) {
			t.Errorf("URI %+v: /a%%3Ab does not find /a:b", u)
		}
		if got := string(buf); got != "/plain|/a%3Ab and more bytes of the buffer" {
			t.Errorf("URI %+v: the caller's buffer was written: %q", u, got)
		}
	}
}

// FuzzNginxURILookup looks paths up in Sets on nginx's $uri: no panic,
// and every Location holds only bytes a Location may (a decoded CR, LF
// or space in a group must never reach the header as it is).
func FuzzNginxURILookup(f *testing.F) {
	for _, c := range nginxURICases {
		f.Add(c.path, false)
	}
	f.Add("/docs/a%0D%0ALocation:%20x", true)
	f.Add("/js/%3F%23%25+", false)
	f.Add("/u/%0A%20%7F%C3%A9", false)
	var sets [2]*Set
	for i, keep := range []bool{false, true} {
		b := NewBuilder(DefaultLimits)
		b.SetURI(URI{Nginx: true, KeepSlashes: keep})
		for j, r := range []Rule{
			{Kind: Exact, From: "/old", To: "/new"},
			{Kind: Prefix, From: "/js/", To: "https://example.com/assets/"},
			{Kind: Regex, From: `(?s)^/docs/(.*)$`, To: "/d/$1?x=$1"},
			{Kind: Regex, From: `^/u/`, To: "https://example.com$uri"},
			{Kind: Regex, From: `^/(\w+)/(.*)$`, To: "https://example.com/$2/$1"},
			{Kind: Prefix, From: "/", To: "/root/", Host: "h.example"},
		} {
			r.File, r.Line, r.Status = "f.toml", j+1, 301
			if err := b.Add(&r); err != nil {
				f.Fatal(err)
			}
		}
		s, err := b.Set()
		if err != nil {
			f.Fatal(err)
		}
		sets[i] = s
	}
	f.Fuzz(func(t *testing.T, p string, keep bool) {
		s := sets[0]
		if keep {
			s = sets[1]
		}
		var m Match
		for _, host := range []string{"", "h.example"} {
			if !s.Lookup([]byte(host), []byte(p), []byte("q=1"), &m) {
				continue
			}
			loc := m.AppendLocation(nil, []byte("q=1"))
			for _, c := range loc {
				if escapeInTarget(c) {
					t.Fatalf("%q: Location %q holds %q", p, loc, c)
				}
			}
		}
	})
}

// TestNginxURIKept: the $uri RefusesURI builds is the next Lookup's and
// NginxURI's, so that a request builds it once; a Lookup without
// RefusesURI before it, of other bytes at the same place, builds its
// own; ForgetURI drops it. Neither allocates.
func TestNginxURIKept(t *testing.T) {
	s := buildURISet(t, URI{Nginx: true}, []Rule{
		{Kind: Exact, From: "/a/b", To: "/ab"},
		{Kind: Exact, From: "/c/d", To: "/cd"},
	})
	var m Match
	buf := []byte("/a//b")
	var got []string
	note := func(what string, hit bool) {
		loc := ""
		if hit {
			loc = string(m.AppendLocation(nil, nil))
		}
		uri, ok := m.NginxURI(buf)
		got = append(got, fmt.Sprintf("%s: %q %q %v", what, loc, uri, ok))
	}
	if s.RefusesURI(buf, &m) {
		t.Fatal("refused")
	}
	note("after RefusesURI", false)
	note("the lookup", s.Lookup(nil, buf, nil, &m))
	copy(buf, "/c//d") // the next request, where the last one lay
	note("a lookup of other bytes", s.Lookup(nil, buf, nil, &m))
	m.ForgetURI()
	note("forgotten", false)
	copy(buf, "/a//b")
	s.RefusesURI(buf, &m)
	copy(buf, "/c//d")
	// Not built again: the lookup compares what RefusesURI built.
	note("kept for the lookup", s.Lookup(nil, buf, nil, &m))
	copy(buf, "/a//b")
	s.RefusesURI(buf, &m)
	copy(buf, "/c//d")
	m.ForgetURI()
	note("forgotten before the lookup", s.Lookup(nil, buf, nil, &m))
	want := []string{
		`after RefusesURI: "" "/a/b" true`,
		`the lookup: "/ab" "/a/b" true`,
		`a lookup of other bytes: "/cd" "/c/d" true`,
		`forgotten: "" "" false`,
		`kept for the lookup: "/ab" "/a/b" true`,
		`forgotten before the lookup: "/cd" "/c/d" true`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	run := func() {
		m.ForgetURI()
		s.RefusesURI(buf, &m)
		s.Lookup(nil, buf, nil, &m)
		m.NginxURI(buf)
	}
	if n := testing.AllocsPerRun(100, run); n != 0 {
		t.Errorf("%v allocations a request", n)
	}
}
