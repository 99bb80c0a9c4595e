package lint_test

import (
	"testing"

	"github.com/redirectd/redirectd/config/lint"
	"github.com/redirectd/redirectd/matcher"
)

// TestConditionsReachable checks that rules told apart only by conditions
// on who asks (when) are not reported unreachable, in either order, and
// that two plain rules still are.
func TestConditionsReachable(t *testing.T) {
	de := &matcher.When{Language: []string{"de"}}
	rules := []matcher.Rule{
		{From: "/home", To: "/en/"},
		{From: "/home", To: "/de/", When: de},
		{Kind: matcher.Regex, From: `^/r/(.*)$`, To: "/de/$1", When: de},
		{Kind: matcher.Regex, From: `^/r/(.*)$`, To: "/en/$1"},
		{Kind: matcher.Regex, From: `^/s/(.*)$`, To: "/a/$1"},
		{Kind: matcher.Regex, From: `^/s/(.*)$`, To: "/b/$1"}, // unreachable
	}
	for i := range rules {
		rules[i].Status, rules[i].File, rules[i].Line = 301, "m", i+1
	}
	set, err := matcher.Compile(rules)
	if err != nil {
		t.Fatal(err)
	}
	var unreachable []string
	for _, f := range lint.Check(rules, set) {
		if f.Kind == "unreachable" {
			unreachable = append(unreachable, f.Rules[0].Source)
		}
	}
	if len(unreachable) != 1 || unreachable[0] != "m:6" {
		t.Errorf("unreachable rules %q, want only m:6", unreachable)
	}
}
