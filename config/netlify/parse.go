package netlify

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/redirectd/redirectd/config/importer"
	"github.com/redirectd/redirectd/internal/ascii"
)

// Redirect is one Netlify rule as written.
type Redirect struct {
	Line int
	// Text is the rule as written, for notes and comments.
	Text string
	// Host is the host of a from URL (lower case), "" for any host.
	Host string
	// From is the path pattern: literal segments, :placeholders and a
	// final * (the splat).
	From string
	// Query holds the query parameters to match, name=value, where a
	// value starting with ':' is a placeholder (any value).
	Query []Param
	To    string
	// Status is 0 when none is given (a 301).
	Status int
	Force  bool
	// Conditions are Country=, Language=, Role= and Cookie= as written.
	Conditions []string
}

// Param is one query parameter to match.
type Param struct{ Name, Value string }

// Parse reads a _redirects file. A line it cannot read is noted and
// skipped; every other line is one Redirect.
func Parse(file string, data []byte) ([]Redirect, []importer.Note) {
	var out []Redirect
	var notes []importer.Note
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(strings.TrimSuffix(line, "\r"))
		if line == "" || line[0] == '#' {
			continue
		}
		if !utf8.ValidString(line) || strings.ContainsFunc(line, func(r rune) bool { return r != '\t' && ascii.IsControl(r) }) {
			// A config is UTF-8 (TOML), and its paths hold no control
			// characters: such bytes are written percent-encoded.
			notes = append(notes, importer.Note{File: file, Line: i + 1, Kind: importer.LeftOut,
				Msg: fmt.Sprintf("%q: not valid UTF-8, or holds a control character; write such bytes percent-encoded; left out", line)})
			continue
		}
		fields := strings.Fields(line)
		for k, f := range fields {
			if f[0] == '#' { // a comment to the end of the line
				fields = fields[:k]
				break
			}
		}
		r, err := parseFields(fields)
		if err != nil {
			notes = append(notes, importer.Note{File: file, Line: i + 1, Kind: importer.LeftOut, Msg: fmt.Sprintf("%s: %v; left out", line, err)})
			continue
		}
		r.Line, r.Text = i+1, strings.Join(fields, " ")
		out = append(out, r)
	}
	return out, notes
}

func parseFields(f []string) (Redirect, error) {
	var r Redirect
	if err := r.setFrom(f[0]); err != nil {
		return r, err
	}
	i := 1
	for ; i < len(f) && isParam(f[i]); i++ {
		name, value, _ := strings.Cut(f[i], "=")
		r.Query = append(r.Query, Param{name, value})
	}
	if i == len(f) {
		return r, fmt.Errorf("no target after the path; a rule is `from to [status][!] [conditions]`")
	}
	r.To = f[i]
	if !strings.HasPrefix(r.To, "/") && !strings.HasPrefix(r.To, "http://") && !strings.HasPrefix(r.To, "https://") {
		return r, fmt.Errorf("the target %q is neither a path nor an http(s) URL", r.To)
	}
	i++
	if i < len(f) && isStatus(f[i]) {
		r.Status, _ = strconv.Atoi(f[i][:3])
		r.Force = strings.HasSuffix(f[i], "!")
		i++
	}
	for ; i < len(f); i++ {
		key, _, ok := strings.Cut(f[i], "=")
		switch strings.ToLower(key) {
		case "country", "language", "role", "cookie":
			if ok {
				r.Conditions = append(r.Conditions, f[i])
				continue
			}
		}
		return r, fmt.Errorf("%q is not a status or a condition (Country=, Language=, Role=, Cookie=)", f[i])
	}
	return r, nil
}

// setFrom reads the from path or URL.
func (r *Redirect) setFrom(from string) error {
	if strings.Contains(from, "://") {
		u, err := url.Parse(from)
		if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
			return fmt.Errorf("the path %q is neither a path nor an http(s) URL with a host", from)
		}
		r.Host = strings.ToLower(u.Hostname())
		from = u.EscapedPath()
		if from == "" {
			from = "/"
		}
	}
	if !strings.HasPrefix(from, "/") {
		return fmt.Errorf("the path %q does not start with /", from)
	}
	r.From = from
	return nil
}

// isParam reports whether f is a query parameter to match (name=value)
// rather than the target.
func isParam(f string) bool {
	return strings.Contains(f, "=") && !strings.HasPrefix(f, "/") && !strings.Contains(f, "://")
}

// isStatus reports whether f is a status: three digits and an optional !.
func isStatus(f string) bool {
	f = strings.TrimSuffix(f, "!")
	if len(f) != 3 {
		return false
	}
	for _, c := range []byte(f) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
