package main

import (
	"fmt"
	"io"

	"github.com/redirectd/redirectd/cmd/redirectd/internal/baseline"
)

// checkBaseline compares file with base and reports what changes. Exit
// status: 0 when no answer changes, 1 when some does or a config does not
// load.
func checkBaseline(base, file, format string, stdout, stderr io.Writer) int {
	old, err := loadConfig(base)
	if err != nil {
		fmt.Fprintf(stderr, "%v\n", err)
		return 1
	}
	cur, err := loadConfig(file)
	if err != nil {
		fmt.Fprintf(stderr, "%v\n", err)
		return 1
	}
	rep := baseline.Compare(old, cur)
	rep.Baseline, rep.Config = base, file
	if format == "json" {
		baseline.WriteJSON(stdout, rep)
	} else {
		baseline.WriteText(stdout, rep)
	}
	if rep.Changes() {
		return 1
	}
	return 0
}
