//go:build !race

package matcher_test

import (
	"testing"
	"time"

	"github.com/redirectd/redirectd/matcher"
)

// TestGateAllocs checks that rules with a window and shadow rules keep the
// hot path free of allocations: the lookup, the live answer, the shadow
// rule's count, source and would-be Location.
func TestGateAllocs(t *testing.T) {
	w := matcher.Window{From: winFrom, Until: winUntil}
	s, err := matcher.Compile([]matcher.Rule{
		{From: "/a", To: "/win", Status: 302, Active: w},
		{From: "/a", To: "/plain", Status: 301},
		{Kind: matcher.Prefix, From: "/p/", To: "/win/", Status: 302, Active: w},
		{Kind: matcher.Regex, From: `^/r/(\d+)$`, To: "/win/$1", Status: 302, Active: w},
		{From: "/s", To: "/shadow", Status: 301, Shadow: true},
		{Kind: matcher.Prefix, From: "/sp/", To: "/shadow/", Status: 301, Shadow: true},
		{Kind: matcher.Regex, From: `^/sr/(\d+)$`, To: "/shadow/$1", Status: 301, Shadow: true},
		{Kind: matcher.Regex, From: `^/sr/`, To: "/live", Status: 301},
	})
	if err != nil {
		t.Fatal(err)
	}
	m := matcher.Match{Now: winFrom.Add(time.Hour).UnixNano()}
	buf := make([]byte, 0, 512)
	for _, path := range []string{"/a", "/p/x", "/r/12", "/s", "/sp/x", "/sr/12", "/miss"} {
		p := []byte(path)
		allocs := testing.AllocsPerRun(100, func() {
			if s.Lookup(nil, p, nil, &m) {
				buf = m.AppendLocation(buf[:0], nil)
				m.Hit()
				_, _ = m.Status(), m.Source()
			}
			if m.Shadowed() {
				m.ShadowHit()
				_ = m.ShadowSource()
				buf = m.AppendShadowLocation(buf[:0], nil)
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per lookup, want 0", path, allocs)
		}
	}
}
