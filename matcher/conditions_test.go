package matcher_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/matcher"
)

// fakeReq is a request's fields and country, as the engine would give them.
type fakeReq struct {
	fields  [][2]string
	country string
	https   bool
	vals    [][]byte // fields' values as bytes, made once so Header does not allocate
}

func (f *fakeReq) Header(name []byte) []byte {
	if f.vals == nil {
		for _, h := range f.fields {
			f.vals = append(f.vals, []byte(h[1]))
		}
	}
	for i, h := range f.fields {
		if strings.EqualFold(h[0], string(name)) {
			return f.vals[i]
		}
	}
	return nil
}

func (f *fakeReq) Country() string { return f.country }

func (f *fakeReq) HTTPS() bool { return f.https }

// compileLines compiles a copy of rules, each in file on the line of its
// place in the list.
func compileLines(t *testing.T, file string, rules []matcher.Rule) *matcher.Set {
	t.Helper()
	rules = append([]matcher.Rule(nil), rules...)
	for i := range rules {
		rules[i].File, rules[i].Line = file, i+1
	}
	s, err := matcher.Compile(rules)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestWhenConditions(t *testing.T) {
	rules := []matcher.Rule{
		// The unconditional rule comes first in the file: conditional ones
		// are still tried before it.
		{From: "/home", To: "/en/", Status: 302},
		{From: "/home", To: "/de/", Status: 302, When: &matcher.When{Language: []string{"de", "de-*"}}},
		{From: "/home", To: "/fr-cookie/", Status: 302, When: &matcher.When{Cookie: []matcher.KeyValue{{Name: "lang", Value: "fr"}}}},
		{From: "/home", To: "/mobile/", Status: 302, When: &matcher.When{Header: []matcher.KeyValue{{Name: "X-Device", Value: "mobile"}}}},
		{From: "/home", To: "/dach/", Status: 302, When: &matcher.When{Country: []string{"AT", "CH"}}},
		{Kind: matcher.Prefix, From: "/shop/", To: "/en/shop/", Status: 302},
		{Kind: matcher.Prefix, From: "/shop/", To: "/de/shop/", Status: 302, When: &matcher.When{Language: []string{"de"}, Country: []string{"DE"}}},
		{Kind: matcher.Regex, From: `^/r/(.*)$`, To: "/any/$1", Status: 302},
		{Kind: matcher.Regex, From: `^/r/(.*)$`, To: "/de/$1", Status: 302, When: &matcher.When{Language: []string{"de"}}},
		{Kind: matcher.Regex, From: `^/s/(.*)$`, To: "/de/$1", Status: 302, When: &matcher.When{Language: []string{"de"}}},
		{Kind: matcher.Regex, From: `^/s/(.*)$`, To: "/any/$1", Status: 302},
	}
	s := compileLines(t, "t", rules)
	type out struct{ Loc, Vary string }
	// The rule without conditions answers after the others failed, so its
	// answer varies with every field they read.
	const allVary = "Vary: Accept-Language, Cookie, X-Device\r\n"
	tests := []struct {
		name string
		path string
		req  *fakeReq
		want out
	}{
		{"no request", "/home", nil, out{"/en/", allVary}},
		{"no fields", "/home", &fakeReq{}, out{"/en/", allVary}},
		{"german", "/home", &fakeReq{fields: [][2]string{{"Accept-Language", "de"}}}, out{"/de/", "Vary: Accept-Language\r\n"}},
		{"german region", "/home", &fakeReq{fields: [][2]string{{"accept-language", "de-AT,en;q=0.5"}}}, out{"/de/", "Vary: Accept-Language\r\n"}},
		{"german second", "/home", &fakeReq{fields: [][2]string{{"Accept-Language", "fr, de;q=0.9"}}}, out{"/en/", allVary}},
		{"german higher q", "/home", &fakeReq{fields: [][2]string{{"Accept-Language", "fr;q=0.3, de;q=0.9"}}}, out{"/de/", "Vary: Accept-Language\r\n"}},
		{"deutsch is not de", "/home", &fakeReq{fields: [][2]string{{"Accept-Language", "dex"}}}, out{"/en/", allVary}},
		{"q zero", "/home", &fakeReq{fields: [][2]string{{"Accept-Language", "de;q=0"}}}, out{"/en/", allVary}},
		{"cookie", "/home", &fakeReq{fields: [][2]string{{"Cookie", "a=1; lang=fr"}}}, out{"/fr-cookie/", "Vary: Accept-Language, Cookie\r\n"}},
		{"cookie other value", "/home", &fakeReq{fields: [][2]string{{"Cookie", "lang=de"}}}, out{"/en/", allVary}},
		{"header", "/home", &fakeReq{fields: [][2]string{{"x-device", "mobile"}}}, out{"/mobile/", "Vary: Accept-Language, Cookie, X-Device\r\n"}},
		{"header case of value", "/home", &fakeReq{fields: [][2]string{{"X-Device", "Mobile"}}}, out{"/en/", allVary}},
		{"country", "/home", &fakeReq{country: "CH"}, out{"/dach/", "Vary: Accept-Language, Cookie, X-Device\r\n"}},
		{"country other", "/home", &fakeReq{country: "DE"}, out{"/en/", allVary}},
		{"file order among conditional", "/home", &fakeReq{country: "AT", fields: [][2]string{{"Accept-Language", "de"}}}, out{"/de/", "Vary: Accept-Language\r\n"}},
		{"prefix all hold", "/shop/x", &fakeReq{country: "DE", fields: [][2]string{{"Accept-Language", "de-DE"}}}, out{"/de/shop/x", "Vary: Accept-Language\r\n"}},
		{"prefix one fails", "/shop/x", &fakeReq{country: "AT", fields: [][2]string{{"Accept-Language", "de-DE"}}}, out{"/en/shop/x", "Vary: Accept-Language\r\n"}},
		// Regexes are tried in file order, conditions or not, as with query
		// conditions: the earlier unconditional regex wins.
		{"regex file order", "/r/x", &fakeReq{fields: [][2]string{{"Accept-Language", "de"}}}, out{"/any/x", ""}},
		{"regex", "/s/x", &fakeReq{fields: [][2]string{{"Accept-Language", "de"}}}, out{"/de/x", "Vary: Accept-Language\r\n"}},
		{"regex without", "/s/x", &fakeReq{}, out{"/any/x", "Vary: Accept-Language\r\n"}},
	}
	var m matcher.Match
	for _, tt := range tests {
		m.Req = nil
		if tt.req != nil {
			m.Req = tt.req
		}
		if !s.Lookup([]byte("h"), []byte(tt.path), nil, &m) {
			t.Errorf("%s: no match", tt.name)
			continue
		}
		got := out{string(m.AppendLocation(nil, nil)), m.Vary()}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: (-want +got)\n%s", tt.name, diff)
		}
	}
}

