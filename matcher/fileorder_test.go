package matcher_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/redirectd/redirectd/matcher"
)

// fileOrderRules mixes every kind and host, in the order a Netlify
// _redirects file could hold them: host-less rules first, a host's
// catch-all after them, a wildcard host, and a later exact rule that a
// regex before it covers.
func fileOrderRules() []matcher.Rule {
	rules := []matcher.Rule{
		{Kind: matcher.Prefix, From: "/docs/", To: "/handbook/"},                                                // 1
		{Kind: matcher.Regex, From: `^/blog/(\d+)$`, To: "/posts/$1"},                                           // 2: a lowered or real regex
		{From: "/blog/7", To: "/seven"},                                                                         // 3: never: 2 comes first
		{Kind: matcher.Prefix, From: "/", To: "https://docs.example.io/", Host: "docs.example.io"},              // 4: after 1-3 on its host
		{From: "/about", To: "/about-us"},                                                                       // 5: 4 takes it on docs.example.io
		{Kind: matcher.Prefix, From: "/docs/old/", To: "/archive/"},                                             // 6: never: 1 is shorter and first
		{Kind: matcher.Regex, From: `^/x/(.*)\.html$`, To: "/y/$1", Host: "*.example.org"},                      // 7
		{Kind: matcher.Prefix, From: "/x/", To: "/z/"},                                                          // 8: after 7 on *.example.org
		{From: "/Case", To: "/case", CaseInsensitive: true},                                                     // 9
		{Kind: matcher.Regex, From: `(?i)^/case$`, To: "/never"},                                                // 10: 9 first
		{From: "/slash/", To: "/s", TrailingSlash: true},                                                        // 11
		{Kind: matcher.Regex, From: `^/q$`, To: "/q1", Query: []matcher.QueryCond{{Name: "a", Value: "1"}}},     // 12
		{From: "/q", To: "/q2"},                                                                                 // 13
		{From: "/go", To: "/home"},                                                                              // 14
		{From: "/go", To: "/out", Query: []matcher.QueryCond{{Name: "a", Value: "1"}}},                          // 15: never: 14 first
		{Kind: matcher.Prefix, From: "/pp/", To: "/all/"},                                                       // 16
		{Kind: matcher.Prefix, From: "/pp/", To: "/some/", Query: []matcher.QueryCond{{Name: "a", Value: "*"}}}, // 17: never
	}
	for i := range rules {
		rules[i].Status, rules[i].File, rules[i].Line = 301, "r", i+1
	}
	return rules
}

// TestFileOrder: in a Set in file order the first matching rule in the
// file answers, whatever its kind and host; the default order is
// unchanged. Each answer is checked against a brute force that asks each
// rule alone, in file order.
func TestFileOrder(t *testing.T) {
	rules := fileOrderRules()
	file, err := matcher.CompileFileOrder(rules)
	if err != nil {
		t.Fatal(err)
	}
	prec, err := matcher.Compile(rules)
	if err != nil {
		t.Fatal(err)
	}
	if !file.FileOrder() || prec.FileOrder() {
		t.Fatalf("FileOrder() = %v and %v, want true and false", file.FileOrder(), prec.FileOrder())
	}
	alone := make([]*matcher.Set, len(rules))
	for i := range rules {
		if alone[i], err = matcher.Compile(rules[i : i+1]); err != nil {
			t.Fatal(err)
		}
	}
	type answer struct{ File, Precedence, Brute string }
	ask := func(s *matcher.Set, host, target string) string {
		var m matcher.Match
		path, query, _ := cut(target)
		if !s.Lookup([]byte(host), []byte(path), query, &m) {
			return "none"
		}
		return fmt.Sprintf("%d %s", m.Rule().Line, m.AppendLocation(nil, query))
	}
	brute := func(host, target string) string {
		for i, s := range alone {
			var m matcher.Match
			path, query, _ := cut(target)
			if s.Lookup([]byte(host), []byte(path), query, &m) {
				return fmt.Sprintf("%d %s", i+1, m.AppendLocation(nil, query))
			}
		}
		return "none"
	}
	tests := []struct {
		host, target string
		want         answer
	}{
		{"docs.example.io", "/docs/a", answer{"1 /handbook/a", "4 https://docs.example.io/docs/a", ""}},
		{"docs.example.io", "/blog/7", answer{"2 /posts/7", "4 https://docs.example.io/blog/7", ""}},
		{"docs.example.io", "/about", answer{"4 https://docs.example.io/about", "4 https://docs.example.io/about", ""}},
		{"other.example", "/about", answer{"5 /about-us", "5 /about-us", ""}},
		{"other.example", "/blog/7", answer{"2 /posts/7", "3 /seven", ""}},
		{"other.example", "/docs/old/x", answer{"1 /handbook/old/x", "6 /archive/x", ""}},
		{"a.example.org", "/x/p.html", answer{"7 /y/p", "7 /y/p", ""}},
		{"a.example.org", "/x/p", answer{"8 /z/p", "8 /z/p", ""}},
		{"other.example", "/x/p.html", answer{"8 /z/p.html", "8 /z/p.html", ""}},
		{"other.example", "/CASE", answer{"9 /case", "9 /case", ""}},
		{"other.example", "/slash", answer{"11 /s", "11 /s", ""}},
		{"other.example", "/q?a=1", answer{"12 /q1?a=1", "13 /q2?a=1", ""}},
		{"other.example", "/q?a=2", answer{"13 /q2?a=2", "13 /q2?a=2", ""}},
		{"other.example", "/nothing", answer{"none", "none", ""}},
		{"other.example", "/go?a=1", answer{"14 /home?a=1", "15 /out?a=1", ""}},
		{"other.example", "/pp/x?a=2", answer{"16 /all/x?a=2", "17 /some/x?a=2", ""}},
	}
	for _, tc := range tests {
		tc.want.Brute = tc.want.File
		got := answer{ask(file, tc.host, tc.target), ask(prec, tc.host, tc.target), brute(tc.host, tc.target)}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s%s (-want +got):\n%s", tc.host, tc.target, diff)
		}
	}
}

