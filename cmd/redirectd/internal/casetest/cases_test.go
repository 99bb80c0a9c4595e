package casetest

import (
	"bufio"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestParseCase(t *testing.T) {
	tests := []struct {
		line string
		want testCase
	}{
		{"GET http://old.example/a?x=1 -> 301 https://new.example/b?x=1", testCase{Method: "GET", Host: "old.example", Target: "/a?x=1",
			Want: caseAnswer{Status: 301, Location: "https://new.example/b?x=1"}}},
		{"HEAD /gone -> 410", testCase{Method: "HEAD", Target: "/gone", Want: caseAnswer{Status: 410}}},
		{"GET /keep -> 404", testCase{Method: "GET", Target: "/keep", Want: caseAnswer{Status: 404}}},
		{"GET /app -> forward", testCase{Method: "GET", Target: "/app", Want: caseAnswer{Forward: true}}},
		{"GET\thttps://shop.example:8443   ->\t308  /x#top", testCase{Method: "GET", HTTPS: true, Host: "shop.example:8443", Target: "/",
			Want: caseAnswer{Status: 308, Location: "/x#top"}}},
		{"GET http://a.example?q=1 -> 200", testCase{Method: "GET", Host: "a.example", Target: "/?q=1", Want: caseAnswer{Status: 200}}},
		{"GET /de Accept-Language:de-CH,de;q=0.9 Cookie:lang=fr -> 302 /de/", testCase{Method: "GET", Target: "/de",
			Header: []caseHeader{{"Accept-Language", "de-CH,de;q=0.9"}, {"Cookie", "lang=fr"}}, Want: caseAnswer{Status: 302, Location: "/de/"}}},
		{"M-SEARCH /%7Euser -> 451", testCase{Method: "M-SEARCH", Target: "/%7Euser", Want: caseAnswer{Status: 451}}},
	}
	for _, tt := range tests {
		got, err := parseCase(tt.line)
		if err != nil {
			t.Errorf("%q: %v", tt.line, err)
			continue
		}
		tt.want.Text = tt.line
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("%q (-want +got):\n%s", tt.line, d)
		}
	}
}

func TestParseCaseErrors(t *testing.T) {
	tests := []struct{ line, want string }{
		{"GET /a 301 https://b/", `no " -> "`},
		{"GET -> 301", "a case needs a method and a URL"},
		{"-> 301", "a case needs a method and a URL"},
		{"GET /a ->", `nothing after "->"`},
		{"GET /a -> 301 /b -> 302 /c", `more than one "->"`},
		{"get /a -> 404", `method "get": write it in capitals`},
		{"GET a/b -> 404", `URL "a/b": give a path`},
		{"GET ftp://h/a -> 404", `URL "ftp://h/a": give a path`},
		{"GET http:///a -> 404", "the host is empty"},
		{"GET http://u@h/a -> 404", "user information"},
		{"GET /a#frag -> 404", "no #fragment"},
		{"GET /\xff -> 404", "not visible ASCII"},
		{"GET /a -> 30", `status "30"`},
		{"GET /a -> 600", `status "600"`},
		{"GET /a -> abc", `status "abc"`},
		{"GET /a -> +01", `status "+01"`},
		{"GET /a -> 301 /b extra", `"extra" after the Location`},
		{"GET /a -> forward 301", `"301" after forward`},
		{"GET /a junk -> 404", `"junk" between the URL and "->"`},
		{"GET /a Host:x -> 404", "header Host: a case may not set it"},
		{"GET /a content-length:5 -> 404", "header content-length"},
		{"GET /a X(y):1 -> 404", `header "X(y)"`},
	}
	for _, tt := range tests {
		_, err := parseCase(tt.line)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: error %v, want one containing %q", tt.line, err, tt.want)
		}
	}
}

// TestParseCasesFile checks comments, blank lines and that every error
// names file:line, all of them and not only the first.
func TestParseCasesFile(t *testing.T) {
	text := "# a comment\n\n   # indented comment\nGET /a -> 404\r\nGET /b\nGET /c -> 301 /d\nbad\n"
	cases, err := parseCases("x.cases", []byte(text))
	want := "x.cases:5: no \" -> \" in \"GET /b\"; write METHOD URL -> STATUS [LOCATION], such as GET /old -> 301 https://example.com/new\n" +
		"x.cases:7: no \" -> \" in \"bad\"; write METHOD URL -> STATUS [LOCATION], such as GET /old -> 301 https://example.com/new"
	if err == nil || err.Error() != want {
		t.Fatalf("error:\n%v\nwant:\n%s", err, want)
	}
	var where []string
	for _, c := range cases {
		where = append(where, c.where())
	}
	if d := cmp.Diff([]string{"x.cases:4", "x.cases:6"}, where); d != "" {
		t.Errorf("cases read (-want +got):\n%s", d)
	}
	many := strings.Repeat("nonsense\n", 100)
	_, err = parseCases("y", []byte(many))
	if n := strings.Count(err.Error(), "\n") + 1; n != maxCaseErrors+1 || !strings.Contains(err.Error(), "y: too many errors") {
		t.Errorf("100 bad lines gave %d error lines:\n%v", n, err)
	}
}

// FuzzParseCases checks that any input gives cases or errors, never a
// panic, and that every case read makes a request net/http reads back
// with the same method, target and host.
func FuzzParseCases(f *testing.F) {
	for _, s := range []string{
		"GET http://old.example/a?x=1 -> 301 https://new.example/b?x=1\nHEAD /gone -> 410\n# c\n\nGET /app -> forward",
		"GET /de Accept-Language:de Cookie:a=b -> 302 /de/",
		"GET https://h:1?q -> 200", "X /a -> 999", "GET /a -> -> 1", "GET http://[::1]:80/a -> 404",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		cases, err := parseCases("f", data)
		if err != nil && !strings.HasPrefix(err.Error(), "f:") {
			t.Fatalf("error without file:line: %v", err)
		}
		lines := strings.Count(string(data), "\n") + 1
		for _, c := range cases {
			if c.Line < 1 || c.Line > lines || c.Method == "" || c.Target == "" || c.Target[0] != '/' {
				t.Fatalf("case %+v", c)
			}
			if !c.Want.Forward && (c.Want.Status < 100 || c.Want.Status > 599) {
				t.Fatalf("status %d", c.Want.Status)
			}
			req, err := http.ReadRequest(bufio.NewReader(strings.NewReader(string(appendCaseRequest(nil, &c, "h.invalid")))))
			if err != nil {
				// net/http is stricter than a server must be about a
				// target; the request line itself must still frame.
				if !utf8.ValidString(c.Target) || strings.ContainsAny(c.Target+c.Host, "\"<>\\^`{|}") || strings.Contains(err.Error(), "header") {
					return
				}
				t.Fatalf("request of %q: %v", c.Text, err)
			}
			host := c.Host
			if host == "" {
				host = "h.invalid"
			}
			if req.Method != c.Method || req.RequestURI != c.Target || req.Host != host {
				t.Fatalf("sent %s %s Host %s, read back %s %s %s", c.Method, c.Target, host, req.Method, req.RequestURI, req.Host)
			}
		}
	})
}
