package plural

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCount(t *testing.T) {
	for _, tt := range []struct {
		n    int
		one  string
		many []string
		want string
	}{
		{0, "rule", nil, "0 rules"},
		{1, "rule", nil, "1 rule"},
		{2, "rule", nil, "2 rules"},
		{-1, "rule", nil, "-1 rules"},
		{1, "entry", []string{"entries"}, "1 entry"},
		{0, "entry", []string{"entries"}, "0 entries"},
		{45, "map entry", []string{"map entries"}, "45 map entries"},
		{1, "case file", nil, "1 case file"},
		{3, "case file", nil, "3 case files"},
	} {
		if diff := cmp.Diff(tt.want, Count(tt.n, tt.one, tt.many...)); diff != "" {
			t.Errorf("Count(%d, %q, %q): -want +got\n%s", tt.n, tt.one, tt.many, diff)
		}
	}
}
