package edits

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/engine/admin/edit"
)

// TestAuditTornLine: a last line a crash left without its newline is cut
// off when the log opens, so the next record starts a line of its own
// and every line parses.
func TestAuditTornLine(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "audit", "log.jsonl")
	a, recs, bad, err := OpenAudit(path)
	if err != nil || len(recs) != 0 || bad != 0 {
		t.Fatalf("new log: %v %v %d", recs, err, bad)
	}
	if err := a.Append(edit.Record{Action: "promote", Version: 1, Author: "ada"}); err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"time":"2026-01-01T00:00:00Z","action":"prom`)
	f.Close()
	a, recs, bad, err = OpenAudit(path)
	if err != nil || bad != 0 {
		t.Fatalf("reopen: %v, %d bad", err, bad)
	}
	if d := cmp.Diff([]int{1}, versions(recs)); d != "" {
		t.Errorf("records (-want +got):\n%s", d)
	}
	if err := a.Append(edit.Record{Action: "promote", Version: 2, Author: "ada"}); err != nil {
		t.Fatal(err)
	}
	_, recs, bad, _ = OpenAudit(path)
	if d := cmp.Diff([]int{1, 2}, versions(recs)); d != "" || bad != 0 {
		t.Errorf("records (-want +got), %d bad:\n%s", bad, d)
	}
}

func versions(recs []edit.Record) []int {
	var out []int
	for _, r := range recs {
		out = append(out, r.Version)
	}
	return out
}
