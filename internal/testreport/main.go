// Command testreport reads `go test -json` from stdin and writes what
// `go test` writes without -v (each package's ok or FAIL line, the output
// of the tests that failed), then every test that skipped, with its
// reason: a skip names itself in make test's summary rather than passing
// unseen. It exits 1 when a test or a package failed.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/redirectd/redirectd/internal/plural"
)

// event is one line of go test -json (test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
	Elapsed float64
}

func main() { os.Exit(run(os.Stdin, os.Stdout)) }

// run reads events from r and writes the report to w; it returns the exit
// status.
func run(r io.Reader, w io.Writer) int {
	type key struct{ pkg, test string }
	output := map[key]*strings.Builder{} // a test's (or package's) lines, until it ends
	var skips []string
	failed := false
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			fmt.Fprintln(w, sc.Text()) // the build's own output
			continue
		}
		k := key{e.Package, e.Test}
		switch e.Action {
		case "build-output":
			io.WriteString(w, e.Output) // a package that does not build
		case "build-fail":
			failed = true
		case "output":
			b := output[k]
			if b == nil {
				b = &strings.Builder{}
				output[k] = b
			}
			b.WriteString(e.Output)
		case "fail":
			failed = true
			if b := output[k]; b != nil {
				io.WriteString(w, b.String())
			}
			if e.Test == "" && output[k] == nil {
				fmt.Fprintf(w, "FAIL\t%s\n", e.Package)
			}
			delete(output, k)
		case "skip":
			if e.Test != "" {
				skips = append(skips, fmt.Sprintf("%s %s: %s", e.Package, e.Test, skipReason(output[k])))
			} else if b := output[k]; b != nil {
				io.WriteString(w, b.String()) // "?  pkg [no test files]"
			}
			delete(output, k)
		case "pass":
			if e.Test == "" {
				if b := output[k]; b != nil {
					// The package's own lines end with its "ok" line.
					io.WriteString(w, lastLines(b.String()))
				}
			}
			delete(output, k)
		}
	}
	if len(skips) > 0 {
		fmt.Fprintf(w, "\n%s skipped:\n", plural.Count(len(skips), "test"))
		for _, s := range skips {
			fmt.Fprintln(w, "  "+s)
		}
	}
	if failed {
		return 1
	}
	return 0
}

// skipReason is the message a skipped test gave (t.Skip's), without the
// RUN and SKIP lines around it.
func skipReason(b *strings.Builder) string {
	if b == nil {
		return "(no reason given)"
	}
	var lines []string
	for _, l := range strings.Split(b.String(), "\n") {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- SKIP") {
			continue
		}
		lines = append(lines, t)
	}
	if len(lines) == 0 {
		return "(no reason given)"
	}
	return strings.Join(lines, " ")
}

// lastLines is a passing package's output without -v's lines: its "ok"
// line (and a coverage line).
func lastLines(s string) string {
	var out strings.Builder
	for _, l := range strings.SplitAfter(s, "\n") {
		if strings.HasPrefix(l, "ok ") || strings.HasPrefix(l, "ok\t") || strings.HasPrefix(l, "coverage:") {
			out.WriteString(l)
		}
	}
	return out.String()
}
