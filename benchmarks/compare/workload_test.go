package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/benchmarks/rules"
)

func TestExpect(t *testing.T) {
	s := rules.Reference
	tests := []struct {
		path string
		want Want
	}{
		{"/exact/9999", Want{Status: 301, Location: "https://example.com/new/9999"}},
		{"/exact/10000", Want{Status: 404}},
		{"/exact/01", Want{Status: 404}},
		{"/prefix/999/a/b", Want{Status: 302, Location: "https://example.com/p/999/a/b"}},
		{"/prefix/0/", Want{Status: 302, Location: "https://example.com/p/0/"}},
		{"/prefix/0", Want{Status: 404}},
		{"/regex/499/123/abc", Want{Status: 308, Location: "https://example.com/r/499/123/abc"}},
		{"/regex/1/12/x/y", Want{Status: 308, Location: "https://example.com/r/1/12/x/y"}},
		{"/regex/1/a/b", Want{Status: 404}},
		{"/regex/500/1/b", Want{Status: 404}},
		{rules.Miss, Want{Status: 404}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, expect(s, tt.path)); diff != "" {
			t.Errorf("expect(%q) (-want +got):\n%s", tt.path, diff)
		}
	}
}

// The mixed list has the shares of each kind, spread over the
// rules, and is the same on every call.
func TestMixedPaths(t *testing.T) {
	s := rules.Reference
	paths := mixedPaths(s, 10000)
	if diff := cmp.Diff(paths, mixedPaths(s, 10000)); diff != "" {
		t.Fatalf("two calls differ:\n%s", diff)
	}
	count := map[int]int{}
	distinct := map[string]bool{}
	for _, p := range paths {
		count[expect(s, p).Status]++
		if strings.HasPrefix(p, "/exact/") {
			distinct[p] = true
		}
	}
	if diff := cmp.Diff(map[int]int{301: 7000, 302: 1500, 308: 500, 404: 1000}, count); diff != "" {
		t.Errorf("answers by status (-want +got):\n%s", diff)
	}
	if len(distinct) < 4000 {
		t.Errorf("only %d distinct exact paths of 7000: not spread over the rules", len(distinct))
	}
}

func TestScenarioRequests(t *testing.T) {
	for _, sc := range Scenarios(rules.Reference) {
		for _, r := range sc.Reqs {
			if !strings.HasPrefix(r.Raw, "GET "+r.Path+" HTTP/1.1\r\n") || !strings.HasSuffix(r.Raw, "\r\n\r\n") {
				t.Fatalf("%s: request %q is not a GET of %s", sc.Name, r.Raw, r.Path)
			}
			if sc.Churn != strings.Contains(r.Raw, "Connection: close\r\n") {
				t.Fatalf("%s: Connection: close in %q does not match churn=%v", sc.Name, r.Raw, sc.Churn)
			}
		}
		if sc.Name == "mixed" && len(sc.Reqs[0].Raw) < 600 {
			t.Errorf("mixed requests have %d bytes, want about 650 of browser headers", len(sc.Reqs[0].Raw))
		}
	}
}

func TestSplitRequests(t *testing.T) {
	sc := Scenarios(rules.Spec{Exact: 10, Prefix: 2, Regex: 2})[4] // mixed
	var all strings.Builder
	for _, r := range sc.Reqs {
		all.WriteString(r.Raw)
	}
	got := splitRequests([]byte(all.String()))
	if len(got) != len(sc.Reqs) || string(got[3]) != sc.Reqs[3].Raw {
		t.Fatalf("split %d requests into %d", len(sc.Reqs), len(got))
	}
}
