// Command allocguard fails when a hot-path benchmark allocates. It reads
// `go test -bench ... -benchmem` output on stdin, echoes it, and exits 1
// when a benchmark whose name matches -match reports more than 0 allocs/op,
// when one was run without -benchmem, or when none matched at all (so a
// renamed benchmark cannot make the guard pass by running nothing).
//
//	go test -run '^$' -bench . -benchmem -benchtime 1000x ./engine ./matcher | go run ./benchmarks/allocguard -match 'Serve|Lookup'
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
)

func main() {
	match := flag.String("match", ".", "regexp of the benchmark names (with sub-benchmarks, as printed) that must not allocate")
	flag.Parse()
	re, err := regexp.Compile(*match)
	if err != nil {
		fmt.Fprintf(os.Stderr, "allocguard: -match %q: %v\n", *match, err)
		os.Exit(2)
	}
	problems, checked, err := guard(io.TeeReader(os.Stdin, os.Stdout), re)
	if err != nil {
		fmt.Fprintf(os.Stderr, "allocguard: %v\n", err)
		os.Exit(2)
	}
	if checked == 0 {
		problems = append(problems, fmt.Sprintf("no benchmark matching %q was run: check the -bench pattern and the names", *match))
	}
	if len(problems) > 0 {
		fmt.Fprintf(os.Stderr, "allocguard: the hot path allocates:\n  %s\n", strings.Join(problems, "\n  "))
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "allocguard: %d hot-path benchmarks, 0 allocs/op each\n", checked)
}

// guard checks every benchmark result line of r whose name matches re and
// returns what is wrong with them and how many it checked. A FAIL line
// (a benchmark or test that failed) is a problem too.
func guard(r io.Reader, re *regexp.Regexp) (problems []string, checked int, err error) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "FAIL") || strings.HasPrefix(line, "--- FAIL") {
			problems = append(problems, line)
			continue
		}
		f := strings.Fields(line)
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		name := trimProcs(f[0])
		if !re.MatchString(name) {
			continue
		}
		checked++
		allocs := -1.0
		for i := 2; i+1 < len(f); i += 2 { // value unit pairs after the iteration count
			if f[i+1] == "allocs/op" {
				allocs, _ = strconv.ParseFloat(f[i], 64)
			}
		}
		switch {
		case allocs < 0:
			problems = append(problems, name+": no allocs/op figure (run with -benchmem)")
		case allocs > 0:
			problems = append(problems, fmt.Sprintf("%s: %g allocs/op, want 0", name, allocs))
		}
	}
	return problems, checked, sc.Err()
}

// trimProcs drops the -GOMAXPROCS suffix go test adds to a name.
func trimProcs(name string) string {
	if i := strings.LastIndexByte(name, '-'); i > 0 {
		if _, err := strconv.Atoi(name[i+1:]); err == nil {
			return name[:i]
		}
	}
	return name
}
