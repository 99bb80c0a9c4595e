package rewrite

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/redirectd/redirectd/internal/safego"
	"github.com/redirectd/redirectd/matcher"
)

// firstByIndex is the key the index names for key.
func firstByIndex(x *regexIndex, key string) int {
	var m matcher.Match
	return x.first([]byte(key), &m)
}

// checkIndex compares the index with the walk in order for key.
func checkIndex(t *testing.T, exprs []string, ci []bool, key string) {
	t.Helper()
	res := make([]*regexp.Regexp, len(exprs))
	for i, e := range exprs {
		if ci[i] {
			e = "(?i)" + e
		}
		re, err := regexp.Compile(e)
		if err != nil {
			return
		}
		res[i] = re
	}
	want := -1
	for i, re := range res {
		if re.MatchString(key) {
			want = i
			break
		}
	}
	x := buildRegexIndex(exprs, ci)
	if x == nil {
		return // a key the Set refuses: the map is walked
	}
	if got := firstByIndex(x, key); got != want {
		t.Errorf("key %q: the index finds key %d, the walk %d (%v)", key, got, want, exprs)
	}
}

// TestRegexIndex: on a map shaped as sites write them (anchored pages,
// case-insensitive ones, unanchored ones, ones with no literal start
// but a literal inside, thousands under one start), the index finds the
// key the walk in order finds, for hits, misses and near misses.
func TestRegexIndex(t *testing.T) {
	var exprs []string
	var ci []bool
	for i := range 300 {
		switch i % 10 {
		case 0:
			exprs = append(exprs, fmt.Sprintf(`^/doc/%d\.pdf.*$`, i))
		case 1:
			exprs = append(exprs, fmt.Sprintf(`^/Shout-%d$`, i))
			ci = append(ci, true)
			continue
		case 2:
			exprs = append(exprs, fmt.Sprintf(`/tail-%d$`, i))
		case 3:
			exprs = append(exprs, fmt.Sprintf(`^/a%d?/x`, i))
		case 4:
			exprs = append(exprs, `^/doc/`)
		case 5:
			exprs = append(exprs, fmt.Sprintf(`^/.*/trip%d/.*$`, i))
		case 6:
			exprs = append(exprs, fmt.Sprintf(`^/doc/ai/page-%d$`, i))
		case 7:
			exprs = append(exprs, fmt.Sprintf(`^/[Dd]anbooru%d.*$`, i))
		case 8:
			exprs = append(exprs, fmt.Sprintf(`^/.+/(?<g>x%d)$`, i))
		case 9:
			exprs = append(exprs, `^/.*$`)
		}
		ci = append(ci, false)
	}
	if buildRegexIndex(exprs, ci) == nil {
		t.Fatal("no index")
	}
	for _, key := range []string{"/doc/0.pdf", "/doc/5.pdfx", "/shout-1", "/SHOUT-6", "/x/tail-7", "/a1/x", "/a13/x", "/doc/zz", "/none", "", "/",
		"/a/trip15/b", "/trip15/", "/doc/ai/page-16", "/doc/ai/page-166", "/danbooru17x", "/Danbooru27", "/q/x18", "/q/x1"} {
		checkIndex(t, exprs, ci, key)
	}
}

// FuzzMapIndex: for any regex keys and value, the index finds the key
// the walk in order finds.
func FuzzMapIndex(f *testing.F) {
	f.Add("^/a\n^/ab?c\n/b\n^/A", "/ac", uint64(0b1000))
	f.Add(`^/x\.y`+"\n^/x.y\n^/x", "/x.y", uint64(0))
	f.Add("^/.*/tripbest/.*$\n^/.+best\n^/(?:ab)+cde", "/a/tripbest/b", uint64(0b10))
	f.Fuzz(func(t *testing.T, list, key string, ciBits uint64) {
		exprs := strings.Split(list, "\n")
		if len(exprs) > 64 {
			return
		}
		for len(exprs) < minIndexedRegexes {
			exprs = append(exprs, "^/pad-never-matching-"+fmt.Sprint(len(exprs))+"$")
		}
		ci := make([]bool, len(exprs))
		for i := range ci {
			ci[i] = ciBits&(1<<(i%64)) != 0
		}
		checkIndex(t, exprs, ci, key)
	})
}

