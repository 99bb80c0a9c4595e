package lint_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/redirectd/redirectd/config/lint"
	"github.com/redirectd/redirectd/matcher"
)

// TestFragment: a rule whose every match holds '#' never applies, since
// clients never send the fragment: check warns, naming the rule. The
// matcher agrees: no path a client sends reaches it, "/a%23b" included
// (a raw '#' in a request target is answered 400 by the parser).
func TestFragment(t *testing.T) {
	rules := []matcher.Rule{
		{Kind: matcher.Regex, From: `^/a#b/?$`, To: "/c"},                  // 1: a Netlify source "/a#b"
		{Kind: matcher.Regex, From: `^/x(?:/(?P<p>[^/#?]+))#y$`, To: "/c"}, // 2: a Vercel source "/x/:p#y"
		{Kind: matcher.Regex, From: `^/f[^#]*$`, To: "/g"},                 // 3: no '#' needed
		{Kind: matcher.Regex, From: `^/h(#i)?$`, To: "/g"},                 // 4: optional
		{Kind: matcher.Regex, From: `^/j(?:#k|#l)$`, To: "/g"},             // 5: both branches
		{From: "/m", To: "/n#frag"},                                        // 6: a fragment in to is fine
		{From: "/o#p", To: "/q", DecodedPath: true},                        // 7: "/o%23p" reaches it
		{Kind: matcher.Regex, From: `^/r\#s$`, To: "/g"},                   // 8: an escaped '#'
		{Kind: matcher.Regex, From: `^/t[#]u+$`, To: "/g"},                 // 9
	}
	for i := range rules {
		rules[i].Status, rules[i].File, rules[i].Line = 301, "m", i+1
	}
	set, err := matcher.Compile(rules)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range lint.Check(rules, set) {
		if f.Kind == "fragment" && f.Severity == lint.Warning {
			got = append(got, f.Rules[0].Source)
		}
	}
	if diff := cmp.Diff([]string{"m:1", "m:2", "m:5", "m:8", "m:9"}, got); diff != "" {
		t.Errorf("fragment warnings (-want +got):\n%s", diff)
	}
	var m matcher.Match
	for _, path := range []string{"/a", "/a%23b", "/x/p%23y", "/j%23k"} {
		if set.Lookup(nil, []byte(path), nil, &m) {
			t.Errorf("%s matched %s", path, m.Rule().Source())
		}
	}
	if !set.Lookup(nil, []byte("/o%23p"), nil, &m) || m.Rule().Line != 7 {
		t.Error("/o%23p does not reach the decoded rule for /o#p")
	}
}