// TestWhenPresenceAndUnless covers a header or cookie asked for with any
// value ("*"), and unless: the rule answers only when none of the
// conditions in it holds, query parameters included (Vercel's has
// without a value, and missing).
func TestWhenPresenceAndUnless(t *testing.T) {
	any := matcher.AnyValue
	rules := []matcher.Rule{
		{From: "/p", To: "/plain/", Status: 302},
		{From: "/p", To: "/preview/", Status: 302, When: &matcher.When{Cookie: []matcher.KeyValue{{Name: "preview", Value: any}}}},
		{From: "/u", To: "/fallback/", Status: 302},
		{From: "/u", To: "/new-visitor/", Status: 302, When: &matcher.When{Unless: &matcher.When{
			Cookie: []matcher.KeyValue{{Name: "seen", Value: any}},
			Header: []matcher.KeyValue{{Name: "X-Beta", Value: "1"}},
			Query:  []matcher.QueryCond{{Name: "stay", Value: any}},
		}}},
		{Kind: matcher.Prefix, From: "/shop/", To: "/intl/shop/", Status: 302, When: &matcher.When{
			Header: []matcher.KeyValue{{Name: "X-Device", Value: any}},
			Unless: &matcher.When{Country: []string{"DE"}, Language: []string{"de"}}}},
		{Kind: matcher.Prefix, From: "/shop/", To: "/shop-de/", Status: 302},
	}
	s := compileLines(t, "t", rules)
	type out struct{ Loc, Vary string }
	tests := []struct {
		name, path, query string
		req               *fakeReq
		want              out
	}{
		{"cookie present", "/p", "", &fakeReq{fields: [][2]string{{"Cookie", "a=1; preview=yes"}}}, out{"/preview/", "Vary: Cookie\r\n"}},
		{"cookie present, empty value", "/p", "", &fakeReq{fields: [][2]string{{"Cookie", "preview="}}}, out{"/preview/", "Vary: Cookie\r\n"}},
		{"cookie absent", "/p", "", &fakeReq{fields: [][2]string{{"Cookie", "previews=1"}}}, out{"/plain/", "Vary: Cookie\r\n"}},
		{"none of unless holds", "/u", "", &fakeReq{fields: [][2]string{{"X-Beta", "2"}, {"Cookie", "other=1"}}}, out{"/new-visitor/", "Vary: X-Beta, Cookie\r\n"}},
		{"unless cookie holds", "/u", "", &fakeReq{fields: [][2]string{{"Cookie", "seen=1"}}}, out{"/fallback/", "Vary: X-Beta, Cookie\r\n"}},
		{"unless header holds", "/u", "", &fakeReq{fields: [][2]string{{"x-beta", "1"}}}, out{"/fallback/", "Vary: X-Beta, Cookie\r\n"}},
		{"unless query holds", "/u", "a=1&stay", &fakeReq{}, out{"/fallback/?a=1&stay", "Vary: X-Beta, Cookie\r\n"}},
		{"unless query other", "/u", "stays=1", &fakeReq{}, out{"/new-visitor/?stays=1", "Vary: X-Beta, Cookie\r\n"}},
		{"header present, unless fails", "/shop/x", "", &fakeReq{country: "AT", fields: [][2]string{{"X-Device", "tablet"}}}, out{"/intl/shop/x", "Vary: X-Device, Accept-Language\r\n"}},
		{"unless country holds", "/shop/x", "", &fakeReq{country: "DE", fields: [][2]string{{"X-Device", "tablet"}}}, out{"/shop-de/x", "Vary: X-Device, Accept-Language\r\n"}},
		{"unless language holds", "/shop/x", "", &fakeReq{fields: [][2]string{{"X-Device", "t"}, {"Accept-Language", "de-CH"}}}, out{"/shop-de/x", "Vary: X-Device, Accept-Language\r\n"}},
		{"header absent", "/shop/x", "", &fakeReq{}, out{"/shop-de/x", "Vary: X-Device, Accept-Language\r\n"}},
	}
	var m matcher.Match
	for _, tt := range tests {
		m.Req = tt.req
		var q []byte
		if tt.query != "" {
			q = []byte(tt.query)
		}
		if !s.Lookup([]byte("h"), []byte(tt.path), q, &m) {
			t.Errorf("%s: no match", tt.name)
			continue
		}
		got := out{string(m.AppendLocation(nil, q)), m.Vary()}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: (-want +got)\n%s", tt.name, diff)
		}
	}
}