// cut splits a target at '?': the query is nil when there is none.
func cut(target string) (string, []byte, bool) {
	for i := 0; i < len(target); i++ {
		if target[i] == '?' {
			return target[:i], []byte(target[i+1:]), true
		}
	}
	return target, nil, false
}

// TestFileOrderBrute compares a file-order Set of generated rules (every
// kind, on a host, a wildcard host or none, some case-insensitive) with
// asking each rule alone in file order, on generated requests.
func TestFileOrderBrute(t *testing.T) {
	segs := []string{"a", "b", "ab"}
	hosts := []string{"", "h.example", "*.example", "x.h.example"}
	var paths []string
	for _, x := range segs {
		paths = append(paths, "/"+x, "/"+x+"/")
		for _, y := range segs {
			paths = append(paths, "/"+x+"/"+y)
		}
	}
	compiled := 0
	for seed := range 40 {
		n := seed*7 + 3 // a cheap generator, the same on every run
		next := func(k int) int { n = (n*1103515245 + 12345) & 0x7fffffff; return n % k }
		var rules []matcher.Rule
		seen := map[string]bool{}
		for len(rules) < 12 {
			r := matcher.Rule{Host: hosts[next(len(hosts))], Status: 301, File: "g"}
			p := paths[next(len(paths))]
			switch next(3) {
			case 0:
				r.From = p
			case 1:
				r.Kind, r.From = matcher.Prefix, p
			default:
				r.Kind, r.From = matcher.Regex, "^"+p+"(.*)$"
				if next(2) == 0 {
					r.From = "^/(a|b)" + p[2:] + "(.*)$"
				}
			}
			r.CaseInsensitive = next(4) == 0
			key := fmt.Sprint(r.Kind, r.Host, r.From, r.CaseInsensitive)
			if seen[key] {
				continue
			}
			seen[key] = true
			r.Line = len(rules) + 1
			r.To = fmt.Sprintf("/to%d/", r.Line)
			rules = append(rules, r)
		}
		file, err := matcher.CompileFileOrder(rules)
		if err != nil {
			continue // two rules clash (an exact rule and its case-insensitive twin)
		}
		compiled++
		alone := make([]*matcher.Set, len(rules))
		for i := range rules {
			if alone[i], err = matcher.Compile(rules[i : i+1]); err != nil {
				t.Fatal(err)
			}
		}
		var m matcher.Match
		for _, host := range []string{"h.example", "x.h.example", "y.example", "other"} {
			for _, p := range paths {
				for _, path := range []string{p, "/A" + p[min(2, len(p)):]} {
					want := 0
					for i, s := range alone {
						if s.Lookup([]byte(host), []byte(path), nil, &m) {
							want = i + 1
							break
						}
					}
					got := 0
					if file.Lookup([]byte(host), []byte(path), nil, &m) {
						got = m.Rule().Line
					}
					if got != want {
						t.Errorf("seed %d, %s%s: rule %d answers, want %d (rules %v)", seed, host, path, got, want, rules)
					}
				}
			}
		}
	}
	if compiled < 20 {
		t.Errorf("only %d of 40 generated rule sets compiled", compiled)
	}
}

// TestFileOrderShadow: in file order a shadow rule would have answered
// when it comes before the live answer in the file, whatever its kind.
func TestFileOrderShadow(t *testing.T) {
	rules := []matcher.Rule{
		{Kind: matcher.Prefix, From: "/a/", To: "/shadow/", Shadow: true},   // 1
		{From: "/a/x", To: "/live"},                                         // 2
		{From: "/b/x", To: "/live"},                                         // 3
		{Kind: matcher.Regex, From: `^/b/(.*)$`, To: "/s/$1", Shadow: true}, // 4: after 3
	}
	for i := range rules {
		rules[i].Status, rules[i].File, rules[i].Line = 301, "r", i+1
	}
	s, err := matcher.CompileFileOrder(rules)
	if err != nil {
		t.Fatal(err)
	}
	var m matcher.Match
	type got struct {
		Live, Shadow string
	}
	for path, want := range map[string]got{
		"/a/x": {"2 /live", "1 /shadow/x"},
		"/b/x": {"3 /live", ""},
		"/b/y": {"", "4 /s/y"},
	} {
		var g got
		if s.Lookup(nil, []byte(path), nil, &m) {
			g.Live = fmt.Sprintf("%d %s", m.Rule().Line, m.AppendLocation(nil, nil))
		}
		if m.Shadowed() {
			g.Shadow = fmt.Sprintf("%d %s", m.ShadowRule().Line, m.AppendShadowLocation(nil, nil))
		}
		if diff := cmp.Diff(want, g); diff != "" {
			t.Errorf("%s (-want +got):\n%s", path, diff)
		}
	}
}
