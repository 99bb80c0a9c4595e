package config_test

import (
	"net/textproto"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/internal/testutil"
	"github.com/redirectd/redirectd/matcher"
)

// readmeBlock returns the first ```toml block of the README section that
// starts with heading.
func readmeBlock(t *testing.T, heading string) string {
	t.Helper()
	readme, err := os.ReadFile("../matcher/README.md")
	if err != nil {
		t.Fatal(err)
	}
	return testutil.FencedBlock(t, string(readme), heading+"\n", "toml")
}

// lookupAnswer is what the README examples' tests compare of a lookup.
type lookupAnswer struct {
	Status   int
	Location string
	Shadowed bool
}

func lookupAt(set *matcher.Set, path string, now time.Time, req matcher.Request) lookupAnswer {
	m := &matcher.Match{Now: now.UnixNano(), Req: req}
	if !set.Lookup([]byte("example.com"), []byte(path), nil, m) {
		return lookupAnswer{Status: 404, Shadowed: m.Shadowed()}
	}
	return lookupAnswer{Status: m.Status(), Location: string(m.AppendLocation(nil, nil)), Shadowed: m.Shadowed()}
}

// fakeReq is a request as conditions read it: its header fields and the
// country its address is in.
type fakeReq struct {
	fields  map[string]string
	country string
	https   bool
}

func (r fakeReq) Header(name []byte) []byte {
	v, ok := r.fields[textproto.CanonicalMIMEHeaderKey(string(name))]
	if !ok {
		return nil
	}
	return []byte(v)
}

func (r fakeReq) Country() string { return r.country }

func (r fakeReq) HTTPS() bool { return r.https }

// TestWindowsReadmeExample loads the README's example of windows and
// shadow rules and asks it, as of three instants, what the example says:
// the winter sale during its window, the usual page before and after, and
// the shadow map's pages answered by nothing while noted as shadowed.
func TestWindowsReadmeExample(t *testing.T) {
	block := readmeBlock(t, "## Rules that know when: windows and shadow rules")
	cfg, err := config.Load(writeFiles(t, map[string]string{"redirectd.toml": block, "new-site.map": "/new-page /landing;\n"}))
	if err != nil {
		t.Fatal(err)
	}
	at := func(s string) time.Time {
		tm, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	got := []lookupAnswer{
		lookupAt(cfg.Set, "/sale", at("2026-11-30T23:59:59Z"), nil),
		lookupAt(cfg.Set, "/sale", at("2026-12-01T00:00:00Z"), nil),
		lookupAt(cfg.Set, "/sale", at("2027-01-07T00:00:00Z"), nil),
		lookupAt(cfg.Set, "/new-page", at("2026-12-15T00:00:00Z"), nil),
	}
	want := []lookupAnswer{
		{Status: 301, Location: "/sale-over"},
		{Status: 302, Location: "/winter-sale"},
		{Status: 301, Location: "/sale-over"},
		{Status: 404, Shadowed: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("README windows example (-want +got):\n%s", diff)
	}
}

// TestUnlessReadmeExample loads the README's example of unless and asks
// it as the visitors it describes.
func TestUnlessReadmeExample(t *testing.T) {
	block := readmeBlock(t, "- **Present, or not there.** A header or cookie value `\"*\"` asks only")
	block = strings.ReplaceAll(block, "\n  ", "\n") // indented in the list item
	cfg, err := config.Load(writeFiles(t, map[string]string{"redirectd.toml": block}))
	if err != nil {
		t.Fatal(err)
	}
	ask := func(query string, req fakeReq) lookupAnswer {
		m := &matcher.Match{Req: req}
		if !cfg.Set.Lookup([]byte("example.com"), []byte("/welcome"), []byte(query), m) {
			return lookupAnswer{Status: 404}
		}
		return lookupAnswer{Status: m.Status(), Location: string(m.AppendLocation(nil, nil))}
	}
	newVisitor, back := lookupAnswer{Status: 302, Location: "/welcome/new-visitor"}, lookupAnswer{Status: 302, Location: "/welcome/back"}
	for _, tc := range []struct {
		name  string
		query string
		req   fakeReq
		want  lookupAnswer
	}{
		{"none of them", "", fakeReq{fields: map[string]string{"Cookie": "theme=dark", "X-Beta": "2"}}, newVisitor},
		{"the seen cookie", "", fakeReq{fields: map[string]string{"Cookie": "theme=dark; seen=1"}}, back},
		{"X-Beta: 1", "", fakeReq{fields: map[string]string{"X-Beta": "1"}}, back},
		{"?stay", "stay", fakeReq{}, back},
	} {
		if diff := cmp.Diff(tc.want, ask(tc.query, tc.req)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}
