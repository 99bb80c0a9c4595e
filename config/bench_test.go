package config_test

import (
	"os"
	"path/filepath"
	"strconv"
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

// BenchmarkLoadMap measures loading a config whose one map file holds N
// exact rules (rules.WriteMap): 100,000 unless MAP_RULES sets N. Profile
// it with -cpuprofile or -memprofile.
func BenchmarkLoadMap(b *testing.B) {
	n := 100000
	if v, err := strconv.Atoi(os.Getenv("MAP_RULES")); err == nil && v > 0 {
		n = v
	}
	dir := b.TempDir()
	mapFile, conf := filepath.Join(dir, "big.map"), filepath.Join(dir, "r.toml")
	for name, fill := range map[string]func(*os.File) error{
		mapFile: func(f *os.File) error { return rules.WriteMap(f, n) },
		conf:    func(f *os.File) error { return rules.WriteMapConfig(f, "127.0.0.1:8080", mapFile) },
	} {
		f, err := os.Create(name)
		if err != nil {
			b.Fatal(err)
		}
		if err := fill(f); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := config.Load(conf); err != nil {
			b.Fatal(err)
		}
	}
}
