package apache

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/redirectd/redirectd/config/importer"
)

// isRedirect reports whether d is one of mod_alias's redirects.
func isRedirect(d *Directive) bool {
	switch strings.ToLower(d.Name) {
	case "redirect", "redirectmatch", "redirectpermanent", "redirecttemp":
		return true
	}
	return false
}

// aliasStatus reads mod_alias's optional status word.
func aliasStatus(a string) (int, bool) {
	switch strings.ToLower(a) {
	case "permanent":
		return 301, true
	case "temp":
		return 302, true
	case "seeother":
		return 303, true
	case "gone":
		return 410, true
	}
	if n, err := strconv.Atoi(a); err == nil && n >= 100 && n <= 599 {
		return n, true
	}
	return 0, false
}

// aliasSteps writes mod_alias's redirects, in the order written: the
// first that matches answers (translate_alias_redir, fixup_redir).
//
// Redirect's URL-path matches whole segments (alias_matches: /old is
// /old and /old/..., not /older), on the decoded path with slashes
// merged, which nginx's $uri is; the rest of the path, escaped, is
// appended to the URL, then the query. RedirectMatch's regex is
// searched in the decoded path and its groups fill the URL.
func (t *translator) aliasSteps(ds []*Directive) []string {
	var out []string
	for i := 0; i < len(ds); {
		// A long run of plain Redirects is one map lookup per
		// segment of the path rather than a regex per line.
		if n := batchable(ds[i:]); n >= minBatch {
			if steps, ok := t.batch(ds[i : i+n]); ok {
				out = append(out, steps...)
				i += n
				continue
			}
		}
		out = append(out, t.aliasStepsEach(ds[i:i+1])...)
		i++
	}
	return out
}

// aliasStepsEach writes each redirect as steps of its own.
func (t *translator) aliasStepsEach(ds []*Directive) []string {
	var out []string
	for _, d := range ds {
		args := d.Args
		status := 302
		switch strings.ToLower(d.Name) {
		case "redirectpermanent":
			status = 301
		case "redirecttemp":
			status = 302
		default:
			if len(args) > 0 {
				if s, ok := aliasStatus(args[0]); ok {
					status, args = s, args[1:]
				}
			}
		}
		match := d.Is("RedirectMatch")
		if len(args) == 0 || status >= 300 && status < 400 && len(args) != 2 || (status < 300 || status >= 400) && len(args) != 1 {
			t.note(d, importer.LeftOut, "%s: needs a %s and, for a 3xx status, a URL; left out", d.Name, map[bool]string{true: "regex", false: "URL-path"}[match])
			continue
		}
		var re string
		if match {
			re = args[0]
		} else {
			p := mergeSlashes(args[0])
			if strings.HasSuffix(p, "/") {
				re = "^" + quoteMeta(p) + "(.*)$"
			} else {
				re = "^" + quoteMeta(p) + "(/.*)?$"
			}
		}
		line, err := t.aliasStep(d, status, re, args, match)
		if err == nil {
			err = compiles([]string{`set $a_rest "";`}, []string{line}, t.res.Maps)
		}
		if err != nil {
			t.note(d, importer.LeftOut, "%s: the step written for it does not load (%v); left out", d.Name, err)
			continue
		}
		t.count(d)
		out = append(out, "# "+commentSafe(d.Source()+": "+d.Name+" "+strings.Join(d.Args, " ")), line)
	}
	return out
}