func TestWhenErrors(t *testing.T) {
	tests := []struct {
		when *matcher.When
		want string
	}{
		{&matcher.When{Language: []string{"de_DE"}}, `when.language: "de_DE" is not a language range`},
		{&matcher.When{Language: []string{"toolongsubtag"}}, `is not a language range`},
		{&matcher.When{Country: []string{"de"}}, `when.country: "de" is not an ISO 3166 alpha-2 country code`},
		{&matcher.When{Country: []string{"DEU"}}, `"DEU" is not an ISO 3166`},
		{&matcher.When{Header: []matcher.KeyValue{{Name: "X Bad", Value: "1"}}}, `when.header: "X Bad" is not a header field name`},
		{&matcher.When{Cookie: []matcher.KeyValue{{Name: "", Value: "1"}}}, `when.cookie: "" is not a cookie name`},
		{&matcher.When{Query: []matcher.QueryCond{{Name: "a", Value: "1"}}}, `when.query: a query condition goes in the rule's query`},
		{&matcher.When{Unless: &matcher.When{Unless: &matcher.When{Country: []string{"DE"}}}}, `when.unless.unless: an unless holds no unless`},
		{&matcher.When{Unless: &matcher.When{Header: []matcher.KeyValue{{Name: "X Bad", Value: "1"}}}}, `when.unless.header: "X Bad" is not a header field name`},
		{&matcher.When{Unless: &matcher.When{Query: []matcher.QueryCond{{Name: "", Value: "1"}}}}, `when.unless.query: a parameter needs a name`},
		{&matcher.When{Scheme: "HTTP"}, `when.scheme: "HTTP" is not a scheme`},
	}
	for _, tt := range tests {
		_, err := matcher.Compile([]matcher.Rule{{From: "/a", To: "/b", Status: 301, When: tt.when, File: "f", Line: 3}})
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "f:3") {
			t.Errorf("%+v: error %v, want one holding f:3 and %q", tt.when, err, tt.want)
		}
	}
	// The same conditions twice on one path are a duplicate.
	w := &matcher.When{Language: []string{"de"}}
	_, err := matcher.Compile([]matcher.Rule{
		{From: "/a", To: "/b", Status: 301, When: w, File: "f", Line: 1},
		{From: "/a", To: "/c", Status: 301, When: &matcher.When{Language: []string{"DE"}}, File: "f", Line: 2},
	})
	if err == nil || !strings.Contains(err.Error(), "duplicate") {
		t.Errorf("same conditions twice: %v, want a duplicate error", err)
	}
}

