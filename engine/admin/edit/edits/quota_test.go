package edits

import (
	"fmt"
	"github.com/redirectd/redirectd/engine/admin/edit"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestDraftEntryMemory measures what an entry held in a draft costs, for
// the figure [admin] max_draft_entries is documented with (config's
// DefaultMaxDraftEntries): entries with a 60-byte from and to, as the
// heap grows with 100,000 of them. It fails when one costs over 1 KiB.
func TestDraftEntryMemory(t *testing.T) {
	const n = 100_000
	pad := strings.Repeat("x", 50)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	ov := NewOverlay()
	at := time.Now()
	for i := range n {
		ov.Put(edit.Edit{Entry: edit.Entry{Op: edit.OpAdd, From: fmt.Sprintf("/%s%09d", pad, i), To: fmt.Sprintf("/%s%09d", pad, -i), Status: 301}, By: "ed", At: at})
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	per := float64(after.HeapAlloc-before.HeapAlloc) / n
	t.Logf("%.0f bytes of heap per draft entry of a 60-byte from and to", per)
	if per > 1024 {
		t.Errorf("a draft entry costs %.0f bytes, want at most 1 KiB", per)
	}
	runtime.KeepAlive(ov)
}
