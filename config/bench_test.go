package config_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/redirectd/redirectd/benchmarks/rules"
	"github.com/redirectd/redirectd/config"
)

// writeReference writes the reference rule set (10,000 exact, 1,000
// prefix, 500 regex) as TOML into a temporary folder.
func writeReference(tb testing.TB) string {
	tb.Helper()
	file := filepath.Join(tb.TempDir(), "rules.toml")
	f, err := os.Create(file)
	if err != nil {
		tb.Fatal(err)
	}
	if err := rules.WriteTOML(f, rules.Reference, "127.0.0.1:8080"); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	return file
}

// BenchmarkLoadReference measures reading, validating and compiling the
// 11,500 reference rules from TOML (target: 150 ms).
func BenchmarkLoadReference(b *testing.B) {
	file := writeReference(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := config.Load(file); err != nil {
			b.Fatal(err)
		}
	}
}
