package casetest

import (
	"strings"
	"testing"
)

// TestSummaryGrammar: counts of one are singular in the case runner's
// summary, as in check's (cmd/redirectd's TestCountGrammar).
func TestSummaryGrammar(t *testing.T) {
	for _, tt := range []struct {
		cases, files int
		want         string
	}{
		{1, 1, "ok: 1 case passed (1 case file)\n"},
		{2, 3, "ok: 2 cases passed (3 case files)\n"},
	} {
		var b strings.Builder
		res := make([]caseResult, tt.cases)
		for i := range res {
			res[i].Pass = true
		}
		writeSummary(&b, make([]string, tt.files), res)
		if b.String() != tt.want {
			t.Errorf("%d cases, %d files: %q, want %q", tt.cases, tt.files, b.String(), tt.want)
		}
	}
}
