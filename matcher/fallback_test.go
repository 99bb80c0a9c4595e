package matcher_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/matcher"
)

// TestFallbackLookup checks that a fallback rule of every kind is found by
// Lookup and reported by Match.Fallback with its statuses, and that a rule
// without fallback reports none: plain exact rules and literal regexes,
// which live in tables that have no room for it, are kept on the ordinary
// path when they are fallbacks.
func TestFallbackLookup(t *testing.T) {
	s, err := matcher.Compile([]matcher.Rule{
		{From: "/exact", To: "/e", Status: 301, Fallback: true},
		{From: "/plain", To: "/p", Status: 301},
		{Kind: matcher.Prefix, From: "/pre/", To: "/p/", Status: 302, Fallback: true, FallbackStatus: []int{404, 410, 503}},
		{Kind: matcher.Regex, From: `^/lit/x$`, To: "/l", Status: 301, Fallback: true},
		{Kind: matcher.Regex, From: `^/re/(\d+)$`, To: "/r/$1", Status: 308, Fallback: true},
		{From: "/gone", Status: 410, Fallback: true},
		{From: "/pass", Pass: true, Fallback: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path     string
		loc      string
		statuses []int // nil: not a fallback
	}{
		{"/exact", "/e", []int{404}},
		{"/plain", "/p", nil},
		{"/pre/a/b", "/p/a/b", []int{404, 410, 503}},
		{"/lit/x", "/l", []int{404}},
		{"/re/12", "/r/12", []int{404}},
		{"/gone", "", []int{404}},
	}
	var m matcher.Match
	for _, tt := range tests {
		if !s.Lookup(nil, []byte(tt.path), nil, &m) {
			t.Errorf("%s: no match", tt.path)
			continue
		}
		if matcher.HasLocation(m.Status()) {
			if got := string(m.AppendLocation(nil, nil)); got != tt.loc {
				t.Errorf("%s: Location %q, want %q", tt.path, got, tt.loc)
			}
		}
		var got []int
		if fb := m.Fallback(); fb != nil {
			got = fb.Statuses()
			if !fb.Applies(got[0]) || fb.Applies(200) || fb.Applies(302) {
				t.Errorf("%s: Applies disagrees with Statuses %v", tt.path, got)
			}
		}
		if diff := cmp.Diff(tt.statuses, got); diff != "" {
			t.Errorf("%s: fallback statuses (-want +got):\n%s", tt.path, diff)
		}
		if m.Rule().Fallback != (tt.statuses != nil) {
			t.Errorf("%s: Rule().Fallback = %v", tt.path, m.Rule().Fallback)
		}
	}
	if s.Lookup(nil, []byte("/none"), nil, &m) || m.Fallback() != nil {
		t.Error("a miss reports a fallback")
	}
	if s.Lookup(nil, []byte("/pass"), nil, &m) || m.Passed() == nil || m.Fallback() != nil {
		t.Error("a no-redirect entry of a fallback map is not a plain miss")
	}
}

// TestFallbackHit checks that Fallback.Hit counts on the rule, as Each
// reports it.
func TestFallbackHit(t *testing.T) {
	s, err := matcher.Compile([]matcher.Rule{{From: "/a", To: "/b", Status: 301, Fallback: true, File: "f", Line: 1}})
	if err != nil {
		t.Fatal(err)
	}
	var m matcher.Match
	s.Lookup(nil, []byte("/a"), nil, &m)
	m.Fallback().Hit()
	m.Fallback().Hit()
	s.Each(func(r matcher.RuleHits) {
		if r.Hits != 2 {
			t.Errorf("hits = %d, want 2", r.Hits)
		}
	})
}

// TestFallbackErrors checks what Compile refuses in the fallback fields.
func TestFallbackErrors(t *testing.T) {
	tests := []struct {
		name string
		rule matcher.Rule
		want string
	}{
		{"status without fallback", matcher.Rule{From: "/a", To: "/b", Status: 301, FallbackStatus: []int{404}}, "fallback_status: given for a rule that is not a fallback"},
		{"2xx status", matcher.Rule{From: "/a", To: "/b", Status: 301, Fallback: true, FallbackStatus: []int{404, 200}}, "fallback_status: 200 is not an error status"},
		{"3xx status", matcher.Rule{From: "/a", To: "/b", Status: 301, Fallback: true, FallbackStatus: []int{301}}, "fallback_status: 301 is not an error status"},
		{"600", matcher.Rule{From: "/a", To: "/b", Status: 301, Fallback: true, FallbackStatus: []int{600}}, "fallback_status: 600 is not an error status"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.rule.File, tt.rule.Line = "f.toml", 3
			_, err := matcher.Compile([]matcher.Rule{tt.rule})
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "f.toml:3: ") {
				t.Errorf("error %v, want f.toml:3: ...%s", err, tt.want)
			}
		})
	}
}
