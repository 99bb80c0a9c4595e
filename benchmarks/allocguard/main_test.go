package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestGuard(t *testing.T) {
	re := regexp.MustCompile(`^Benchmark(Serve|Lookup)(/|$)`)
	tests := []struct {
		name     string
		in       string
		problems []string
		checked  int
	}{
		{"zero allocs pass", "BenchmarkServe/exact-2   2000   339.7 ns/op   150.13 MB/s   0 B/op   0 allocs/op\nok x 0.1s\n", nil, 1},
		{"an allocation fails", "BenchmarkLookup/miss-2   2000   66 ns/op   16 B/op   1 allocs/op\n", []string{"BenchmarkLookup/miss: 1 allocs/op, want 0"}, 1},
		{"without -benchmem fails", "BenchmarkServe/exact-2   2000   339.7 ns/op\n", []string{"BenchmarkServe/exact: no allocs/op figure (run with -benchmem)"}, 1},
		{"other benchmarks may allocate", "BenchmarkForward-2   2000   100000 ns/op   900 B/op   12 allocs/op\n", nil, 0},
		{"a failed package fails", "--- FAIL: BenchmarkServe\nFAIL\tgithub.com/x/engine\t0.1s\n", []string{"--- FAIL: BenchmarkServe", "FAIL\tgithub.com/x/engine\t0.1s"}, 0},
		{"a name without GOMAXPROCS suffix", "BenchmarkServe   10   5 ns/op   0 B/op   0 allocs/op\n", nil, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			problems, checked, err := guard(strings.NewReader(tt.in), re)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.problems, problems); diff != "" || checked != tt.checked {
				t.Errorf("problems (-want +got):\n%s\nchecked %d, want %d", diff, checked, tt.checked)
			}
		})
	}
}
