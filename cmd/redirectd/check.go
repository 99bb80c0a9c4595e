package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/redirectd/redirectd/cmd/redirectd/internal/daemon"
	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/config/lint"
	"github.com/redirectd/redirectd/config/syntax"
	"github.com/redirectd/redirectd/internal/plural"
	"github.com/redirectd/redirectd/matcher"
)

// checkReport is what `check -format json` prints.
type checkReport struct {
	Config   string          `json:"config"`
	OK       bool            `json:"ok"`
	Errors   []string        `json:"errors,omitempty"`   // config errors (file:line)
	Counts   *matcher.Counts `json:"counts,omitempty"`   // rules as written (config.Config.Written)
	PerHost  *matcher.Counts `json:"per_host,omitempty"` // the same, once per host each is listed for
	Findings []lint.Finding  `json:"findings"`
	Skipped  []string        `json:"skipped,omitempty"` // map entries left out (invalid = "skip")
	// Locations counts the [[location]] tables (config.Config.LocationTables).
	Locations int `json:"locations,omitempty"`
	// Source is the [rules] source whose rules -fetch checked;
	// NotFetched the one whose rules were not fetched (no -fetch).
	Source     string  `json:"source,omitempty"`
	NotFetched string  `json:"not_fetched,omitempty"`
	Millis     float64 `json:"load_ms"`
}

// checkCmd runs check, or with -baseline checkBaseline: one command, so
// that one flag set (and its -h) holds every flag either takes.
func checkCmd(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("check", stderr)
	file := configFlag(fs)
	format := fs.String("format", "text", "report format: `text` or json")
	asJSON := fs.Bool("json", false, "deprecated: the same as -format json")
	fix := fs.Bool("fix-chains", false, "write each map file holding a chain, flattened, as FILE.fixed")
	base := fs.String("baseline", "", "compare -config with the config serving now (`file`): list the rules and sampled URLs whose answer changes")
	fetch := fs.Bool("fetch", false, "with [rules] source: fetch the rules from it and check them, as a node would load them")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return parseExit(err)
	}
	if !noArgs(fs, pos, stderr) || !needConfig(fs, *file, stderr) {
		return 2
	}
	if *asJSON {
		if given(fs, "format") && *format != "json" {
			fmt.Fprintf(stderr, "redirectd check: -json is -format json; -format %s contradicts it\n", *format)
			return 2
		}
		*format = "json"
	}
	if !oneOf(fs, "format", *format, stderr, "text", "json") {
		return 2
	}
	if *base != "" {
		if *fix {
			fmt.Fprintln(stderr, "redirectd check: -fix-chains checks one config: give it without -baseline")
			return 2
		}
		return checkBaseline(*base, *file, *format, stdout, stderr)
	}
	return check(*file, *format == "json", *fix, *fetch, stdout, stderr)
}

// check validates a config, looks for loops, chains, bad Locations and
// unreachable rules, and prints what it found.
func check(file string, asJSON, fix, fetch bool, stdout, stderr io.Writer) int {
	start := time.Now()
	cfg, err := loadConfig(file)
	took := time.Since(start)
	rep := checkReport{Config: file, Millis: float64(took.Microseconds()) / 1000, Findings: []lint.Finding{}}
	if err != nil {
		rep.Errors = strings.Split(err.Error(), "\n")
		return report(rep, asJSON, stdout, stderr)
	}
	rules := cfg // the config whose rules are checked: the source's with -fetch
	switch src := cfg.Reload.Source; {
	case src != "" && fetch:
		if rules, err = fetchedRules(cfg, stderr); err != nil {
			rep.Errors = strings.Split(err.Error(), "\n")
			return report(rep, asJSON, stdout, stderr)
		}
		rep.Source = src
	case src != "":
		// Said, so that "ok: 0 rules" is not read as the rules checked.
		rep.NotFetched = src
		fmt.Fprintf(stderr, "%s: the rules come from [rules] source %s, which check did not fetch: this checks the config's own settings and rules; check -fetch fetches them and checks them as a node loads them\n", file, src)
	case fetch:
		fmt.Fprintf(stderr, "redirectd check: -fetch fetches the rules of [rules] source, and %s has none\n", file)
		return 2
	}
	if err := daemon.Startable(cfg); err != nil {
		rep.Errors = strings.Split(err.Error(), "\n")
		return report(rep, asJSON, stdout, stderr)
	}
	if err := daemon.CheckCertificates(cfg); err != nil {
		rep.Errors = strings.Split(err.Error(), "\n")
		return report(rep, asJSON, stdout, stderr)
	}
	c, h := rules.Written, rules.Set.Counts()
	rep.Counts, rep.PerHost = &c, &h
	rep.Locations = rules.LocationTables
	rep.Skipped = skippedLines(rules)
	if f := lint.Check(rules.Set.Rules(), rules.Set); f != nil {
		rep.Findings = f // else [] as set above: JSON readers get a list, not null
	}
	rep.OK = true
	for _, f := range rep.Findings {
		if f.Severity == lint.Error {
			rep.OK = false
		}
	}
	if fix {
		if err := fixChains(cfg, rep.Findings, stderr); err != nil {
			fmt.Fprintf(stderr, "redirectd check: %v\n", err)
			return 1
		}
	}
	return report(rep, asJSON, stdout, stderr)
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
		status := "ok"
		if errs > 0 {
			status = plural.Count(errs, "error")
		}
		counts := daemon.RuleCounts(*rep.Counts, *rep.PerHost)
		if rep.Locations > 0 {
			counts += ", " + plural.Count(rep.Locations, "location")
		}
		fmt.Fprintf(stdout, "%s: %s: %s, %s, loaded and compiled in %.3fms\n",
			rep.Config, status, counts, plural.Count(warnings, "warning"), rep.Millis)
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
		out = append(out, fmt.Sprintf("warning: and %s skipped", plural.Count(more, "more map entry", "more map entries")))
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

// fetchedRules is cfg with the rules of its [rules] source, fetched once
// into a folder removed afterwards and loaded as a node loads them.
func fetchedRules(cfg *config.Config, stderr io.Writer) (*config.Config, error) {
	dir, err := os.MkdirTemp("", "redirectd-check-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	entry, err := daemon.FetchRules(context.Background(), cfg, dir)
	if err != nil {
		return nil, fmt.Errorf("%s: [rules] source %s: %w", cfg.Path, cfg.Reload.Source, err)
	}
	fmt.Fprintf(stderr, "%s: fetched the rules from %s\n", cfg.Path, cfg.Reload.Source)
	rules, err := config.LoadRuleSetFor(cfg.Reload, dir, entry, cfg.Set.HeaderFields()...)
	if err != nil {
		return nil, fmt.Errorf("the rules of [rules] source %s: %w", cfg.Reload.Source, err)
	}
	return rules, nil
}