func TestPreferredLanguage(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"de", "de"},
		{"en-US,en;q=0.9,de;q=0.8", "en-US"},
		{"fr;q=0.5, de-CH ; q=0.7", "de-CH"},
		{"de;q=0.5, fr;q=0.5", "de"},
		{"*", ""},
		{"*;q=0.1, de;q=0.05", ""},
		{"de;q=0", ""},
		{"de;q=2, fr;q=0.1", "fr"},
		{"de;q=0.1234, fr;q=0.1", "fr"},
		{"d e, fr", "fr"},
		{"x-klingon, fr;q=0.9", "x-klingon"},
		{",,,de", "de"},
		{"de;Q=1.000", "de"},
	}
	for _, tt := range tests {
		tag, ok := matcher.PreferredLanguage([]byte(tt.in))
		if got := string(tag); got != tt.want || ok != (tt.want != "") {
			t.Errorf("PreferredLanguage(%q) = %q, %v; want %q", tt.in, got, ok, tt.want)
		}
	}
}

func TestCookieValue(t *testing.T) {
	tests := []struct{ in, name, want string }{
		{"lang=fr", "lang", "fr"},
		{"a=1;  lang=\"fr\" ; b=2", "lang", "fr"},
		{"xlang=fr", "lang", "<none>"},
		{"lang", "lang", "<none>"},
		{"lang=", "lang", ""},
	}
	for _, tt := range tests {
		v, ok := matcher.CookieValue([]byte(tt.in), []byte(tt.name))
		got := string(v)
		if !ok {
			got = "<none>"
		}
		if got != tt.want {
			t.Errorf("CookieValue(%q, %q) = %q, want %q", tt.in, tt.name, got, tt.want)
		}
	}
}

// FuzzPreferredLanguage checks the in-place parser against its contract:
// no panic, and a tag it returns is one of the input's elements, made of
// letters, digits and '-', with a weight above zero.
func FuzzPreferredLanguage(f *testing.F) {
	for _, s := range []string{"de", "en-US,en;q=0.9", "*;q=0.1", "de;q=0, fr;q=1.0", ";;,,q=", "a;q=0.001"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tag, ok := matcher.PreferredLanguage([]byte(s))
		if !ok {
			if tag != nil {
				t.Fatalf("not ok but tag %q", tag)
			}
			return
		}
		if len(tag) == 0 || !strings.Contains(s, string(tag)) {
			t.Fatalf("tag %q is not in %q", tag, s)
		}
		if bytes.ContainsFunc(tag, func(r rune) bool {
			return !(r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
		}) {
			t.Fatalf("tag %q holds a character no tag has", tag)
		}
	})
}

