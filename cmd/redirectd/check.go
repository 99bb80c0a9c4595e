package main

import (
	"encoding/json"
	"fmt"
	"github.com/redirectd/redirectd/config/syntax"
	"github.com/redirectd/redirectd/engine/tlsconf"
	"io"
	"os"
	"strings"
	"time"

	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/config/lint"
	"github.com/redirectd/redirectd/matcher"
)

// checkReport is what `check -json` prints.
type checkReport struct {
	Config   string          `json:"config"`
	OK       bool            `json:"ok"`
	Errors   []string        `json:"errors,omitempty"` // config errors (file:line)
	Counts   *matcher.Counts `json:"counts,omitempty"`
	Findings []lint.Finding  `json:"findings"`
	Skipped  []string        `json:"skipped,omitempty"` // map entries left out (invalid = "skip")
	Millis   float64         `json:"load_ms"`
}

// check validates a config, looks for loops, chains, bad Locations and
// unreachable rules, and prints what it found.
func check(args []string, stdout, stderr io.Writer) int {
	fs, file := newFlags("check", stderr)
	asJSON := fs.Bool("json", false, "print the report as JSON")
	fix := fs.Bool("fix-chains", false, "write each map file holding a chain, flattened, as FILE.fixed")
	if err := fs.Parse(args); err != nil {
		return parseExit(err)
	}
	if !noArgs(fs, stderr) {
		return 2
	}
	if !needConfig(*file, stderr, "check") {
		return 2
	}
	start := time.Now()
	cfg, err := loadConfig(*file)
	took := time.Since(start)
	rep := checkReport{Config: *file, Millis: float64(took.Microseconds()) / 1000, Findings: []lint.Finding{}}
	if err != nil {
		rep.Errors = strings.Split(err.Error(), "\n")
		return report(rep, *asJSON, stdout, stderr)
	}
	if err := startable(cfg); err != nil {
		rep.Errors = strings.Split(err.Error(), "\n")
		return report(rep, *asJSON, stdout, stderr)
	}
	if err := tlsconf.CheckCertificates(certSettings(cfg)); err != nil {
		rep.Errors = strings.Split(err.Error(), "\n")
		return report(rep, *asJSON, stdout, stderr)
	}
	c := cfg.Set.Counts()
	rep.Counts = &c
	rep.Skipped = skippedLines(cfg)
	rep.Findings = lint.Check(cfg.Set.Rules(), cfg.Set)
	rep.OK = true
	for _, f := range rep.Findings {
		if f.Severity == lint.Error {
			rep.OK = false
		}
	}
	if *fix {
		if err := fixChains(cfg, rep.Findings, stderr); err != nil {
			fmt.Fprintf(stderr, "redirectd check: %v\n", err)
			return 1
		}
	}
	return report(rep, *asJSON, stdout, stderr)
}

func report(rep checkReport, asJSON bool, stdout, stderr io.Writer) int {
	code := 0
	if !rep.OK {
		code = 1
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(rep)
		return code
	}
	for _, e := range rep.Errors {
		fmt.Fprintln(stderr, e)
	}
	for _, e := range rep.Skipped {
		fmt.Fprintf(stderr, "%s\n", e)
	}
	warnings, errs := len(rep.Skipped), 0
	for _, f := range rep.Findings {
		fmt.Fprintf(stderr, "%s: %s: %s\n", f.Rules[0].Source, f.Severity, f.Message)
		if f.Severity == lint.Error {
			errs++
		} else {
			warnings++
		}
	}
	if rep.Counts != nil {
		c := rep.Counts
		status := "ok"
		if errs > 0 {
			status = fmt.Sprintf("%d errors", errs)
		}
		fmt.Fprintf(stdout, "%s: %s: %d rules (%d exact, %d prefix, %d regex), %d warnings, loaded and compiled in %.3fms\n",
			rep.Config, status, c.Exact+c.Prefix+c.Regex, c.Exact, c.Prefix, c.Regex, warnings, rep.Millis)
	}
	return code
}

// skippedLines says which map entries cfg left out, one warning a line:
// "r.map:3: warning: map entry left out (invalid = "skip"): from: ...".
func skippedLines(cfg *config.Config) []string {
	var out []string
	for _, e := range cfg.Skipped {
		out = append(out, fmt.Sprintf("%s: warning: map entry left out (invalid = \"skip\"): %s", e.Where(), e.Reason()))
	}
	if more := cfg.SkippedEntries - len(cfg.Skipped); more > 0 {
		out = append(out, fmt.Sprintf("warning: and %d more map entries skipped", more))
	}
	return out
}

// fixChains writes, for every map file holding the first rule of a chain,
// FILE.fixed: the same entries with each chain's first rule pointing
// straight at the chain's final Location.
func fixChains(cfg *config.Config, findings []lint.Finding, stderr io.Writer) error {
	final := map[string]string{} // source -> final Location
	files := map[string]bool{}
	for _, f := range findings {
		if f.Kind == "chain" {
			final[f.Rules[0].Source] = f.Final
			file := f.Rules[0].Source[:strings.LastIndexByte(f.Rules[0].Source, ':')]
			if file != cfg.Path {
				files[file] = true
			}
		}
	}
	all := cfg.Set.Rules()
	for file := range files {
		var b strings.Builder
		fmt.Fprintf(&b, "# %s with its redirect chains flattened by redirectd check -fix-chains.\n", file)
		done := map[string]bool{}
		for _, r := range all {
			if r.File != file || done[r.Source()] {
				continue // a rule listed for several hosts is one entry
			}
			done[r.Source()] = true
			to := r.To
			if f, ok := final[r.Source()]; ok {
				to = f
			}
			from := r.From
			switch {
			case r.Kind == matcher.Regex && strings.HasPrefix(from, "(?i)"):
				from = "~*" + from[len("(?i)"):]
			case r.Kind == matcher.Regex:
				from = "~" + from
			case strings.HasPrefix(from, "~") || strings.HasPrefix(from, `\`):
				from = `\` + from // the map reader drops one backslash before a key, as nginx does
			}
			fmt.Fprintf(&b, "%s %s;\n", syntax.Quote(from), syntax.Quote(to))
		}
		if err := os.WriteFile(file+".fixed", []byte(b.String()), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "wrote %s.fixed\n", file)
	}
	return nil
}
