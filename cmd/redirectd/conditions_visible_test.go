package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// conditionsConfig has an https-only rule, a rule for a header and a
// language, and a plain one: the rules whose conditions explain, test and
// check show.
const conditionsConfig = `[admin]
listen = "off"

[access_log]
enabled = false

[[rule]]
from = "/secure"
to = "https://new.example/secure"
when.scheme = "https"

[[rule]]
from = "/beta"
to = "https://new.example/beta"
when.header = { X-Beta = "1" }
when.language = "de"

[[rule]]
from = "/plain"
to = "https://new.example/plain"
`

// writeConditionsConfig writes conditionsConfig to a temporary folder.
func writeConditionsConfig(t *testing.T) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "redirectd.toml")
	if err := os.WriteFile(file, []byte(conditionsConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// TestExplainShowsConditions: explain names a rule with its conditions,
// and for a URL that a rule matches but for its conditions, says which
// rule and which conditions the URL does not meet, where it said only
// "no rule matches".
func TestExplainShowsConditions(t *testing.T) {
	file := writeConditionsConfig(t)
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"https://old.example/secure"}, []string{`rule:     ` + file + `:7 (exact "/secure", scheme = https)`, "location: https://new.example/secure"}},
		{[]string{"http://old.example/secure"}, []string{`no rule matches host "old.example" path "/secure"`,
			`near:     ` + file + `:7 (exact "/secure", scheme = https) matches this path but requires scheme = https; this URL is http`}},
		{[]string{"/beta", "-H", "Accept-Language: fr"}, []string{`no rule matches`,
			`near:     ` + file + `:12 (exact "/beta", language = de, header X-Beta = "1") matches this path but requires language = de; the request prefers "fr", and requires header X-Beta = "1"; the request has none`}},
		{[]string{"/beta", "-H", "Accept-Language: de", "-H", "X-Beta: 1"}, []string{`rule:     ` + file + `:12 (exact "/beta", language = de, header X-Beta = "1")`}},
	} {
		code, out, stderr := runCmd(append([]string{"explain", "-config", file}, tc.args...)...)
		for _, w := range tc.want {
			if code != 0 || !strings.Contains(out, w) {
				t.Errorf("explain %v: exit %d, want %q in:\n%s%s", tc.args, code, w, out, stderr)
			}
		}
	}
	// A URL no rule's path matches gets no near line.
	if _, out, _ := runCmd("explain", "-config", file, "http://old.example/none"); strings.Contains(out, "near:") {
		t.Errorf("explain of a path no rule has:\n%s", out)
	}
}

// TestTestShowsConditions: a failing case of redirectd test, answered
// by the real server, names the rule with its conditions and the rule
// whose path it matches but whose conditions it does not meet.
func TestTestShowsConditions(t *testing.T) {
	file := writeConditionsConfig(t)
	cases := filepath.Join(filepath.Dir(file), "c.cases")
	os.WriteFile(cases, []byte("GET http://old.example/secure -> 301 https://new.example/secure\n"+
		"GET http://old.example/beta Accept-Language:de -> 301 https://new.example/beta\n"+
		"GET http://old.example/beta Accept-Language:de X-Beta:1 -> 301 https://new.example/else\n"+
		"GET https://old.example/secure -> 301 https://new.example/secure\n"), 0o644)
	code, out, stderr := runCmd("test", "-config", file, cases)
	for _, w := range []string{
		"FAIL " + cases + ":1: GET http://old.example/secure",
		`near: ` + file + `:7 (exact "/secure", scheme = https) matches this path but requires scheme = https; this URL is http`,
		"FAIL " + cases + ":2: ",
		`near: ` + file + `:12 (exact "/beta", language = de, header X-Beta = "1") matches this path but requires header X-Beta = "1"; the request has none`,
		`rule: ` + file + `:12 (exact "/beta", language = de, header X-Beta = "1")` + "\n",
		// The server takes X-Forwarded-Proto as https only under
		// https_redirect, and the report says so.
		"note: an https:// case is sent marked X-Forwarded-Proto: https, which the server believes only with [server] https_redirect on",
		"FAIL: 4 of 4 cases failed",
	} {
		if code != 1 || !strings.Contains(out, w) {
			t.Errorf("test: exit %d, want %q in:\n%s%s", code, w, out, stderr)
		}
	}
}

// TestBaselineSchemeRules: check -baseline compares URLs over https too
// when rules answer by the scheme, so three changed targets of
// when.scheme = "https" rules (as an nginx import writes a server that
// listens on 443 only) are three URLs answered differently; before, only
// http URLs were sampled and none differed. The rules show their
// conditions.
func TestBaselineSchemeRules(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, targets [4]string) string {
		var b strings.Builder
		b.WriteString("[admin]\nlisten = \"off\"\n")
		for i, to := range targets {
			host := "host = \"shop.example\"\n"
			if i == 3 {
				host = ""
			}
			fmt.Fprintf(&b, "\n[[rule]]\n%sfrom = \"/p%d\"\nto = %q\nwhen.scheme = \"https\"\n", host, i, to)
		}
		b.WriteString("\n[[rule]]\nfrom = \"/plain\"\nto = \"/x\"\n")
		file := filepath.Join(dir, name)
		if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return file
	}
	old := write("old.toml", [4]string{"/a", "/b", "/c", "/d"})
	cur := write("new.toml", [4]string{"/a2", "/b", "/c2", "/d2"})
	code, out, stderr := runCmd("check", "-baseline", old, "-config", cur)
	for _, w := range []string{
		"rules changed (3):",
		`exact /p0 (host shop.example, scheme = https) -> 301 /a2`,
		"  https://shop.example/p0\n      old: 301 /a  (" + old + ":4)\n      new: 301 /a2  (" + cur + ":4)\n",
		"  https://shop.example/p2\n",
		"  /p3 (https)\n      old: 301 /d",
		"3 of 10 sampled URLs answered differently",
	} {
		if code != 1 || !strings.Contains(out, w) {
			t.Errorf("check -baseline: exit %d, want %q in:\n%s%s", code, w, out, stderr)
		}
	}
	if strings.Contains(out, "http://shop.example/p1\n") {
		t.Errorf("an unchanged URL is listed:\n%s", out)
	}
}
