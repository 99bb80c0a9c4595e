package config

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"unicode"

	"github.com/redirectd/redirectd/matcher"

	"github.com/redirectd/redirectd/internal/plural"
)

// rawCSV is one [[csv]] table: a bulk-redirect CSV file.
type rawCSV struct {
	File any `toml:"file"`
	// Headers are added to the answers of every row (headers.go).
	Headers any `toml:"headers"`
	// Invalid is "error" (the default) or "skip", as on [[map]]: a bad
	// row is left out and listed, not an error of the config.
	Invalid any `toml:"invalid"`
	rawGate
	rawFallback
}

// appendCSVRules reads the CSV file named by the i-th [[csv]] entry.
func appendCSVRules(k *ruleSink, i int, raw *rawCSV, d *Defaults, fl files) {
	e := &entry{file: k.file, table: "csv", index: i, loc: k.loc, errs: k.errs, ok: true}
	name := e.str("file", raw.File, true)
	hdrs := e.ownHeaders(raw.Headers, d)
	var g matcher.Rule
	e.gate(&raw.rawGate, &g)
	skip := e.skipInvalid(raw.Invalid)
	e.fallback(&raw.rawFallback, d, &g)
	if !e.ok {
		return
	}
	name = fl.resolve(name)
	k.files = append(k.files, name)
	data, err := fl.read(name)
	if err != nil {
		e.fail("file", "cannot read CSV file: %v", err)
		return
	}
	k.skip = skip
	defer func() { k.skip = false }()
	rs := parseCSV(name, data, d, func(e *Error) bool {
		k.refuse(e)
		return skip || !k.errs.full()
	})
	for i := range rs {
		rs[i].Headers = hdrs
		rs[i].Active, rs[i].Shadow = g.Active, g.Shadow
		rs[i].Fallback, rs[i].FallbackStatus = g.Fallback, g.FallbackStatus
		k.add(&rs[i])
	}
}

// ReadCSV parses a bulk-redirect CSV file (see parseCSV) with the default
// options, for `redirectd import csv`. It returns the rules of the good
// rows and an error naming file and line for each bad one, in file
// order: one bad row costs that row, not the file.
func ReadCSV(name string, data []byte) ([]matcher.Rule, []*Error) {
	var bad []*Error
	rs := parseCSV(name, data, &Defaults{Status: DefaultStatus}, func(e *Error) bool {
		bad = append(bad, e)
		return true
	})
	return rs, bad
}

// parseCSV reads the bulk-redirect CSV form, one redirect per row:
//
//	source,target,status[,preserve_query,include_subdomains,subpath_matching]
//
// as Cloudflare's Bulk Redirects export it. source is a path ("/old") or a
// host and path ("example.com/old", a scheme allowed); status may be empty
// for the default; the three flags are true or false (empty: the
// defaults, which keep the query and match neither subdomains nor
// subpaths). A first row of column names is a header (csvHeader). With
// include_subdomains the rule also answers every subdomain of the host;
// with subpath_matching it answers /old and everything under /old/,
// appending the rest of the path to the target.
//
// Each bad row is handed to bad, and reading goes on with the next row
// while bad returns true. A row the CSV reader cannot read (an unclosed
// quote) is one bad row too: the reader resumes after it.
func parseCSV(name string, data []byte, d *Defaults, bad func(*Error) bool) []matcher.Rule {
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	r.Comment = '#'
	r.TrimLeadingSpace = true
	var rules []matcher.Rule
	lastBad := -1
	for row := 0; ; row++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			line := 0
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				line = pe.StartLine
			}
			if line == lastBad || !bad(&Error{File: name, Line: line, Msg: fmt.Sprintf("cannot read the row: %v", err)}) {
				break // the reader no longer moves on, or enough said
			}
			lastBad = line
			continue
		}
		line, _ := r.FieldPos(0)
		if row == 0 && csvHeader(rec) {
			continue
		}
		rs, err := csvRow(rec, d)
		if err != nil {
			if !bad(&Error{File: name, Line: line, Msg: rowError(row, err)}) {
				break
			}
			continue
		}
		for i := range rs {
			rs[i].File, rs[i].Line = name, line
		}
		rules = append(rules, rs...)
	}
	return rules
}

// csvHeader reports whether rec, a file's first row, is a header (column
// names) rather than a redirect, and takes a UTF-8 byte order mark
// (Excel's "CSV UTF-8") off its first field. Every row's source or target
// holds a '/' (a path or a URL; only a bare host with a 410's empty target
// holds none), so a first row is a header when none of its fields holds a
// '/', one holds a letter, and its status, if given, is not a number:
// `from,to`, `source,destination,status`, `Old URL,New URL,Code`. A first
// row with a '/' is a rule, so that a bad one (`/old,/new,30l`) is an
// error naming line 1, not a row dropped as a header. The one test for
// every reader of the form: [[csv]], import csv and uploads.
func csvHeader(rec []string) bool {
	rec[0] = strings.TrimPrefix(rec[0], "\ufeff")
	letter := false
	for _, f := range rec {
		if strings.Contains(f, "/") {
			return false
		}
		letter = letter || strings.ContainsFunc(f, unicode.IsLetter)
	}
	if len(rec) >= 3 {
		if _, err := strconv.Atoi(strings.TrimSpace(rec[2])); err == nil {
			return false
		}
	}
	return letter
}

// rowError is the message of a row that cannot be read; on the first
// row, which may have been meant as a header, it says what a header is.
func rowError(row int, err error) string {
	if row == 0 {
		return err.Error() + " (a first row of column names is a header when none of them holds a '/')"
	}
	return err.Error()
}

