package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkTestCommand measures `redirectd test` end to end on 10,000
// cases (exact, prefix, regex hits and misses) against a 5,000-entry map:
// loading the config and the case file, starting the server, sending
// every case over loopback and judging the answers (target: under a
// second).
func BenchmarkTestCommand(b *testing.B) {
	var m, cases strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&m, "/old/page-%d https://new.example/page/%d;\n", i, i)
	}
	for i := range 10000 {
		switch i % 4 {
		case 0, 1:
			fmt.Fprintf(&cases, "GET /old/page-%d -> 301 https://new.example/page/%d\n", i%5000, i%5000)
		case 2:
			fmt.Fprintf(&cases, "GET http://shop.example/p/%d?ref=x -> 308 https://new.example/products/%d?ref=x\n", i, i)
		default:
			fmt.Fprintf(&cases, "HEAD /missing/%d -> 404\n", i)
		}
	}
	cfg := "[[rule]]\nhost = \"shop.example\"\nmatch = \"regex\"\nfrom = '^/p/(\\d+)$'\nto = \"https://new.example/products/$1\"\nstatus = 308\n\n" +
		"[[map]]\nfile = \"m.map\"\nstatus = 301\n"
	dir := writeCaseFiles(b, "r.toml", cfg, "m.map", m.String(), "c.cases", cases.String())
	args := []string{"test", "-config", filepath.Join(dir, "r.toml"), filepath.Join(dir, "c.cases")}
	b.ReportAllocs()
	for b.Loop() {
		if code := run(args, io.Discard, io.Discard); code != 0 {
			_, out, errs := runCmd(args...)
			b.Fatalf("exit %d\n%.2000s\n%s", code, out, errs)
		}
	}
}
