package netlify

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/redirectd/redirectd/config/importer"
	"github.com/redirectd/redirectd/matcher"

	"github.com/redirectd/redirectd/internal/plural"
)

// Translate turns rules into candidates for importer.Order, in order,
// and notes what it does not translate. Each rule's model (Matches) is
// Netlify's reading of it, so that the order check can compare.
//
// Language= and Country= (with opt.GeoIP) become when conditions; the
// model reads them as redirectd does, since Netlify does not document
// its matching closely: a caveat says so.
func Translate(file string, rules []Redirect, opt importer.Options) ([]importer.Candidate, []importer.Note) {
	var cands []importer.Candidate
	var notes []importer.Note
	note := func(r *Redirect, kind, format string, args ...any) {
		notes = append(notes, importer.Note{File: file, Line: r.Line, Kind: kind, Msg: r.Text + ": " + fmt.Sprintf(format, args...)})
	}
	var unforced, languages, countries tally
	for i := range rules {
		r := &rules[i]
		p, err := parsePattern(r.From)
		if err != nil {
			note(r, importer.LeftOut, "%v; left out", err)
			continue
		}
		c := importer.Candidate{File: file, Line: r.Line, Text: r.Text, Matches: r.matcher(p), Samples: r.samples(p), Prefix: p.prefix()}
		status := r.Status
		if status == 0 {
			status = 301
		}
		w, why := r.when(opt)
		if why != "" {
			// Netlify applies it to some visitors only, whom redirectd
			// cannot tell: for the order check, to none.
			c.Matches = nil
			note(r, importer.LeftOut, "%s; left out", why)
			cands = append(cands, c)
			continue
		}
		if w != nil {
			c.When = w
			path := c.Matches
			c.Matches = func(q importer.Request) bool { return q.Client.Satisfies(w) && path(q) }
		}
		if what, why := nonRedirect(r, status); what != "" {
			c.What = what
			note(r, importer.LeftOut, "%s; left out", why)
		} else if msg := r.translate(p, status, w, &c); msg != "" {
			note(r, importer.LeftOut, "%s; left out", msg)
		} else {
			if !r.Force {
				unforced.add(r.Line)
			}
			if w != nil && len(w.Language) > 0 {
				languages.add(r.Line)
			}
			if w != nil && len(w.Country) > 0 {
				countries.add(r.Line)
			}
		}
		cands = append(cands, c)
	}
	return cands, append(notes, caveats(file, unforced, languages, countries)...)
}

// tally counts rules of one kind and keeps the line of the first.
type tally struct{ n, first int }

func (t *tally) add(line int) {
	t.n++
	if t.first == 0 {
		t.first = line
	}
}

// nonRedirect names what r does instead of a redirect with status, and
// says why it is left out; "" for a redirect redirectd answers.
func nonRedirect(r *Redirect, status int) (what, why string) {
	switch {
	case status == 200:
		if !strings.HasPrefix(r.To, "/") {
			return "a 200 proxy", "a proxy (200 to another site) is not a redirect; redirectd forwards what no rule matches to [upstream], " +
				"so set [upstream] servers to the site's address instead"
		}
		return "a 200 rewrite", "a rewrite (200) serves another path's content without a redirect, which redirectd does not do; " +
			"its requests are misses, forwarded to [upstream] when one is set, else answered 404"
	case status == 404:
		return "a custom 404 page", "a custom 404 page: redirectd answers a miss with its own 404, or forwards it to [upstream] (which can serve the page)"
	case !matcher.ValidStatus(status) || !matcher.HasLocation(status):
		// Netlify serves the target's content with a 410 or 451 (as
		// with a 404 page); redirectd's 410 and 451 have a body of
		// their own, so the rule is not the same and is not guessed.
		return fmt.Sprintf("status %d", status), fmt.Sprintf("status %d is not a redirect redirectd answers (301, 302, 303, 307, 308)", status)
	}
	return "", ""
}

