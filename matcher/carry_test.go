package matcher_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/benchmarks/rules"
	"github.com/redirectd/redirectd/matcher"
)

func buildSet(t *testing.T, rules []matcher.Rule) *matcher.Set {
	t.Helper()
	b := matcher.NewBuilder(matcher.DefaultLimits)
	for i := range rules {
		if rules[i].Status == 0 {
			rules[i].Status = 301
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

// hit answers host and target n times from s, as the server does.
func hit(t *testing.T, s *matcher.Set, host, path, query string, n int) {
	t.Helper()
	var m matcher.Match
	var q []byte
	if query != "" {
		q = []byte(query)
	}
	for range n {
		if !s.Lookup([]byte(host), []byte(path), q, &m) {
			t.Fatalf("no rule for %s%s", host, path)
		}
		m.Hit()
	}
}

func hits(s *matcher.Set) map[string]uint64 {
	out := map[string]uint64{}
	s.Each(func(r matcher.RuleHits) {
		if r.Hits > 0 {
			out[r.Host+" "+r.From] = r.Hits
		}
	})
	return out
}

// TestCarryHits checks that hits follow a rule that did not change, in
// each of the set's stores (packed exact table, lowered literal regex,
// plain rules), and not one that did.
func TestCarryHits(t *testing.T) {
	var bulk []matcher.Rule
	for i := range 200 {
		bulk = append(bulk, matcher.Rule{From: fmt.Sprintf("/bulk/%d", i), To: fmt.Sprintf("/moved/%d", i), File: "a.map", Line: i + 1})
	}
	oldRules := append([]matcher.Rule{
		{From: "/same", To: "/x", File: "r.toml", Line: 1},
		{Kind: matcher.Prefix, From: "/p/", To: "/q/", File: "r.toml", Line: 2},
		{Kind: matcher.Regex, From: `^/r/(\d+)$`, To: "/s/$1", File: "r.toml", Line: 3},
		{Kind: matcher.Regex, From: `^/lit$`, To: "/lit2", File: "r.toml", Line: 4},
		{From: "/q", To: "/with-q", Query: []matcher.QueryCond{{Name: "a", Value: "1"}}, File: "r.toml", Line: 5},
		{From: "/hosted", To: "/h", Host: "example.com", File: "r.toml", Line: 6},
		{From: "/status", To: "/s", Status: 302, File: "r.toml", Line: 7},
	}, bulk...)
	old := buildSet(t, oldRules)
	hit(t, old, "", "/same", "", 3)
	hit(t, old, "", "/p/deep", "", 4)
	hit(t, old, "", "/r/42", "", 5)
	hit(t, old, "", "/lit", "", 6)
	hit(t, old, "", "/q", "a=1", 7)
	hit(t, old, "example.com", "/hosted", "", 8)
	hit(t, old, "", "/status", "", 9)
	hit(t, old, "", "/bulk/7", "", 10)
	hit(t, old, "", "/bulk/8", "", 11)

	// The new version: rules moved down a line (unchanged), the prefix
	// with a new target, the status changed, /bulk/8's target changed,
	// the hosted rule gone, one rule added.
	var newBulk []matcher.Rule
	for i := range 200 {
		to := fmt.Sprintf("/moved/%d", i)
		if i == 8 {
			to = "/elsewhere"
		}
		newBulk = append(newBulk, matcher.Rule{From: fmt.Sprintf("/bulk/%d", i), To: to, File: "a.map", Line: i + 2})
	}
	cur := buildSet(t, append([]matcher.Rule{
		{From: "/added", To: "/n", File: "r.toml", Line: 1},
		{From: "/same", To: "/x", File: "r.toml", Line: 2},
		{Kind: matcher.Prefix, From: "/p/", To: "/other/", File: "r.toml", Line: 3},
		{Kind: matcher.Regex, From: `^/r/(\d+)$`, To: "/s/$1", File: "r.toml", Line: 4},
		{Kind: matcher.Regex, From: `^/lit$`, To: "/lit2", File: "r.toml", Line: 5},
		{From: "/q", To: "/with-q", Query: []matcher.QueryCond{{Name: "a", Value: "1"}}, File: "r.toml", Line: 6},
		{From: "/status", To: "/s", Status: 301, File: "r.toml", Line: 7},
	}, newBulk...))
	hit(t, cur, "", "/same", "", 1) // served by the new set before the carry
	if n := cur.CarryHits(old); n != 5 {
		t.Errorf("CarryHits = %d rules, want 5", n)
	}
	want := map[string]uint64{" /same": 4, " ^/r/(\\d+)$": 5, " ^/lit$": 6, " /q": 7, " /bulk/7": 10}
	if diff := cmp.Diff(want, hits(cur)); diff != "" {
		t.Errorf("hits after CarryHits (-want +got):\n%s", diff)
	}
	if n := cur.CarryHits(cur); n != 0 {
		t.Errorf("CarryHits of a set onto itself = %d, want 0", n)
	}
}

func TestRuleKeySame(t *testing.T) {
	a := matcher.Rule{From: "/a", To: "/b", Status: 301, Query: []matcher.QueryCond{{"x", "1"}, {"y", "2"}}, File: "f", Line: 1}
	b := matcher.Rule{From: "/a", To: "/b", Status: 301, Query: []matcher.QueryCond{{"y", "2"}, {"x", "1"}}, File: "g", Line: 9}
	if a.Key() != b.Key() || !a.Same(&b) {
		t.Errorf("rules differing only in place and condition order: Key equal %v, Same %v", a.Key() == b.Key(), a.Same(&b))
	}
	for name, c := range map[string]matcher.Rule{
		"host":   {Host: "h", From: "/a"},
		"kind":   {Kind: matcher.Prefix, From: "/a"},
		"from":   {From: "/a/"},
		"query":  {From: "/a", Query: []matcher.QueryCond{{"x", "1"}}},
		"uri":    {From: "/a", RequestURI: true, Query: a.Query},
		"window": {From: "/a", Query: a.Query, Active: matcher.Window{Until: time.Date(2027, 1, 7, 0, 0, 0, 0, time.UTC)}},
		"shadow": {From: "/a", Query: a.Query, Shadow: true},
		"when":   {From: "/a", Query: a.Query, When: &matcher.When{Language: []string{"de"}}},
	} {
		if c.Key() == a.Key() {
			t.Errorf("a different %s gives the same Key", name)
		}
	}
	c := b
	c.To = "/c"
	if a.Same(&c) {
		t.Error("rules with different targets are Same")
	}
}

// BenchmarkCarryHits measures carrying the hits of a reload: n exact
// rules in a packed table (a map file), one in a hundred with hits.
func BenchmarkCarryHits(b *testing.B) {
	for _, n := range []int{10_000, 1_000_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			if n > 10_000 && testing.Short() {
				b.Skip("builds a million rules")
			}
			old, cur := packedSet(b, n), packedSet(b, n)
			var m matcher.Match
			for i := 0; i < n; i += 100 {
				if old.Lookup(nil, []byte(rules.MapKey(i)), nil, &m) {
					m.Hit()
				}
			}
			b.ReportAllocs()
			for b.Loop() {
				cur.CarryHits(old)
			}
		})
	}
}
