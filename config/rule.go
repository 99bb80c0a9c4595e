package config

import (
	"fmt"
	"strings"

	"golang.org/x/net/idna"

	"github.com/redirectd/redirectd/matcher"
)

// rawRule is one [[rule]] table. Fields are decoded untyped and converted
// by hand, so that a wrong type is reported with its rule and line rather
// than as the decoder's position-less message; nil means absent.
type rawRule struct {
	Match  any `toml:"match"`
	From   any `toml:"from"`
	To     any `toml:"to"`
	Status any `toml:"status"`
	Host   any `toml:"host"`
	Query  any `toml:"query"`
	When   any `toml:"when"`
	// RequestURI compares from with the path and query as sent.
	RequestURI any `toml:"request_uri"`
	// Headers are added to the rule's answers (headers.go).
	Headers any `toml:"headers"`
	rawOptions
	rawGate
	rawFallback
}

// rawOptions are the options a rule, a [[map]] and [rules.defaults] share.
type rawOptions struct {
	CaseInsensitive any `toml:"case_insensitive"`
	TrailingSlash   any `toml:"trailing_slash"`
	QueryString     any `toml:"query_string"`
	// Path is "normalized" (the default) or "decoded" (matcher.Rule.DecodedPath).
	Path any `toml:"path"`
}

// rawDefaults is [rules.defaults].
type rawDefaults struct {
	Status any `toml:"status"`
	// URI and MergeSlashes are the rule set's, not a rule's (matcher.URI).
	URI          any `toml:"uri"`
	MergeSlashes any `toml:"merge_slashes"`
	rawOptions
	rawFallback
}

// Defaults are the values of rule options that a rule or map leaves out.
type Defaults struct {
	Status          int
	CaseInsensitive bool
	UnicodeFold     bool
	TrailingSlash   bool
	QueryString     matcher.QueryMode
	// Fallback and FallbackStatus make rules fallbacks (fallback.go).
	Fallback       bool
	FallbackStatus []int
	DecodedPath    bool
	// URI is which path the rule set compares ([rules.defaults] uri,
	// merge_slashes): of the whole set, as nginx builds $uri once per
	// request before any rule sees it.
	URI matcher.URI
	// Headers are [server] headers, which a rule's own extend.
	Headers []matcher.Header
	// geoip says whether [geoip] names a database (when.country).
	geoip bool
}

// rawMap is one [[map]] table.
type rawMap struct {
	File any `toml:"file"`
	// Format is "nginx" (the default) or "tsv" (maptsv.go).
	Format     any `toml:"format"`
	Match      any `toml:"match"`
	Status     any `toml:"status"`
	Host       any `toml:"host"`
	RequestURI any `toml:"request_uri"`
	// Invalid is "error" (the default) or "skip": what a bad entry does.
	Invalid any `toml:"invalid"`
	// Headers are added to the answers of every entry (headers.go).
	Headers any `toml:"headers"`
	When    any `toml:"when"`
	rawOptions
	rawGate
	rawFallback
}

// entry converts the fields of one [[rule]] or [[map]] table, recording an
// error that names the key and its line for each wrong one.
type entry struct {
	file  string
	table string
	index int
	loc   *locator
	errs  *errorList
	ok    bool
}

func (e *entry) fail(key, format string, args ...any) {
	e.ok = false
	e.errs.add(&Error{File: e.file, Line: e.loc.line(e.table, e.index, key), What: entryName(e.table, e.index), Key: key,
		Msg: fmt.Sprintf(format, args...)})
}

func (e *entry) str(key string, v any, required bool) string {
	if v == nil {
		if required {
			e.fail(key, "missing; every [[%s]] needs it", e.table)
		}
		return ""
	}
	s, isStr := v.(string)
	if !isStr {
		e.fail(key, "must be a string, not %s", tomlType(v))
	}
	return s
}