// caveats are the notes on the rules translated that redirectd may
// answer otherwise than Netlify: those without '!', those with
// Language=, those with Country=, each at its first rule.
func caveats(file string, unforced, languages, countries tally) []importer.Note {
	var notes []importer.Note
	if unforced.n > 0 {
		notes = append(notes, importer.Note{File: file, Line: unforced.first, Kind: importer.Caveat, Msg: fmt.Sprintf(
			"%s no '!': Netlify applies them only when no file of the site has the path. They are written with fallback = true: "+
				"with an [upstream] serving the site, redirectd forwards their requests first and redirects only where it answers 404; "+
				"without one they always apply", redirectsHave(unforced.n))})
	}
	if languages.n > 0 {
		notes = append(notes, importer.Note{File: file, Line: languages.first, Kind: importer.Caveat, Msg: fmt.Sprintf(
			"%s Language=, written as when.language: redirectd takes the client's most preferred Accept-Language tag "+
				"(highest q) and matches it by RFC 4647 basic filtering (en takes en-GB); Netlify documents its own matching only loosely "+
				"(its CLI compares the first tag's two letters), and lets an nf_lang cookie override the header, which redirectd does not read", rulesHave(languages.n))})
	}
	if countries.n > 0 {
		notes = append(notes, importer.Note{File: file, Line: countries.first, Kind: importer.Caveat, Msg: fmt.Sprintf(
			"%s Country=, written as when.country: redirectd reads the client address in the [geoip] database "+
				"(behind a proxy, set [server] trusted_proxies), where Netlify uses its own geolocation and an nf_country cookie; the two can disagree on some addresses", rulesHave(countries.n))})
	}
	return notes
}

// redirectsHave starts a note on n redirects of the _redirects file, the
// first at the note's line.
func redirectsHave(n int) string {
	if n == 1 {
		return "this redirect has"
	}
	return plural.Count(n, "redirect") + " (the first here) have"
}

// rulesHave starts a note on n rules, the first at the note's line.
func rulesHave(n int) string {
	if n == 1 {
		return "this rule has"
	}
	return plural.Count(n, "rule") + " (the first here) have"
}

// translate fills c's Natural and Regex rules, or says why it cannot.
func (r *Redirect) translate(p pattern, status int, w *matcher.When, c *importer.Candidate) string {
	names := slices.Clone(p.names)
	if p.splat {
		names = append(names, "splat")
	}
	// A rule without '!' applies only where the site has no file at the
	// path (Netlify's shadowing): a fallback rule, which answers only
	// where the upstream answers 404. Without an [upstream] it applies
	// always, as it did before fallbacks, so it is written in any case.
	tmpl := matcher.Rule{Host: r.Host, Status: status, When: w, Fallback: !r.Force}
	var inTarget []Param // query placeholders the target uses
	for _, q := range r.Query {
		name, isVar := strings.CutPrefix(q.Value, ":")
		switch {
		case isVar && uses(r.To, name):
			inTarget = append(inTarget, q)
		case isVar:
			tmpl.Query = append(tmpl.Query, matcher.QueryCond{Name: unescape(q.Name), Value: matcher.AnyValue})
		default:
			tmpl.Query = append(tmpl.Query, matcher.QueryCond{Name: unescape(q.Name), Value: unescape(q.Value)})
		}
	}
	if len(r.Query) > 0 {
		// A rule that matches on the query says in its target which
		// parameters go on (see the README).
		tmpl.QueryString = matcher.QueryReplace
	}
	if len(inTarget) > 1 {
		return "more than one query parameter's value is used in the target, which a regex on the query cannot take in any order"
	}
	re := tmpl
	re.Kind = matcher.Regex
	re.From = "^" + p.regex() + "$"
	if len(inTarget) == 1 {
		name := inTarget[0].Value[1:]
		if !nameRE.MatchString(name) || slices.Contains(names, name) {
			return fmt.Sprintf("the query placeholder %q is not a name of letters, digits and _, or is used in the path too", inTarget[0].Value)
		}
		names = append(names, name)
		re.RequestURI = true
		re.From = "^" + p.regex() + `\?(?:[^#]*&)?` + regexp.QuoteMeta(inTarget[0].Name) + "=(?P<" + name + ">[^&#]*)(?:&[^#]*)?$"
	}
	re.To = substitute(r.To, names)
	c.Regex = &re
	if len(inTarget) > 0 {
		return ""
	}
	if path, ok := p.literal(); ok {
		nat := tmpl
		nat.From, nat.To, nat.TrailingSlash = path, r.To, true
		c.Natural = &nat
	} else if to, ok := strings.CutSuffix(r.To, ":splat"); ok && p.splat && len(p.names) == 0 && !usesAny(to, names) {
		nat := tmpl
		nat.Kind, nat.TrailingSlash, nat.To = matcher.Prefix, true, to
		nat.From = strings.TrimSuffix(p.base(), "/") + "/"
		if p.splatLit != "" {
			// /docs/kubectl_* is every path that starts with
			// /docs/kubectl_, with or without a slash after.
			nat.From += p.splatLit
			nat.TrailingSlash = false
		}
		c.Natural = &nat
	}
	return ""
}

