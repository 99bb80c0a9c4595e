package matcher_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/matcher"
)

// buildPacked builds a Set of n packed rules of host from file, then the
// rules in more.
func buildPacked(t *testing.T, host string, n int, reuse *matcher.PackedRef, more ...matcher.Rule) (*matcher.Set, error) {
	t.Helper()
	b := matcher.NewBuilder(matcher.DefaultLimits)
	if reuse != nil {
		if !b.Reuse(*reuse) {
			t.Fatal("Reuse declined the table")
		}
	} else {
		for i := range n {
			r := matcher.Rule{Kind: matcher.Exact, Host: host, From: fmt.Sprintf("/old/%d", i), To: fmt.Sprintf("/new/%d", i), Status: 301, File: "big.map", Line: i + 1}
			if err := b.Add(&r); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i := range more {
		if err := b.Add(&more[i]); err != nil {
			return nil, err
		}
	}
	return b.Set()
}

// TestPackedReuse takes a finished Set's packed table over into a second
// Builder and checks that the second Set has the rules a fresh build has,
// that adding to the host writes copies (the first Set answers as
// before), that a host's earlier exact rules make Reuse decline, and that
// a table whose Set is gone is declined.
func TestPackedReuse(t *testing.T) {
	const n, host = 100, "example.com"
	first, err := buildPacked(t, host, n, nil)
	if err != nil {
		t.Fatal(err)
	}
	ref, got := first.PackedRef(host)
	if got != n {
		t.Fatalf("PackedRef: %d rules, want %d", got, n)
	}
	extra := matcher.Rule{Kind: matcher.Exact, Host: host, From: "/extra", To: "/x", Status: 302, File: "r.toml", Line: 1}
	second, err := buildPacked(t, host, n, &ref, extra)
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := buildPacked(t, host, n, nil, extra)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(fresh.Rules(), second.Rules()); diff != "" {
		t.Errorf("rules against a fresh build (-fresh +reused):\n%s", diff)
	}
	if second.SharesPacked(first, host) {
		t.Error("a table added to still shares the first Set's arrays")
	}
	for i := range n {
		if got := location(t, second, host, fmt.Sprintf("/old/%d", i)); got != fmt.Sprintf("/new/%d", i) {
			t.Fatalf("second, /old/%d: %q", i, got)
		}
	}
	if got := location(t, second, host, "/extra"); got != "/x" {
		t.Errorf("second, /extra: %q", got)
	}
	if got := location(t, first, host, "/extra"); got != "" {
		t.Errorf("first, /extra: %q, want a miss", got)
	}
	if _, err := buildPacked(t, host, n, &ref, matcher.Rule{Kind: matcher.Exact, Host: host, From: "/old/3", To: "/x", Status: 301}); err == nil {
		t.Error("a duplicate of a reused rule was accepted")
	}

	b := matcher.NewBuilder(matcher.DefaultLimits)
	if err := b.Add(&matcher.Rule{Kind: matcher.Exact, Host: host, From: "/caf%c3%a9", To: "/x", Status: 301}); err != nil {
		t.Fatal(err)
	}
	if b.Reuse(ref) {
		t.Error("Reuse took a table over into a host with exact rules")
	}

	runtime.KeepAlive(first)
	first, second, fresh = nil, nil, nil
	runtime.GC()
	if matcher.NewBuilder(matcher.DefaultLimits).Reuse(ref) {
		t.Error("Reuse took over the table of a Set that is gone")
	}
}

func location(t *testing.T, s *matcher.Set, host, path string) string {
	t.Helper()
	var m matcher.Match
	if !s.Lookup([]byte(host), []byte(path), nil, &m) {
		return ""
	}
	return string(m.AppendLocation(nil, nil))
}