// aliasStep writes one redirect matching re.
func (t *translator) aliasStep(d *Directive, status int, re string, args []string, match bool) (string, error) {
	if status < 300 || status >= 400 {
		return "if ($uri ~ " + quoteArg(re) + ") { return " + strconv.Itoa(status) + "; }", nil
	}
	to := args[1]
	if !match {
		to += "$1"
	} else if strings.Contains(to, "$0") {
		// $0 is what the regex matched: the path where it is
		// anchored at both ends, a part of it elsewhere.
		if !anchoredWhole(re) {
			return "", fmt.Errorf("$0 of a regex not anchored at both ends (^...$) is not translated")
		}
		to = strings.ReplaceAll(to, "$0", "$uri")
	}
	if strings.Contains(to, "$") && !validRefs(to) {
		return "", fmt.Errorf("a '$' that is not $0..$9")
	}
	if !match {
		// The rest of the path goes out escaped as Apache escapes it
		// (ap_os_escape_path), which a capture in the steps is not.
		// The request's query follows where the URL has none.
		k, v := t.escapeMap(d)
		esc := "set $a_rest $1; set $" + k + " $a_rest; set $a_rest " + v + "; "
		to = args[1] + "${a_rest}"
		if !strings.Contains(args[1], "?") {
			to += "$is_args$args"
		}
		return "if ($uri ~ " + quoteArg(re) + ") { " + esc + "return " + strconv.Itoa(status) + " " + quoteArg(to) + "; }", nil
	}
	// RedirectMatch: the groups filled in, Apache parses the result
	// as a URI and escapes its path (ap_escape_uri), not its query or
	// fragment, which a group's decoded '?' or '#' starts; the
	// request's query goes after it where the result has none.
	k, v := t.escapeMap(d)
	return "if ($uri ~ " + quoteArg(re) + ") { set $a_rm " + quoteArg(to) + "; set $a_rp \"\"; set $a_rq \"\"; " +
		`if ($a_rm ~ "^([^?#]*)(.*)$") { set $a_rp $1; set $a_rq $2; } ` +
		"set $" + k + " $a_rp; set $a_rp " + v + "; set $a_ra \"\"; " +
		`if ($a_rq !~ "\?") { set $a_ra "$is_args$args"; } ` +
		"return " + strconv.Itoa(status) + " \"${a_rp}${a_rq}${a_ra}\"; }", nil
}

// escapeMap returns the key and the variable of the import's map of the
// escape function, written on first use.
func (t *translator) escapeMap(d *Directive) (key, variable string) {
	m := t.maps["_escape"]
	if m == nil {
		m = &rwMap{name: "_escape", fn: "escape", d: d, made: "the Location of " + d.Name + ", escaped as Apache escapes it"}
		m.loc = t.locMap(m)
		t.maps["_escape"] = m
	}
	return m.loc.Key, m.loc.Variable
}

// validRefs reports whether every '$' of s starts a group reference or
// one of the variables the import writes.
func validRefs(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != '$' {
			continue
		}
		rest := s[i+1:]
		if rest == "" || !(rest[0] >= '0' && rest[0] <= '9' || strings.HasPrefix(rest, "uri") || strings.HasPrefix(rest, "is_args") || strings.HasPrefix(rest, "args")) {
			return false
		}
	}
	return true
}

// commentSafe keeps a comment on its line.
func commentSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return '?'
		}
		return r
	}, strings.ToValidUTF8(s, "?"))
}

// mergeSlashes turns each run of slashes into one, as alias_matches
// compares them.
func mergeSlashes(p string) string {
	for strings.Contains(p, "//") {
		p = strings.ReplaceAll(p, "//", "/")
	}
	return p
}

// quoteMeta escapes PCRE's special characters.
func quoteMeta(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(`\.+*?()|[]{}^$/`, s[i]) >= 0 && s[i] != '/' {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// quoteArg quotes a step's word where nginx's syntax needs it.
func quoteArg(a string) string {
	if a != "" && !strings.ContainsAny(a, " \t\n;{}\"'#") {
		return a
	}
	if !strings.Contains(a, "\"") && !strings.HasSuffix(a, "\\") {
		return "\"" + a + "\""
	}
	if !strings.Contains(a, "'") && !strings.HasSuffix(a, "\\") {
		return "'" + a + "'"
	}
	return "\"" + strings.ReplaceAll(a, "\"", "\\\"") + "\""
}
