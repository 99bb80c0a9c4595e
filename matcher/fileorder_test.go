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

// TestFileOrderBrute compares a file-order Set of generated rules with
// asking each rule alone in file order (checkFileOrder), on 40 rule sets.
func TestFileOrderBrute(t *testing.T) {
	compiled := 0
	for seed := range 40 {
		n := seed*7 + 3 // a cheap generator, the same on every run
		next := func(k int) int { n = (n*1103515245 + 12345) & 0x7fffffff; return n % k }
		if checkFileOrder(t, genRules(next, 12)) {
			compiled++
		}
	}
	if compiled < 20 {
		t.Errorf("only %d of 40 generated rule sets compiled", compiled)
	}
}

// FuzzFileOrder is TestFileOrderBrute on rule sets the fuzzer picks.
func FuzzFileOrder(f *testing.F) {
	f.Add([]byte("\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c"))
	f.Add([]byte("file order: the first rule that matches"))
	f.Fuzz(func(t *testing.T, data []byte) {
		i := 0
		next := func(k int) int {
			if i >= len(data) {
				return 0
			}
			i++
			return int(data[i-1]) % k
		}
		checkFileOrder(t, genRules(next, 1+len(data)/6))
	})
}

// fileOrderSegs, fileOrderHosts and fileOrderPaths are what generated
// rules and requests are made of: few enough that rules overlap.
var (
	fileOrderSegs  = []string{"a", "b", "ab"}
	fileOrderHosts = []string{"", "h.example", "*.example", "x.h.example"}
	fileOrderPaths = func() []string {
		var paths []string
		for _, x := range fileOrderSegs {
			paths = append(paths, "/"+x, "/"+x+"/")
			for _, y := range fileOrderSegs {
				paths = append(paths, "/"+x+"/"+y)
			}
		}
		return paths
	}()
)

// genRules makes up to n distinct rules of every kind, on a host, a
// wildcard host or none, some case-insensitive, some ignoring a trailing
// slash, some with a query condition, from the choices next makes.
func genRules(next func(int) int, n int) []matcher.Rule {
	var rules []matcher.Rule
	seen := map[string]bool{}
	for tries := 0; len(rules) < min(n, 16) && tries < 4*n; tries++ {
		r := matcher.Rule{Host: fileOrderHosts[next(len(fileOrderHosts))], Status: 301, File: "g"}
		p := fileOrderPaths[next(len(fileOrderPaths))]
		switch next(3) {
		case 0:
			r.From = p
			r.TrailingSlash = next(3) == 0
		case 1:
			r.Kind, r.From = matcher.Prefix, p
		default:
			r.Kind, r.From = matcher.Regex, "^"+p+"(.*)$"
			if next(2) == 0 {
				r.From = "^/(a|b)" + p[2:] + "(.*)$"
			}
		}
		r.CaseInsensitive = next(4) == 0
		if next(4) == 0 {
			r.Query = []matcher.QueryCond{{Name: "q", Value: "1"}}
		}
		key := fmt.Sprint(r.Kind, r.Host, r.From, r.CaseInsensitive, r.TrailingSlash, len(r.Query))
		if seen[key] {
			continue
		}
		seen[key] = true
		r.Line = len(rules) + 1
		r.To = fmt.Sprintf("/to%d/", r.Line)
		rules = append(rules, r)
	}
	return rules
}

// checkFileOrder compiles rules in file order and checks that every
// generated request (each host kind, each path, in another case, with
// and without the query condition) gets the first rule that matches it
// alone. It reports whether the rules compiled: two can clash (an exact
// rule and its case-insensitive twin), which is no file-order matter.
func checkFileOrder(t *testing.T, rules []matcher.Rule) bool {
	t.Helper()
	file, err := matcher.CompileFileOrder(rules)
	if err != nil {
		return false
	}
	alone := make([]*matcher.Set, len(rules))
	for i := range rules {
		if alone[i], err = matcher.Compile(rules[i : i+1]); err != nil {
			t.Fatal(err)
		}
	}
	var m matcher.Match
	for _, host := range []string{"h.example", "x.h.example", "y.example", "other"} {
		for _, p := range fileOrderPaths {
			for _, path := range []string{p, "/A" + p[min(2, len(p)):]} {
				for _, query := range [][]byte{nil, []byte("q=1")} {
					want := 0
					for i, s := range alone {
						if s.Lookup([]byte(host), []byte(path), query, &m) {
							want = i + 1
							break
						}
					}
					got := 0
					if file.Lookup([]byte(host), []byte(path), query, &m) {
						got = m.Rule().Line
					}
					if got != want {
						t.Fatalf("%s%s?%s: rule %d answers, want %d (rules %+v)", host, path, query, got, want, rules)
					}
				}
			}
		}
	}
	return true
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