// csvRow turns one row into its rules (two when subdomains are included).
func csvRow(rec []string, d *Defaults) ([]matcher.Rule, error) {
	if len(rec) < 2 || len(rec) > 6 {
		return nil, fmt.Errorf("a row is source,target,status[,preserve_query,include_subdomains,subpath_matching]; this one has %s", plural.Count(len(rec), "field"))
	}
	field := func(i int) string {
		if i < len(rec) {
			return strings.TrimSpace(rec[i])
		}
		return ""
	}
	flag := func(i int, name string, def bool) (bool, error) {
		switch strings.ToLower(field(i)) {
		case "":
			return def, nil
		case "true", "1", "yes":
			return true, nil
		case "false", "0", "no":
			return false, nil
		}
		return false, fmt.Errorf("%s %q is not true or false", name, field(i))
	}
	host, path, err := splitSource(field(0))
	if err != nil {
		return nil, err
	}
	// One rule for "/a?b" and "example.com/a?b": the path is a
	// [[rule]]'s from, compared with the request's path without its
	// query, so a '?' or '#' in it is refused here, at its row (which
	// `invalid = "skip"` and import csv can leave out), rather than by
	// the rule set's build; with path = "decoded" they are bytes of the
	// decoded path, which a from may hold.
	if !d.DecodedPath && strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("source %q holds '?' or '#': a source matches the request's path, without its query; write a '?' or '#' of the path as %%3F or %%23", field(0))
	}
	r := matcher.Rule{Kind: matcher.Exact, From: path, To: field(1), Status: d.Status,
		CaseInsensitive: d.CaseInsensitive, UnicodeFold: d.UnicodeFold, TrailingSlash: d.TrailingSlash, QueryString: d.QueryString,
		DecodedPath: d.DecodedPath}
	if s := field(2); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || !matcher.ValidStatus(n) {
			return nil, fmt.Errorf("status %q is not a redirect status; use 301, 302, 303, 307 or 308, or 410 or 451 (an answer with no Location: leave target empty)", s)
		}
		r.Status = n
	}
	keep, err := flag(3, "preserve_query", d.QueryString == matcher.QueryKeep)
	if err != nil {
		return nil, err
	}
	if !keep {
		r.QueryString = matcher.QueryReplace
	}
	subdomains, err := flag(4, "include_subdomains", false)
	if err != nil {
		return nil, err
	}
	subpaths, err := flag(5, "subpath_matching", false)
	if err != nil {
		return nil, err
	}
	if subdomains && host == "" {
		return nil, fmt.Errorf("include_subdomains needs a source with a host, such as example.com%s", path)
	}
	if subpaths && path != "/" {
		// /old and everything under /old/: a prefix rule on "/old/" that
		// also answers "/old", the rest of the path joined to target.
		r.Kind, r.TrailingSlash = matcher.Prefix, true
		r.From = strings.TrimSuffix(path, "/") + "/"
		if matcher.HasLocation(r.Status) && !strings.HasSuffix(r.To, "/") && !strings.Contains(r.To, "?") {
			r.To += "/"
		}
	} else if subpaths {
		r.Kind = matcher.Prefix
	}
	hosts := []string{}
	if host != "" {
		hosts = append(hosts, host)
		if subdomains {
			hosts = append(hosts, "*."+host)
		}
	}
	return perHost(r, hosts), nil
}

// splitSource splits a CSV source into host and path: "/old",
// "example.com/old" or "https://example.com/old".
func splitSource(s string) (host, path string, err error) {
	if s == "" {
		return "", "", fmt.Errorf("source is empty")
	}
	if strings.HasPrefix(s, "/") {
		return "", s, nil
	}
	written := s
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return "", "", fmt.Errorf("source %q is neither a path nor host/path", s)
	}
	// The path as written, as a source without a host and a [[rule]]'s
	// from keep it: the url package's form of it would escape a space or
	// a letter beyond ASCII, and a rule exported as a row would come back
	// as another rule of the same path.
	_, authorityPath, _ := strings.Cut(s, "://")
	path = "/"
	if i := strings.IndexAny(authorityPath, "/?#"); i >= 0 {
		if authorityPath[i] != '/' {
			return "", "", fmt.Errorf("source %q holds a query or fragment after its host; a source matches the request's path, without its query", written)
		}
		path = authorityPath[i:]
	}
	host, msg := asciiHost(u.Hostname())
	if msg != "" {
		return "", "", fmt.Errorf("host %q %s", u.Hostname(), msg)
	}
	return host, path, nil
}

// StreamCSV reads the bulk-redirect CSV form (see parseCSV) from r row by
// row, without holding the whole file, and hands fn the rules of each
// good row with its line. It stops at the first bad row, with an *Error
// naming name and the line, or at fn's first error.
func StreamCSV(name string, r io.Reader, fn func(line int, rules []matcher.Rule) error) error {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.Comment = '#'
	cr.TrimLeadingSpace = true
	cr.ReuseRecord = true
	d := &Defaults{Status: DefaultStatus}
	for row := 0; ; row++ {
		rec, err := cr.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			var pe *csv.ParseError
			if !errors.As(err, &pe) {
				return err // the reader's: a body too large, cut short
			}
			return &Error{File: name, Line: pe.StartLine, Msg: fmt.Sprintf("cannot read the row: %v", err)}
		}
		line, _ := cr.FieldPos(0)
		if row == 0 && csvHeader(rec) {
			continue
		}
		rs, err := csvRow(rec, d)
		if err != nil {
			return &Error{File: name, Line: line, Msg: rowError(row, err)}
		}
		if err := fn(line, rs); err != nil {
			return err
		}
	}
}

// Limits returns the matcher's limits with the [rules] regex budgets, for
// a rule set built outside Load (edits promoted through the admin API).
func (r *RulesReload) Limits() matcher.Limits { return r.limits() }
