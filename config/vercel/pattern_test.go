package vercel

import (
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRegex checks the regex of each path-to-regexp form against the one
// path-to-regexp 6 builds with Vercel's options (strict, sensitive; its
// lazy [^\/#\?]+? written greedy, the same once anchored), and which
// paths it takes.
func TestRegex(t *testing.T) {
	for _, tc := range []struct {
		source, want string
		match, miss  []string
	}{
		{"/me", `^/me$`, []string{"/me"}, []string{"/me/", "/ME", "/mex"}},
		{"/blog/:slug", `^/blog(?:/(?P<slug>[^/#?]+))$`, []string{"/blog/a"}, []string{"/blog", "/blog/", "/blog/a/b"}},
		{"/docs/:path*", `^/docs(?:/(?P<path>(?:[^/#?]+)(?:/(?:[^/#?]+))*))?$`, []string{"/docs", "/docs/a", "/docs/a/b"}, []string{"/docs/", "/docsx"}},
		{"/team/:name+", `^/team(?:/(?P<name>(?:[^/#?]+)(?:/(?:[^/#?]+))*))$`, []string{"/team/a", "/team/a/b"}, []string{"/team"}},
		{"/c/:v?", `^/c(?:/(?P<v>[^/#?]+))?$`, []string{"/c", "/c/1"}, []string{"/c/"}},
		{"/old/(.*)", `^/old(?:/(.*))$`, []string{"/old/", "/old/a/b"}, []string{"/old"}},
		{"/id/:id(\\d+)", `^/id(?:/(?P<id>\d+))$`, []string{"/id/42"}, []string{"/id/x"}},
		{"/f/:name.pdf", `^/f(?:/(?P<name>[^/#?]+))\.pdf$`, []string{"/f/a.pdf"}, []string{"/f/a.txt"}},
		{"/file.:ext", `^/file(?:\.(?P<ext>[^/#?]+))$`, []string{"/file.txt"}, []string{"/file"}},
		{"/x-:id", `^/x-(?P<id>[^/#?]+)$`, []string{"/x-1"}, []string{"/x-"}},
		{"/a{/:b}?", `^/a(?:/(?P<b>[^/#?]+))?$`, []string{"/a", "/a/1"}, []string{"/a/"}},
		{"/a{-:b}?", `^/a(?:-(?P<b>[^/#?]+))?$`, []string{"/a", "/a-1"}, nil},
		{`/a\(b\)`, `^/a\(b\)$`, []string{"/a(b)"}, nil},
	} {
		t.Run(tc.source, func(t *testing.T) {
			tokens, err := parse(tc.source)
			if err != nil {
				t.Fatal(err)
			}
			got := regex(tokens)
			if got != tc.want {
				t.Fatalf("regex %s, want %s", got, tc.want)
			}
			re := regexp.MustCompile(got)
			for _, p := range tc.match {
				if !re.MatchString(p) {
					t.Errorf("%s does not match %s", got, p)
				}
			}
			for _, p := range tc.miss {
				if re.MatchString(p) {
					t.Errorf("%s matches %s", got, p)
				}
			}
			for _, s := range samples(tokens, re) {
				if !re.MatchString(s) {
					t.Errorf("sample %s does not match", s)
				}
			}
		})
	}
}

// TestParseErrors checks the sources path-to-regexp refuses, which
// Vercel refuses at deploy ("invalid source pattern").
func TestParseErrors(t *testing.T) {
	got := map[string]string{}
	for _, s := range []string{"/conf/attendee/*", "/a/:", "/a/(b", "/a/(?:x)", "/a/((x))", "/a{/b", "/a\\"} {
		_, err := parse(s)
		if err == nil {
			got[s] = "accepted"
			continue
		}
		got[s] = "refused"
	}
	want := map[string]string{"/conf/attendee/*": "refused", "/a/:": "refused", "/a/(b": "refused", "/a/(?:x)": "refused",
		"/a/((x))": "refused", "/a{/b": "refused", "/a\\": "refused"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// TestDestination checks how a destination refers to the source's
// parameters.
func TestDestination(t *testing.T) {
	g := map[string]int{"slug": 1, "0": 2, "path": 3}
	for in, want := range map[string]string{
		"/news/:slug":                  "/news/${slug}",
		"/x/:path*":                    "/x/${path}",
		"/x/:path*/more":               "/x/${path}/more",
		"/new/:0":                      "/new/${2}",
		"/new/$1/$2":                   "/new/${1}/${2}",
		"/cost/$5.00":                  "/cost/${5}.00",
		"https://a.example:8080/:slug": "https://a.example:8080/${slug}",
		"/price?usd=$":                 "/price?usd=$$",
		"/q?x=:slug&y=1":               "/q?x=${slug}&y=1",
		"/u/:unknown":                  "/u/:unknown",
	} {
		if got := destination(in, g); got != want {
			t.Errorf("destination(%q) = %q, want %q", in, got, want)
		}
	}
}
