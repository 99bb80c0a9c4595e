package lint_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/redirectd/redirectd/config/lint"
	"github.com/redirectd/redirectd/matcher"
)

func TestCheck(t *testing.T) {
	rules := []matcher.Rule{
		{From: "/a", To: "/b"},         // 1: chain a -> b -> c
		{From: "/b", To: "/c"},         // 2: chain b -> c
		{From: "/loop1", To: "/loop2"}, // 3: loop
		{From: "/loop2", To: "https://example.com/loop1", Host: "example.com"},                                      // 4: other host: not followed from host-less 3? (3 is host-less)
		{From: "/loop1", To: "https://example.com/loop2", Host: "example.com"},                                      // 5: loop on example.com
		{From: "/away", To: "https://elsewhere.example/away"},                                                       // 6: another site: not followed
		{From: "/bad", To: "htp:/nope"},                                                                             // 7: bad Location
		{From: "/space", To: "/a b <embed>"},                                                                        // 8: sent as /a%20b%20%3Cembed%3E, not refused
		{Kind: matcher.Regex, From: `^/r/(\d+)$`, To: "/n/$1"},                                                      // 9
		{Kind: matcher.Regex, From: `^/r/(\d+)$`, To: "/m/$1"},                                                      // 10: unreachable
		{Kind: matcher.Prefix, From: "/p/", To: "/p/sub/"},                                                          // 11: prefix loop /p/x -> /p/sub/x -> ...
		{From: "/self", To: "/self?x=1"},                                                                            // 12: loop onto itself
		{From: "/q", To: "/x", Query: []matcher.QueryCond{{Name: "a", Value: "*"}}},                                 // 13
		{From: "/q", To: "/y", Query: []matcher.QueryCond{{Name: "a", Value: "1"}, {Name: "b", Value: "2"}}},        // 14: 13 holds whenever it does
		{From: "/q", To: "/z"},                                                                                      // 15: tried after 13
		{From: "/t", To: "/t1"},                                                                                     // 16
		{From: "/t/", To: "/t2"},                                                                                    // 17
		{From: "/t", To: "/t3", TrailingSlash: true},                                                                // 18: 16 and 17 first
		{Kind: matcher.Prefix, From: "/old/", To: "/new/"},                                                          // 19
		{Kind: matcher.Regex, From: `^/old/(\d+)$`, To: "/n/$1"},                                                    // 20: 19 answers first
		{Kind: matcher.Regex, From: `^/ol(\d+)$`, To: "/n/$1"},                                                      // 21: reachable
		{Kind: matcher.Regex, From: `^/r/(\d+)$`, To: "/o/$1", Query: []matcher.QueryCond{{Name: "a", Value: "1"}}}, // 22: 9 first
		{Kind: matcher.Prefix, From: "/join", To: "https://new.example"},                                            // 23: rest joins the host
		{Kind: matcher.Regex, From: `^/go(.*)$`, To: "https://new.example$1"},                                       // 24: group joins the host
		{Kind: matcher.Prefix, From: "/ok", To: "https://new.example/"},                                             // 25: fine
		// A relative reference is a valid Location, sent as written (nginx
		// sends its relative targets so): a warning. A scheme other than
		// http(s), and a bare //path, stay errors.
		{From: "/rel", To: "new-page"},                            // 26: relative: a warning
		{Kind: matcher.Regex, From: `^/(?P<u>.*)\.$`, To: "${u}"}, // 27: relative: a warning
		{From: "/irc", To: "irc://irc.example/x"},                 // 28: not http(s)
		{From: "/dslash", To: "//docs/x"},                         // 29: a host "docs"
		{From: "/typo", To: "https:/creativecommons.org/x/"},      // 30: no host
		// A literal port, then what the request gives: a valid URL (the
		// check's placeholder must not read as part of the port).
		{Kind: matcher.Regex, From: `^/port/`, To: "https://$host:18443$path"},   // 31: fine
		{Kind: matcher.Regex, From: `^/port2(.*)$`, To: "https://$host:18443$1"}, // 32: group joins the port
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
		Final    string
	}
	var findings []got
	for _, f := range lint.Check(rules, set) {
		findings = append(findings, got{f.Severity, f.Kind, f.Rules[0].Source, f.Final})
	}
	want := []got{
		{lint.Error, "location", "m:7", ""},
		{lint.Warning, "location", "m:23", ""},
		{lint.Warning, "location", "m:24", ""},
		{lint.Warning, "location", "m:26", ""},
		{lint.Warning, "location", "m:27", ""},
		{lint.Error, "location", "m:28", ""},
		{lint.Error, "location", "m:29", ""},
		{lint.Error, "location", "m:30", ""},
		{lint.Warning, "location", "m:32", ""},
		{lint.Warning, "unreachable", "m:10", ""},
		{lint.Warning, "unreachable", "m:14", ""},
		{lint.Warning, "unreachable", "m:22", ""},
		{lint.Warning, "unreachable", "m:18", ""},
		{lint.Warning, "unreachable", "m:20", ""},
		{lint.Warning, "chain", "m:1", "/c"},
		{lint.Error, "loop", "m:4", ""},
		{lint.Error, "loop", "m:5", ""},
		{lint.Error, "loop", "m:11", ""},
		{lint.Error, "loop", "m:12", ""},
	}
	if diff := cmp.Diff(want, findings); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}

// TestCheckFileOrder: in a set in file order ([rules] order = "file") a
// regex under a later prefix rule, and a trailing-slash rule before its
// two strict forms, are reached, and a rule with conditions after the
// plain rule of its path is not; the default order is the other way
// round.
func TestCheckFileOrder(t *testing.T) {
	rules := []matcher.Rule{
		{Kind: matcher.Regex, From: `^/old/(\d+)$`, To: "/n/$1"},                       // 1: before the prefix
		{Kind: matcher.Prefix, From: "/old/", To: "/new/"},                             // 2
		{From: "/t", To: "/t3", TrailingSlash: true},                                   // 3: before both strict forms
		{From: "/t", To: "/t1"},                                                        // 4
		{From: "/t/", To: "/t2"},                                                       // 5
		{Kind: matcher.Regex, From: `^/old/x$`, To: "/x"},                              // 6: 2 comes first
		{From: "/q", To: "/all"},                                                       // 7
		{From: "/q", To: "/some", Query: []matcher.QueryCond{{Name: "a", Value: "1"}}}, // 8: in file order 7 comes first
	}
	for i := range rules {
		rules[i].Status, rules[i].File, rules[i].Line = 301, "m", i+1
	}
	unreached := func(set *matcher.Set) []string {
		var out []string
		for _, f := range lint.Check(rules, set) {
			if f.Kind == "unreachable" {
				out = append(out, f.Rules[0].Source)
			}
		}
		return out
	}
	file, err := matcher.CompileFileOrder(rules)
	if err != nil {
		t.Fatal(err)
	}
	prec, err := matcher.Compile(rules)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"m:8", "m:6"}, unreached(file)); diff != "" {
		t.Errorf("file order (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"m:1", "m:3", "m:6"}, unreached(prec)); diff != "" {
		t.Errorf("precedence (-want +got):\n%s", diff)
	}
}