// subTable reads the table at key, which must hold something: nil when
// absent, or when it is not a table (want says what it must be: "a table
// such as ...") or is empty (ifEmpty says what to do instead), each
// reported.
func (e *entry) subTable(key string, v any, want, ifEmpty string) map[string]any {
	if v == nil {
		return nil
	}
	t, ok := v.(map[string]any)
	if !ok {
		e.fail(key, "must be %s, not %s", want, tomlType(v))
		return nil
	}
	if len(t) == 0 {
		e.fail(key, "the table is empty; %s", ifEmpty)
		return nil
	}
	return t
}

func (e *entry) status(v any, def int) int {
	if v == nil {
		return def
	}
	n, isInt := v.(int64)
	if !isInt {
		e.fail("status", "must be an integer, not %s", tomlType(v))
		return 0
	}
	if !matcher.ValidStatus(int(n)) {
		e.fail("status", "%d is not a redirect status; use 301, 302, 303, 307 or 308, or 410 or 451 (an answer with no Location: leave to out)", n)
	}
	return int(n)
}

func (e *entry) kind(v any) matcher.Kind {
	s := e.str("match", v, false)
	k, ok := matcher.ParseKind(s)
	if !ok {
		e.fail("match", "%q is not a match kind; use \"exact\", \"prefix\" or \"regex\"", s)
	}
	return k
}

// hosts reads host: one name or a list of them; nil means any host.
// "*.example.com" is any subdomain of example.com, not example.com itself.
func (e *entry) hosts(v any) []string {
	var names []string
	switch h := v.(type) {
	case nil:
		return nil
	case string:
		names = []string{h}
	case []any:
		for _, x := range h {
			s, ok := x.(string)
			if !ok {
				e.fail("host", "must be a string or a list of strings, not a list holding %s", tomlType(x))
				return nil
			}
			names = append(names, s)
		}
		if len(names) == 0 {
			e.fail("host", "the list is empty; leave host out for every host")
		}
	default:
		e.fail("host", "must be a string or a list of strings, not %s", tomlType(v))
		return nil
	}
	for i, h := range names {
		name, msg := asciiHost(h)
		if msg != "" {
			e.fail("host", "%q %s", h, msg)
		}
		names[i] = name
	}
	return names
}

// RuleHost returns a rule's host as the config takes it (lower case, no
// trailing dot, an internationalised name as its punycode), or an error
// saying what is wrong with it: the one check of a rule's host, for the
// rules an edit makes too, so that what an edit serves a config can hold.
func RuleHost(h string) (string, error) {
	name, msg := asciiHost(h)
	if msg != "" {
		return h, fmt.Errorf("host %q %s", h, msg)
	}
	return name, nil
}

// asciiHost returns a configured host name as requests carry it: lower
// case, without a trailing dot, an internationalised name in its punycode
// form (bücher.example is xn--bcher-kva.example, as browsers send it). It
// says what is wrong with a name it cannot take.
func asciiHost(h string) (string, string) {
	h = strings.TrimSuffix(h, ".")
	wild, name := "", h
	if strings.HasPrefix(h, "*.") {
		wild, name = "*.", h[2:]
	}
	for i := 0; i < len(name); i++ {
		if name[i] >= 0x80 {
			a, err := idna.Lookup.ToASCII(name)
			if err != nil {
				return h, "is not a valid internationalised host name: " + err.Error()
			}
			name = a
			break
		}
	}
	name = strings.ToLower(name)
	return wild + name, checkHost(wild + name)
}

// checkHost says what is wrong with an ASCII host name, or "".
func checkHost(h string) string {
	name := strings.TrimPrefix(h, "*.")
	if name == "" {
		return "is not a host name"
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 0x80:
			return "is not ASCII"
		case c == '*':
			return "has a '*' other than a leading \"*.\"; write *.example.com for any subdomain"
		case strings.IndexByte("/:?#@ \t[]", c) >= 0:
			return "is not a host name; give the name alone, without scheme, port or path"
		}
	}
	return ""
}

// flag reads a boolean option, def when absent.
func (e *entry) flag(key string, v any, def bool) bool {
	if v == nil {
		return def
	}
	b, ok := v.(bool)
	if !ok {
		e.fail(key, "must be true or false, not %s", tomlType(v))
	}
	return b
}

