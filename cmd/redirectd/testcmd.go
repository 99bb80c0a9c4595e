package main

import (
	"fmt"
	"io"

	"github.com/redirectd/redirectd/cmd/redirectd/internal/casetest"
)

// test runs case files against a config's rules, answered by the real
// server on a loopback port. Exit status: 0 when every case passes, 1 when
// one fails or an input does not load (the config, a case file) or the
// server cannot start, 2 for bad usage.
func test(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("test", stderr)
	file := configFlag(fs)
	format := fs.String("format", "text", "report format: `text` or junit")
	out := fs.String("o", "", "write the report to `file` instead of standard output")
	host := fs.String("host", casetest.DefaultHost, "Host sent for cases written as a path")
	names, err := parseArgs(fs, args)
	if err != nil {
		return parseExit(err)
	}
	if !needConfig(fs, *file, stderr) || !oneOf(fs, "format", *format, stderr, "text", "junit") {
		return 2
	}
	if len(names) == 0 {
		fmt.Fprintln(stderr, "redirectd test: give one or more case files, such as redirects.cases")
		return 2
	}
	suite, err := casetest.Read(names)
	if err != nil {
		fmt.Fprintf(stderr, "%v\n", err)
		return 1
	}
	cfg, err := loadConfig(*file)
	if err != nil {
		fmt.Fprintf(stderr, "%v\n", err)
		return 1
	}
	return casetest.Run(cfg, suite, casetest.Options{Format: *format, Out: *out, Host: *host}, stdout, stderr)
}