// matcher returns Netlify's reading of the rule, for the order check.
func (r *Redirect) matcher(p pattern) func(importer.Request) bool {
	return func(q importer.Request) bool {
		if r.Host != "" && q.Host != r.Host || !p.match(q.Path) {
			return false
		}
		for _, want := range r.Query {
			found := false
			for _, kv := range strings.Split(q.Query, "&") {
				k, v, _ := strings.Cut(kv, "=")
				if unescape(k) == unescape(want.Name) && (strings.HasPrefix(want.Value, ":") || unescape(v) == unescape(want.Value)) {
					found = true
					break
				}
			}
			if !found {
				return false
			}
		}
		return true
	}
}

// samples returns requests for the order check: the pattern's paths, on
// the rule's host, with the query it matches and without a query.
func (r *Redirect) samples(p pattern) []importer.Request {
	var query []string
	for _, q := range r.Query {
		v := q.Value
		if strings.HasPrefix(v, ":") {
			v = "q1"
		}
		query = append(query, q.Name+"="+v)
	}
	var out []importer.Request
	for _, path := range p.samples() {
		out = append(out, importer.Request{Host: r.Host, Path: path})
		if len(query) > 0 {
			out = append(out, importer.Request{Host: r.Host, Path: path, Query: strings.Join(query, "&")})
		}
	}
	return out
}

// substitute writes a Netlify target as a regex rule's to: :name of a
// placeholder (or :splat) becomes ${name}, and a literal $ is doubled.
func substitute(to string, names []string) string {
	var b strings.Builder
	for i := 0; i < len(to); i++ {
		c := to[i]
		if c == '$' {
			b.WriteString("$$")
			continue
		}
		if c == ':' {
			n := nameLen(to[i+1:])
			if n > 0 && slices.Contains(names, to[i+1:i+1+n]) {
				b.WriteString("${" + to[i+1:i+1+n] + "}")
				i += n
				continue
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

// uses reports whether to refers to :name.
func uses(to, name string) bool { return usesAny(to, []string{name}) }

func usesAny(to string, names []string) bool {
	for i := 0; i < len(to); i++ {
		if to[i] == ':' {
			if n := nameLen(to[i+1:]); n > 0 && slices.Contains(names, to[i+1:i+1+n]) {
				return true
			}
		}
	}
	return false
}

// nameLen is the length of the placeholder name s starts with.
func nameLen(s string) int {
	n := 0
	for n < len(s) && (s[n] == '_' || s[n] >= '0' && s[n] <= '9' || s[n] >= 'a' && s[n] <= 'z' || s[n] >= 'A' && s[n] <= 'Z') {
		n++
	}
	return n
}

func unescape(s string) string {
	if u, err := url.QueryUnescape(s); err == nil {
		return u
	}
	return s
}
