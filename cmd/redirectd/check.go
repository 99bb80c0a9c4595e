package main

import (
	"fmt"
	"io"
	"time"
)

// check validates a config and prints what it holds.
func check(args []string, stdout, stderr io.Writer) int {
	fs, file := newFlags("check", stderr)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if !needConfig(*file, stderr, "check") {
		return 2
	}
	start := time.Now()
	cfg, err := loadConfig(*file)
	if err != nil {
		fmt.Fprintf(stderr, "%v\n", err)
		return 1
	}
	took := time.Since(start)
	c := cfg.Set.Counts()
	fmt.Fprintf(stdout, "%s: ok: %d rules (%d exact, %d prefix, %d regex), loaded and compiled in %s\n",
		cfg.Path, cfg.Set.Len(), c.Exact, c.Prefix, c.Regex, took.Round(time.Microsecond))
	return 0
}
