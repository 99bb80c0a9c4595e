package rewrite

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLiteralStart(t *testing.T) {
	for expr, want := range map[string]string{
		`^/old/page$`:        "/old/page",
		`^/a\.html$`:         "/a.html",
		`^/ab?c`:             "/a",
		`^/ab*c`:             "/a",
		`^/ab{2}`:            "/a",
		`^/ab+c`:             "/ab",
		`^/(a|b)`:            "",
		`^/a|/b`:             "",
		`/old`:               "",
		`^.*x`:               "",
		`^/caf\x{e9}`:        "/caf",
		"^/café":             "/caf",
		`^/\d+`:              "/",
		`^/doc/x[0-9]`:       "/doc/x",
		`^/Q\Qa.b\E`:         "/Q",
		`^(?i)/A`:            "",
		`^/x\/y`:             "/x/y",
		`^/GPT-3\).*$`:       "/GPT-3)",
		`^/2019-02-26-a.pkl`: "/2019-02-26-a",
	} {
		if got := literalStart(expr); got != want {
			t.Errorf("literalStart(%q) = %q, want %q", expr, got, want)
		}
	}
}

// firstByIndex is the first of exprs (compiled by Go's regexp, in the
// syntax both share) that matches key as the index tries them, and the
// positions it tried.
func firstByIndex(x *regexIndex, res []*regexp.Regexp, key string) (int, []int32) {
	first := -1
	var tried []int32
	x.candidates([]byte(key), []byte(strings.ToLower(key)), func(p int32) bool {
		tried = append(tried, p)
		if res[p].MatchString(key) {
			first = int(p)
			return true
		}
		return false
	})
	return first, tried
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
		return
	}
	got, tried := firstByIndex(x, res, key)
	if got != want {
		t.Errorf("key %q: the index finds key %d, the walk %d (%v)", key, got, want, exprs)
	}
	if !slices.IsSorted(tried) {
		t.Errorf("key %q: tried out of order: %v", key, tried)
	}
}

// TestRegexIndex: on a map shaped as sites write them (anchored pages,
// case-insensitive ones, some unanchored), the index finds the key the
// walk in order finds, for hits, misses and near misses.
func TestRegexIndex(t *testing.T) {
	var exprs []string
	var ci []bool
	for i := range 200 {
		switch i % 5 {
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
		}
		ci = append(ci, false)
	}
	for _, key := range []string{"/doc/0.pdf", "/doc/5.pdfx", "/shout-1", "/SHOUT-6", "/x/tail-7", "/a1/x", "/a13/x", "/doc/zz", "/none", "", "/"} {
		checkIndex(t, exprs, ci, key)
	}
}

// FuzzMapIndex: for any regex keys and value, the index finds the key
// the walk in order finds.
func FuzzMapIndex(f *testing.F) {
	f.Add("^/a\n^/ab?c\n/b\n^/A", "/ac", uint64(0b1000))
	f.Add(`^/x\.y`+"\n^/x.y\n^/x", "/x.y", uint64(0))
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
	b.WriteString("~*^/Any/ /any;\n~/deep$ /deep-end;\n")
	hosts, err := CompileHosts([]HostSpec{{Spec: Spec{
		Maps:      []MapSpec{{Source: "$uri", Variable: "m", Entries: b.String(), EntriesLine: 1}},
		Locations: []LocationSpec{{Match: Prefix, Path: "/", Steps: `if ($m) { return 301 $m; }`}},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, path := range []string{"/old/7", "/old/499/a/b", "/old/77x", "/ANY/x", "/x/deep", "/old/3/deep", "/nothing"} {
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
	want := []string{"/old/7 /new/7", "/old/499/a/b /new/499/a/b", "/old/77x ", "/ANY/x /any", "/x/deep /deep-end", "/old/3/deep /new/3/deep", "/nothing "}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
}
