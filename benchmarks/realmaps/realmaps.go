// Package realmaps finds the real sites' redirect files that tests and
// benchmarks read. They are kept beside the repository, in
// ../shared/realmaps, and never copied into it; a user's clone has none,
// so every caller skips, saying where it looked.
package realmaps

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Dir returns the folder of one site's files (such as "gwern"), looked for
// beside the module that holds the test's folder and, from a git
// worktree, beside its main checkout; it skips tb when there is none.
func Dir(tb testing.TB, site string) string {
	tb.Helper()
	root := moduleRoot(tb)
	roots := []string{root}
	if b, err := os.ReadFile(filepath.Join(root, ".git")); err == nil {
		// A worktree's .git file: "gitdir: MAIN/.git/worktrees/NAME".
		if gitdir, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: "); ok {
			roots = append(roots, filepath.Dir(filepath.Dir(filepath.Dir(gitdir))))
		}
	}
	var tried []string
	for _, r := range roots {
		dir := filepath.Join(r, "..", "shared", "realmaps", site)
		if _, err := os.Stat(dir); err == nil {
			return dir
		}
		tried = append(tried, dir)
	}
	tb.Skipf("the real redirect files of %s are absent (looked in %s): they live beside the repository, in ../shared/realmaps, and are not part of it", site, strings.Join(tried, ", "))
	return ""
}

// moduleRoot returns the folder holding go.mod, above the test's folder.
func moduleRoot(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			tb.Fatal("no go.mod above the test's folder")
		}
		dir = up
	}
}
