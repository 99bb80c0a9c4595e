package rewrite

import (
	"regexp"
	"strings"
	"testing"
)

// bruteLevel chooses among specs by scanning them all, as nginx's rules
// read: an exact path ends the search; else the longest prefix (or a
// forwarding location for uri+"/", which answers 301), whose nested
// locations come next; then, unless that prefix is ^~, the first regex
// in file order. It returns the location's name, "" for none, and
// whether the search ended (exact, regex or redirect).
func bruteLevel(specs []LocationSpec, uri string) (name string, final, done bool, noregex bool) {
	var longest *LocationSpec
	for i := range specs {
		sp := &specs[i]
		switch sp.Match {
		case Exact:
			if sp.Path == uri {
				return "= " + sp.Path, true, false, false
			}
		case Prefix, PrefixNoRegex:
			if strings.HasPrefix(uri, sp.Path) && (longest == nil || len(sp.Path) > len(longest.Path)) {
				longest = sp
			}
		}
	}
	if longest == nil || longest.Path != uri {
		// nginx's tree node for uri+"/" redirects when one of its
		// locations forwards, and names its exact one if it has one.
		var node *LocationSpec
		pass := false
		for i := range specs {
			if sp := &specs[i]; sp.Match != Regex && sp.Match != RegexCI && sp.Path == uri+"/" {
				pass = pass || sp.Pass
				if node == nil || sp.Match == Exact {
					node = sp
				}
			}
		}
		if pass {
			return strings.TrimSpace(node.Match.String() + " " + node.Path), true, true, false
		}
	}
	if longest != nil {
		name = strings.TrimSpace(longest.Match.String() + " " + longest.Path)
		if n, f, d, _ := bruteLevel(longest.Locations, uri); f {
			return n, true, d, false
		} else if n != "" {
			name = n
		}
		if longest.Match == PrefixNoRegex {
			return name, false, false, true
		}
	}
	for i := range specs {
		sp := &specs[i]
		if sp.Match != Regex && sp.Match != RegexCI {
			continue
		}
		expr := sp.Path
		if sp.Match == RegexCI {
			expr = "(?i)" + expr
		}
		if regexp.MustCompile(expr).MatchString(uri) {
			n, f, d, _ := bruteLevel(sp.Locations, uri)
			if f || n != "" {
				return n, true, d, false
			}
			return sp.Match.String() + " " + sp.Path, true, false, false
		}
	}
	return name, false, false, false
}

// fuzzSpecs builds up to a few levels of locations from data: each byte
// pair is a kind and a path from a small alphabet, so that prefixes,
// exact paths and regexes collide often.
func fuzzSpecs(data []byte, parent string, depth int) ([]LocationSpec, []byte) {
	var specs []LocationSpec
	seen := map[string]bool{}
	for len(data) >= 2 && len(specs) < 6 {
		op, arg := data[0], data[1]
		data = data[2:]
		if op%7 == 6 {
			break // end of this level
		}
		sp := LocationSpec{Match: Kind(op % 5), Pass: op&0x40 != 0}
		tail := []string{"", "a", "a/", "b", "ab/", "a/b", "/"}[arg%7]
		switch sp.Match {
		case Regex, RegexCI:
			sp.Path = []string{"a$", "^/a", "b", "A/", "/$"}[arg%5]
		default:
			sp.Path = parent + tail
			if !strings.HasPrefix(sp.Path, "/") {
				sp.Path = "/" + sp.Path
			}
		}
		key := sp.Match.String() + " " + sp.Path
		if seen[key] {
			continue
		}
		seen[key] = true
		if depth < 2 && op&0x80 != 0 && sp.Match != Exact && sp.Match != Regex && sp.Match != RegexCI {
			sp.Locations, data = fuzzSpecs(data, sp.Path, depth+1)
		}
		specs = append(specs, sp)
	}
	return specs, data
}

func FuzzChooseLocation(f *testing.F) {
	f.Add([]byte{0x80, 2, 2, 1, 0x42, 4, 6, 0, 3, 0, 4, 3}, "/a/b")
	f.Add([]byte{0x41, 2, 0x80, 0, 1, 1, 3, 1}, "/a")
	f.Fuzz(func(t *testing.T, data []byte, uri string) {
		if len(uri) > 64 || !strings.HasPrefix(uri, "/") {
			return
		}
		specs, _ := fuzzSpecs(data, "", 0)
		want, _, wantDone, _ := bruteLevel(specs, uri)
		// Each level's prefixes compared one by one, then filed by path.
		defer func(min int) { prefixIndexMin = min }(prefixIndexMin)
		for _, min := range []int{prefixIndexMin, 0} {
			prefixIndexMin = min
			p, err := Compile(Spec{Locations: specs})
			if err != nil {
				return // a nesting nginx refuses: nothing to compare
			}
			var s Scratch
			s.begin(p, &Request{})
			s.uri = s.keep([]byte(uri))
			var loc *location
			done := p.root.find(&s, s.bytes(s.uri), &loc) == rcDone
			got := ""
			if loc != nil {
				got = loc.name
			}
			if got != want || done != wantDone {
				t.Fatalf("uri %q in %+v (prefixIndexMin %d): chose %q (redirect %v), want %q (redirect %v)", uri, specs, min, got, done, want, wantDone)
			}
		}
	})
}