// trailingSlash reads trailing_slash: "ignore" (true) or "strict".
func (e *entry) trailingSlash(v any, def bool) bool {
	return e.twoWords("trailing_slash", v, def, "strict", "ignore", `"ignore" or "strict"`)
}

// twoWords reads key, a choice of two words: def when absent, false for
// no, true for yes; any other value is reported, with use saying what
// the choices are.
func (e *entry) twoWords(key string, v any, def bool, no, yes, use string) bool {
	if v == nil {
		return def
	}
	switch s := e.str(key, v, false); s {
	case yes:
		return true
	case no:
		return false
	default:
		e.fail(key, "%q is not a choice; use %s", s, use)
	}
	return false
}

// queryString reads query_string: "keep", "drop" or "replace".
func (e *entry) queryString(v any, def matcher.QueryMode) matcher.QueryMode {
	if v == nil {
		return def
	}
	s := e.str("query_string", v, false)
	m, ok := matcher.ParseQueryMode(s)
	if !ok {
		e.fail("query_string", "%q is not a choice; use \"keep\", \"drop\" or \"replace\"", s)
	}
	return m
}

// requestURI reads request_uri, which prefix rules cannot have: nginx's
// $request_uri holds the query, which no path prefix may end before.
func (e *entry) requestURI(v any, k matcher.Kind) bool {
	on := e.flag("request_uri", v, false)
	if on && k == matcher.Prefix {
		e.fail("request_uri", "true compares from with the path and query as sent, which prefix rules cannot do; "+
			"use match = \"exact\" or \"regex\" (an nginx map on $request_uri is exact keys and ~ regexes), or leave request_uri out")
	}
	return on
}

// skipInvalid reads [[map]] invalid: "error" (false, the default) or "skip".
func (e *entry) skipInvalid(v any) bool {
	return e.twoWords("invalid", v, false, "error", "skip", `"error" (a bad entry is an error of the config) or "skip" (it is left out and logged)`)
}

// options applies the shared options over the defaults.
func (e *entry) options(o *rawOptions, d *Defaults, r *matcher.Rule) {
	r.CaseInsensitive, r.UnicodeFold = e.caseInsensitive(o.CaseInsensitive, d)
	r.TrailingSlash = e.trailingSlash(o.TrailingSlash, d.TrailingSlash)
	r.QueryString = e.queryString(o.QueryString, d.QueryString)
	r.DecodedPath = e.pathForm(o.Path, d.DecodedPath)
}

// caseInsensitive reads case_insensitive: true (ASCII letters, as nginx's
// map and ~* compare), false, or "unicode" (every letter: the decoded
// path lower-cased, as sites that look up lower-cased paths do).
func (e *entry) caseInsensitive(v any, d *Defaults) (fold, unicode bool) {
	if s, ok := v.(string); ok {
		if s != "unicode" {
			e.fail("case_insensitive", "must be true or false, or \"unicode\" to fold every letter of the decoded path (path = \"decoded\"), not %q", s)
		}
		return true, true
	}
	if v == nil {
		return d.CaseInsensitive, d.UnicodeFold
	}
	return e.flag("case_insensitive", v, false), false
}

// pathForm reads path: "normalized" (false) or "decoded" (true).
func (e *entry) pathForm(v any, def bool) bool {
	return e.twoWords("path", v, def, "normalized", "decoded", `"normalized" (escapes of unreserved characters decoded, the rest as sent) or "decoded" (every escape decoded, as nginx's $uri)`)
}

// perHost returns r once per host (r itself for no host).
func perHost(r matcher.Rule, hosts []string) []matcher.Rule {
	if len(hosts) == 0 {
		return []matcher.Rule{r}
	}
	out := make([]matcher.Rule, 0, len(hosts))
	for _, h := range hosts {
		r.Host = h
		out = append(out, r)
	}
	return out
}

// tomlType names the TOML type of a decoded value for messages.
func tomlType(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "a table"
	}
	return fmt.Sprintf("%T", v)
}

