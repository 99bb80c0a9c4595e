package browsertest

import (
	"os"
	"path/filepath"
	"testing"
)

// TestStartLeavesNoTempFolders checks that a browser started for a test
// leaves nothing in the temporary folder once the test ends: Chromium
// makes a singleton folder in its TMPDIR and does not remove it.
func TestStartLeavesNoTempFolders(t *testing.T) {
	tmp, err := os.MkdirTemp("", "rdt") // short: Chromium's socket path must fit
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	t.Setenv("TMPDIR", tmp)
	t.Run("browser", func(t *testing.T) { Start(t) })
	left, err := filepath.Glob(filepath.Join(tmp, "org.chromium.*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(left) > 0 {
		entries, _ := os.ReadDir(tmp)
		t.Fatalf("left in TMPDIR after the test: %v (all: %v)", left, entries)
	}
}