func TestWhenLookupAllocs(t *testing.T) {
	s, err := matcher.Compile([]matcher.Rule{
		{From: "/home", To: "/en/", Status: 302},
		// Tried first and fails: the lang cookie is there.
		{From: "/home", To: "/x/", Status: 302, When: &matcher.When{Unless: &matcher.When{Cookie: []matcher.KeyValue{{Name: "lang", Value: matcher.AnyValue}}, Query: []matcher.QueryCond{{Name: "x", Value: matcher.AnyValue}}}}},
		{From: "/home", To: "/de/", Status: 302, When: &matcher.When{Language: []string{"de"}, Cookie: []matcher.KeyValue{{Name: "lang", Value: "de"}}, Country: []string{"DE"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	req := &fakeReq{country: "DE", fields: [][2]string{{"Accept-Language", "de-DE,en;q=0.5"}, {"Cookie", "lang=de"}}}
	m := matcher.Match{Req: req}
	host, path := []byte("h"), []byte("/home")
	var dst []byte
	allocs := testing.AllocsPerRun(200, func() {
		if !s.Lookup(host, path, nil, &m) {
			t.Fatal("no match")
		}
		dst = m.AppendLocation(dst[:0], nil)
		_ = m.Vary()
	})
	if allocs != 0 || string(dst) != "/de/" {
		t.Errorf("%v allocations, Location %q; want 0 and /de/", allocs, dst)
	}
}

// BenchmarkLookupConditions measures a lookup decided by conditions: the
// unconditional rule reached after a language and a cookie condition
// failed, and a conditional rule that holds.
func BenchmarkLookupConditions(b *testing.B) {
	s, err := matcher.Compile([]matcher.Rule{
		{From: "/home", To: "/en/", Status: 302},
		{From: "/home", To: "/de/", Status: 302, When: &matcher.When{Language: []string{"de"}}},
		{From: "/home", To: "/fr/", Status: 302, When: &matcher.When{Cookie: []matcher.KeyValue{{Name: "lang", Value: "fr"}}}},
	})
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		req  *fakeReq
	}{
		{"fallback", &fakeReq{fields: [][2]string{{"Accept-Language", "en-US,en;q=0.9,de;q=0.8"}, {"Cookie", "session=abc; theme=dark"}}}},
		{"language", &fakeReq{fields: [][2]string{{"Accept-Language", "de-DE,de;q=0.9,en;q=0.8"}}}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			m := matcher.Match{Req: bc.req}
			host, path := []byte("h"), []byte("/home")
			s.Lookup(host, path, nil, &m) // fakeReq makes its byte values once
			b.ReportAllocs()
			for b.Loop() {
				s.Lookup(host, path, nil, &m)
			}
		})
	}
}

// TestWhenScheme checks when.scheme: the rule for plain requests, the one
// for requests over TLS and an unless, on one path and in the regex tier,
// where a failed scheme condition passes on to the next regex; no Vary.
func TestWhenScheme(t *testing.T) {
	s, err := matcher.Compile([]matcher.Rule{
		{From: "/a", To: "/any/", Status: 301},
		{From: "/a", To: "/plain/", Status: 301, When: &matcher.When{Scheme: "http"}},
		{From: "/a", To: "/tls/", Status: 301, When: &matcher.When{Scheme: "https"}},
		{Kind: matcher.Regex, From: "^/r", To: "https://h${path}", Status: 301, When: &matcher.When{Scheme: "http"}},
		{Kind: matcher.Regex, From: "^/r", To: "/r-tls", Status: 301, When: &matcher.When{Unless: &matcher.When{Scheme: "http"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		path  string
		https bool
		want  string
	}{
		{"/a", false, "/plain/"},
		{"/a", true, "/tls/"},
		{"/r/x", false, "https://h/r/x"},
		{"/r/x", true, "/r-tls"},
	} {
		m := matcher.Match{Req: &fakeReq{https: tt.https}}
		if !s.Lookup([]byte("h"), []byte(tt.path), nil, &m) {
			t.Errorf("%s https=%v: no match", tt.path, tt.https)
			continue
		}
		if got := string(m.AppendLocation(nil, nil)); got != tt.want || m.Vary() != "" {
			t.Errorf("%s https=%v: %q Vary %q, want %q and no Vary", tt.path, tt.https, got, m.Vary(), tt.want)
		}
	}
}