// convertRule turns the i-th [[rule]] table into rules, one per host. The
// rule's own checks (a regex that compiles, a To without control
// characters) are left to matcher.Compile, whose errors Load places on
// their key's line.
func convertRule(file string, i int, raw *rawRule, d *Defaults, loc *locator, errs *errorList) ([]matcher.Rule, bool) {
	e := &entry{file: file, table: "rule", index: i, loc: loc, errs: errs, ok: true}
	status := e.status(raw.Status, d.Status)
	r := matcher.Rule{
		Kind: e.kind(raw.Match),
		From: e.str("from", raw.From, true),
		// 410 and 451 have no Location: to is left out (matcher.Compile
		// refuses one given).
		To:      e.str("to", raw.To, matcher.HasLocation(status)),
		Status:  status,
		Headers: e.ownHeaders(raw.Headers, d),
		File:    file,
		Line:    loc.header("rule", i),
	}
	e.options(&raw.rawOptions, d, &r)
	r.RequestURI = e.requestURI(raw.RequestURI, r.Kind)
	r.Query = e.query(raw.Query)
	e.gate(&raw.rawGate, &r)
	e.fallback(&raw.rawFallback, d, &r)
	r.When = e.when(raw.When, d.geoip)
	hosts := e.hosts(raw.Host)
	return perHost(r, hosts), e.ok
}

// query reads query conditions: a table of parameter names to the value
// each must have, "*" for any value.
func (e *entry) query(v any) []matcher.QueryCond {
	t := e.subTable("query", v, "a table of parameter names to values, such as { utm_source = \"newsletter\", ref = \"*\" }", "leave query out to match any query")
	if t == nil {
		return nil
	}
	conds := make([]matcher.QueryCond, 0, len(t))
	for name, val := range t {
		s, ok := val.(string)
		if !ok {
			e.fail("query", "parameter %q must be a string (\"*\" for any value), not %s", name, tomlType(val))
			continue
		}
		if name == "" {
			e.fail("query", "a parameter name is empty")
			continue
		}
		conds = append(conds, matcher.QueryCond{Name: name, Value: s})
	}
	return conds // in map order: the matcher sorts them
}

// convertDefaults reads [rules.defaults].
func convertDefaults(file string, raw *rawDefaults, loc *locator, errs *errorList) Defaults {
	d := Defaults{Status: DefaultStatus}
	if raw == nil {
		return d
	}
	e := &entry{file: file, table: "rules.defaults", loc: loc, errs: errs, ok: true}
	d.Status = e.status(raw.Status, DefaultStatus)
	var r matcher.Rule
	e.options(&raw.rawOptions, &d, &r)
	d.CaseInsensitive, d.TrailingSlash, d.QueryString = r.CaseInsensitive, r.TrailingSlash, r.QueryString
	e.fallback(&raw.rawFallback, &d, &r)
	d.Fallback, d.FallbackStatus = r.Fallback, r.FallbackStatus
	d.UnicodeFold, d.DecodedPath = r.UnicodeFold, r.DecodedPath
	d.URI = e.uriMode(raw.URI, raw.MergeSlashes)
	return d
}

// uriMode reads uri ("normalized", the default, or "nginx") and
// merge_slashes, which only "nginx" has.
func (e *entry) uriMode(v, merge any) matcher.URI {
	var u matcher.URI
	if v != nil {
		switch s := e.str("uri", v, false); s {
		case "normalized":
		case "nginx":
			u.Nginx = true
		default:
			e.fail("uri", "%q is not a choice; use \"normalized\" (each rule compares the path its `path` says) or \"nginx\" (every rule compares nginx's $uri, and a path nginx refuses is answered 400)", s)
		}
	}
	if merge != nil {
		u.KeepSlashes = !e.flag("merge_slashes", merge, true)
		if !u.Nginx && e.ok {
			e.fail("merge_slashes", "applies to nginx's $uri only; add uri = \"nginx\"")
		}
	}
	return u
}
