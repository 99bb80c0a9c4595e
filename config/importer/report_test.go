package importer

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReportMapRuns: a report of many map files names the first and
// last file of each map, so that every map written is named (gwern's
// import wrote 17 files of one map and 3 of another, and the report
// named only the second's).
func TestReportMapRuns(t *testing.T) {
	for _, tt := range []struct {
		maps []string
		want string
	}{
		{seq("v", 1, 11), "(v-1.map to v-11.map)"},
		{append(append([]string{"no-redirect.map"}, append([]string{"new_uri.map"}, seq("new_uri", 2, 17)...)...), seq("no-redirect", 2, 3)...),
			"(no-redirect.map to no-redirect-3.map, new_uri.map to new_uri-17.map)"},
		{append(seq("a", 1, 8), "b.map", "c-x.map"), "(a-1.map to a-8.map, b.map, c-x.map)"},
	} {
		r := &Report{Files: append([]string{"out/redirectd.toml"}, prefixed("out/", tt.maps)...), Dir: "out", Forms: map[string]int{"map entry": 1}}
		var b strings.Builder
		r.Write(&b)
		want := fmt.Sprintf("wrote redirectd.toml and %d map files beside it %s: 1 rule\n", len(tt.maps), tt.want)
		if got, _, _ := strings.Cut(b.String(), "       1"); got != want {
			t.Errorf("%v:\n got %q\nwant %q", tt.maps, got, want)
		}
	}
}

// TestReportLeftOutOnce: a note under "left out (N):" does not end with
// "; left out" again, as the importers' messages do (they are classified
// by it); a message where the words say more keeps them.
func TestReportLeftOutOnce(t *testing.T) {
	r := &Report{Files: []string{"redirectd.toml"}, Forms: map[string]int{"exact": 1}, Notes: []Note{
		{"a.conf", 3, LeftOut, "add_header X: no header fields; left out"},
		{"a.conf", 4, LeftOut, "routes are not read, left out"},
		{"a.conf", 5, LeftOut, "if (-f $x): the if and its steps are left out"},
		{"a.conf", 6, Caveat, "kept; left out"},
	}}
	var b strings.Builder
	r.Write(&b)
	want := `wrote redirectd.toml: 1 rule
       1  exact
       3  left out
       1  translated with a caveat
left out (3):
  a.conf:3: add_header X: no header fields
  a.conf:4: routes are not read
  a.conf:5: if (-f $x): the if and its steps are left out
translated with a caveat (1):
  a.conf:6: kept; left out
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
}

// seq is the map files NAME-lo.map to NAME-hi.map.
func seq(name string, lo, hi int) []string {
	var s []string
	for i := lo; i <= hi; i++ {
		s = append(s, fmt.Sprintf("%s-%d.map", name, i))
	}
	return s
}

func prefixed(dir string, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = dir + n
	}
	return out
}