// TestMapRegexIndexRun: a map of many regex keys answers as nginx's walk
// through them in order, and its lookup allocates nothing.
func TestMapRegexIndexRun(t *testing.T) {
	var b strings.Builder
	for i := range 500 {
		fmt.Fprintf(&b, "~^/old/%d(/.*)?$ /new/%d$1;\n", i, i)
	}
	b.WriteString("~*^/Any/ /any;\n~/deep$ /deep-end;\n~^/.*/tripbest/(.*)$ /trip/$1;\n")
	hosts, err := CompileHosts([]HostSpec{{Spec: Spec{
		Maps:      []MapSpec{{Source: "$uri", Variable: "m", Entries: b.String(), EntriesLine: 1}},
		Locations: []LocationSpec{{Match: Prefix, Path: "/", Steps: `if ($m) { return 301 $m; }`}},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, path := range []string{"/old/7", "/old/499/a/b", "/old/77x", "/ANY/x", "/x/deep", "/old/3/deep", "/nothing", "/a/tripbest/b"} {
		var s Scratch
		var res Result
		req := request("a.test", path, nil)
		p := hosts.Lookup(req.Host, false)
		p.Run(&s, req, &res)
		got = append(got, path+" "+string(res.Location))
		if n := testing.AllocsPerRun(50, func() { p.Run(&s, req, &res) }); n != 0 {
			t.Errorf("%s: %v allocations per Run", path, n)
		}
	}
	want := []string{"/old/7 /new/7", "/old/499/a/b /new/499/a/b", "/old/77x ", "/ANY/x /any", "/x/deep /deep-end", "/old/3/deep /new/3/deep", "/nothing ", "/a/tripbest/b /trip/b"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
}

// TestMapLazyKeys: in a map with an index, a key with no group is not
// compiled for the map (the index settles its match), one with a group
// is; a lazy key still runs when the walk reaches it (compiled then,
// once for all loops); without an index every key is compiled.
func TestMapLazyKeys(t *testing.T) {
	var b strings.Builder
	for i := range minIndexedRegexes {
		fmt.Fprintf(&b, "~^/page/%d$ /new/%d;\n", i, i)
	}
	b.WriteString("~^/g/(.*)$ /grouped/$1;\n")
	p, err := Compile(Spec{Maps: []MapSpec{{Source: "$uri", Variable: "m", Entries: b.String(), EntriesLine: 1}},
		Locations: []LocationSpec{{Path: "/", Steps: `if ($m) { return 301 $m; }`}}})
	if err != nil {
		t.Fatal(err)
	}
	m := p.maps[0]
	if m.index == nil {
		t.Fatal("no index")
	}
	var lazy []bool
	for _, r := range m.regexes {
		lazy = append(lazy, r.re == nil)
	}
	want := make([]bool, minIndexedRegexes+1)
	for i := range minIndexedRegexes {
		want[i] = true
	}
	if diff := cmp.Diff(want, lazy); diff != "" {
		t.Errorf("lazy keys (-want +got):\n%s", diff)
	}
	for _, tc := range []struct{ path, want string }{{"/page/7", "/new/7"}, {"/g/x", "/grouped/x"}, {"/page/77", ""}} {
		got := run(t, p, request("a.test", tc.path, nil))
		if got.Location != tc.want {
			t.Errorf("%s: Location %q, want %q", tc.path, got.Location, tc.want)
		}
	}
	// The walk past a key that did not match again runs the keys after
	// it on their own: here, from several loops at once.
	done := make(chan bool)
	for range 4 {
		go func() {
			defer safego.Recover("lazy key")
			var s Scratch
			s.begin(p, request("a.test", "/", nil))
			key := s.keep([]byte("/page/9"))
			done <- s.matchRegex(m.keyRegex(9), s.bytes(key)) && !s.matchRegex(m.keyRegex(8), s.bytes(key))
		}()
	}
	for range 4 {
		if !<-done {
			t.Error("a lazy key, run on its own, did not answer as its regex")
		}
	}

	small, err := Compile(Spec{Maps: []MapSpec{{Source: "$uri", Variable: "m", Entries: "~^/a$ /b;\n~^/c$ /d;\n", EntriesLine: 1}},
		Locations: []LocationSpec{{Path: "/", Steps: `if ($m) { return 301 $m; }`}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range small.maps[0].regexes {
		if r.re == nil || r.re.p == nil {
			t.Errorf("%q: not compiled in a map without an index", r.expr)
		}
	}
}
