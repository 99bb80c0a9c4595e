package edits

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/redirectd/redirectd/engine/admin/edit"
)

// TestVersionEncode holds encode to the version's Marshal's bytes, on edits with
// every field set or empty and strings that Marshal escapes, so that a
// version file reads back as it always has (Head and Load use the
// json package).
func TestVersionEncode(t *testing.T) {
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	for _, v := range []*edit.Version{
		{},
		{Number: 3, Base: 2, Author: "pub", Message: "spring <clean-up> & \"more\"", Time: at, Counts: &edit.Counts{Added: 1, Changed: 2, Removed: 3}, RollbackOf: 1, Edits: []edit.Edit{}},
		{Number: 1, Edits: []edit.Edit{
			{Entry: edit.Entry{Op: edit.OpAdd, From: "/a", To: "/b", Status: 301}, By: "pub", At: at, Version: 1},
			{Entry: edit.Entry{Op: edit.OpAdd, From: "/back", To: "/b", Status: 301}, By: "ed", At: at, Version: 1, Restored: 4},
			{Entry: edit.Entry{Op: edit.OpDelete, Host: "www.example.com", From: "/gone"}, At: at.Add(time.Nanosecond * 1500)},
			{Entry: edit.Entry{Op: edit.OpChange, From: "^/r/(.*)$", To: "/x?a=1&b=<2>", Status: 308, Kind: "regex"}, By: "é\u2028\x01\\\"", At: at.In(time.FixedZone("x", 3600))},
			{Entry: edit.Entry{Op: edit.OpAdd, From: "/z\x7f\xff", To: "/ü", Status: 410}},
			{Entry: edit.Entry{Op: edit.OpAdd, From: "/de", To: "/de/", Status: 302, Query: map[string]string{"a": "1"},
				When:    map[string]any{"language": []any{"de"}, "header": map[string]any{"X-B": "1"}},
				Headers: map[string]string{"Cache-Control": "no-store"}}, By: "ed", At: at, Version: 2},
		}},
	} {
		want, err := v.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		w := bufio.NewWriter(&buf)
		if err := encode(v, w); err != nil {
			t.Fatal(err)
		}
		w.Flush()
		if diff := cmp.Diff(string(want), buf.String()); diff != "" {
			t.Errorf("encode differs from json.Marshal (-want +got):\n%s", diff)
		}
	}
}

// TestStartWrite writes a version on its goroutine, waits twice, and
// reads it back whole, Head and Load alike, with no temporary file left.
func TestStartWrite(t *testing.T) {
	dir := t.TempDir()
	s, err := OpenStore(dir, 10)
	if err != nil {
		t.Fatal(err)
	}
	v := &edit.Version{Number: 1, Author: "pub", Message: "m", Edits: []edit.Edit{{Entry: edit.Entry{Op: edit.OpAdd, From: "/a", To: "/b", Status: 301}, By: "pub"}}}
	wait := s.StartWrite(v)
	if s.Next() != 1 {
		t.Errorf("Next is %d while the write runs, want 1: the number is not reserved yet", s.Next())
	}
	if err := wait(); err != nil {
		t.Fatal(err)
	}
	if err := wait(); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(1); err != nil {
		t.Fatal(err)
	}
	got, err := s.Load(1)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(v.Edits, got.Edits); diff != "" {
		t.Errorf("read back (-want +got):\n%s", diff)
	}
	if h, err := s.Head(1); err != nil || h.Message != "m" || h.Edits != nil {
		t.Errorf("Head: %+v %v", h, err)
	}
	if tmp, _ := filepath.Glob(filepath.Join(dir, "versions", "*.tmp")); len(tmp) > 0 {
		t.Errorf("left %v", tmp)
	}
	if _, err := os.Stat(filepath.Join(dir, "versions", "1.json")); err != nil {
		t.Error(err)
	}
}
