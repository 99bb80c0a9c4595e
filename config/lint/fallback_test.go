package lint_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/redirectd/redirectd/config/lint"
	"github.com/redirectd/redirectd/matcher"
)

// TestFallbackLoop checks that a loop made only of fallback rules is a
// warning, and one with a plain rule in it still an error.
func TestFallbackLoop(t *testing.T) {
	rules := []matcher.Rule{
		{From: "/a", To: "/b", Fallback: true},                         // 1
		{From: "/b", To: "/a", Fallback: true},                         // 2
		{From: "/c", To: "/d", Fallback: true},                         // 3
		{From: "/d", To: "/c"},                                         // 4: plain
		{Kind: matcher.Prefix, From: "/p/", To: "/p/", Fallback: true}, // 5: onto itself
		{From: "/lead", To: "/a"},                                      // 6: plain, into the loop of 1 and 2
	}
	for i := range rules {
		rules[i].Status, rules[i].File, rules[i].Line = 301, "m", i+1
	}
	set, err := matcher.Compile(rules)
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		Severity lint.Severity
		Kind     string
		First    string
	}
	var list []got
	for _, f := range lint.Check(rules, set) {
		list = append(list, got{f.Severity, f.Kind, f.Rules[0].Source})
	}
	want := []got{
		{lint.Warning, "loop", "m:1"},
		{lint.Warning, "loop", "m:2"},
		{lint.Error, "loop", "m:3"},
		{lint.Error, "loop", "m:4"},
		{lint.Warning, "loop", "m:5"},
		{lint.Warning, "loop", "m:6"},
	}
	if diff := cmp.Diff(want, list); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}
