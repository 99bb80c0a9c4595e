// Package baseline compares two configs for `redirectd check -baseline`:
// the rules added, removed and changed (a rule is the same rule in both
// when its matcher.Rule.Key is), the settings that change answers, and
// URLs sampled from both rule sets (a path made for each rule, regex
// rules included: regexsample.go) whose answer changes.
package baseline

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/url"
	"strconv"
	"strings"

	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/engine/admin/edit"
	"github.com/redirectd/redirectd/internal/hostmap"
	"github.com/redirectd/redirectd/internal/regexsample"
	"github.com/redirectd/redirectd/matcher"
)

// Report is what check -baseline finds; -format json prints it.
type Report struct {
	Baseline string `json:"baseline"`
	Config   string `json:"config"`
	// The rules added, changed and removed, in the shape of every set
	// of changes (a draft's, a diff of versions').
	ruleChanges
	Settings []string    `json:"settings"`
	URLs     []urlChange `json:"urls"`
	Sampled  int         `json:"urls_sampled"`
	Uncover  []string    `json:"not_covered"`
}

// ruleChanges are a Report's rules added, changed and removed;
// embedded, its lists are the Report's own in JSON.
type ruleChanges = edit.Changes[ruleDesc]

// ruleDesc is a rule as a reviewer reads it.
type ruleDesc struct {
	Source string `json:"source"`
	Rule   string `json:"rule"` // "exact /a (host x) -> 301 https://b"
}

// urlChange is a sampled URL whose answer differs between the configs.
type urlChange struct {
	URL string       `json:"url"`
	Old sampleAnswer `json:"old"`
	New sampleAnswer `json:"new"`
}

// sampleAnswer is what a config answers a URL: "301 https://x", "404",
// "forward", and the rule that decided it ("" for none).
type sampleAnswer struct {
	Answer string `json:"answer"`
	Rule   string `json:"rule,omitempty"`
}

// Changes reports whether some answer changes.
func (r *Report) Changes() bool {
	return len(r.Added)+len(r.Removed)+len(r.Changed)+len(r.Settings)+len(r.URLs) > 0
}

// WriteJSON writes r as one JSON document, for CI.
func WriteJSON(w io.Writer, r Report) {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // "->" in rules, "&" in URLs
	enc.Encode(r)
}

// Compare lists the rules added, removed and changed from old to
// cur (a rule is the same rule in both when its matcher.Rule.Key is), and
// the sampled URLs whose answer changes.
func Compare(old, cur *config.Config) Report {
	rep := Report{ruleChanges: edit.NoChanges[ruleDesc](), Settings: []string{}, URLs: []urlChange{}, Uncover: []string{}}
	oldRules, curRules := old.Set.Rules(), cur.Set.Rules()
	byKey := map[string][]*matcher.Rule{}
	for i := range oldRules {
		k := oldRules[i].Key()
		byKey[k] = append(byKey[k], &oldRules[i])
	}
	for i := range curRules {
		r := &curRules[i]
		k := r.Key()
		// Rules with one Key (a duplicate, listed twice) pair in order.
		if prev := byKey[k]; len(prev) > 0 {
			byKey[k] = prev[1:]
			if !prev[0].Same(r) {
				rep.Changed = append(rep.Changed, edit.Change[ruleDesc]{Old: describe(prev[0]), New: describe(r)})
			}
			continue
		}
		rep.Added = append(rep.Added, describe(r))
	}
	for i := range oldRules {
		r := &oldRules[i]
		if rest := byKey[r.Key()]; len(rest) > 0 && rest[0] == r {
			byKey[r.Key()] = rest[1:]
			rep.Removed = append(rep.Removed, describe(r))
		}
	}
	rep.Settings = settingChanges(old, cur)
	rep.URLs, rep.Sampled, rep.Uncover = compareSamples(old, cur, oldRules, curRules)
	return rep
}

// settingChanges lists the settings outside the rules that change
// answers.
func settingChanges(old, cur *config.Config) []string {
	out := []string{}
	if old.Server.HTTPSRedirect != cur.Server.HTTPSRedirect {
		out = append(out, fmt.Sprintf("[server] https_redirect %v -> %v: every request not marked https is answered differently (the URLs below are compared as https requests)",
			old.Server.HTTPSRedirect, cur.Server.HTTPSRedirect))
	}
	if (old.Upstream == nil) != (cur.Upstream == nil) {
		out = append(out, fmt.Sprintf("[upstream] %s -> %s: requests no rule answers are answered %s instead of %s",
			onOff(old.Upstream != nil), onOff(cur.Upstream != nil), missAnswer(cur), missAnswer(old)))
	}
	if !sameRoutes(old.Routes, cur.Routes) {
		out = append(out, fmt.Sprintf("[[route]] %d -> %d routes: requests no rule answers may go to another upstream group", len(old.Routes), len(cur.Routes)))
	}
	return out
}

// sameRoutes reports whether a and b send the same hosts and prefixes to
// the same groups, wherever in the file they are written.
func sameRoutes(a, b []config.Route) bool {
	key := func(rs []config.Route) map[[2]string]string {
		m := map[[2]string]string{}
		for _, r := range rs {
			m[[2]string{r.Host, r.Prefix}] = r.Upstream
		}
		return m
	}
	return maps.Equal(key(a), key(b))
}

func onOff(set bool) string {
	if set {
		return "set"
	}
	return "absent"
}

// missAnswer is what cfg answers a request no rule answers.
func missAnswer(cfg *config.Config) string {
	if cfg.Upstream != nil {
		return "forward"
	}
	return "404"
}

// sampleURL is one request compared: host ("" for any), path, query,
// and what a rule's conditions read (conditions.go): the scheme, header
// fields and the client's country.
type sampleURL struct {
	host, path string
	query      []byte
	https      bool
	fields     [][2]string // name, value
	country    string
}

func (u sampleURL) String() string {
	s := u.path
	if u.query != nil {
		s += "?" + string(u.query)
	}
	switch {
	case u.host != "" && u.https:
		s = "https://" + u.host + s
	case u.host != "":
		s = "http://" + u.host + s
	case u.https:
		s += " (https)"
	}
	for _, f := range u.fields {
		s += " [" + f[0] + ": " + f[1] + "]"
	}
	if u.country != "" {
		s += " [client in " + u.country + "]"
	}
	return s
}

// request is u as the conditions of rules read it.
func (u *sampleURL) request() *matcher.FixedRequest {
	r := &matcher.FixedRequest{CountryCode: u.country, TLS: u.https}
	for _, f := range u.fields {
		r.Fields = append(r.Fields, matcher.KeyValue{Name: f[0], Value: f[1]})
	}
	return r
}

// bySchemes reports whether a rule of set answers by the scheme
// (when.scheme): then every URL is compared over http and over https, as
// a change to an https-only rule shows only over https.
func bySchemes(set *matcher.Set) bool {
	found := false
	set.Each(func(rh matcher.RuleHits) {
		if w := rh.Rule.When; w != nil && (w.Scheme != "" || w.Unless != nil && w.Unless.Scheme != "") {
			found = true
		}
	})
	return found
}

// compareSamples answers, with each config's rules, a few paths of every
// rule of either, and returns those answered differently, how many were
// compared, and the rules none could be made for.
func compareSamples(old, cur *config.Config, oldRules, curRules []matcher.Rule) ([]urlChange, int, []string) {
	seen := map[string]bool{}
	changes, uncovered := []urlChange{}, []string{}
	var mo, mc matcher.Match
	both := bySchemes(old.Set) || bySchemes(cur.Set)
	for _, rules := range [][]matcher.Rule{oldRules, curRules} {
		for i := range rules {
			r := &rules[i]
			samples, ok := rulePaths(r)
			if !ok {
				uncovered = append(uncovered, fmt.Sprintf("%s: regex %q: no path could be generated from it; its URLs are not compared", r.Source(), r.From))
			}
			if both {
				for _, u := range samples {
					u.https = !u.https
					samples = append(samples, u)
				}
			}
			for _, u := range samples {
				key := u.String()
				if seen[key] {
					continue
				}
				seen[key] = true
				a, b := sampleLookup(old, u, &mo), sampleLookup(cur, u, &mc)
				if a.Answer != b.Answer {
					changes = append(changes, urlChange{key, a, b})
				}
			}
		}
	}
	return changes, len(seen), uncovered
}

// sampleLookup answers u with cfg's rules, by the server's own Lookup and
// Location code.
func sampleLookup(cfg *config.Config, u sampleURL, m *matcher.Match) sampleAnswer {
	m.Req = u.request()
	if !cfg.Set.Lookup([]byte(u.host), []byte(u.path), u.query, m) {
		if r := m.Passed(); r != nil {
			return sampleAnswer{missAnswer(cfg), r.Source() + " (no redirect)"}
		}
		return sampleAnswer{Answer: missAnswer(cfg)}
	}
	st := m.Status()
	a := strconv.Itoa(st)
	if st >= 300 && st < 400 {
		a += " " + string(m.AppendLocation(nil, u.query))
	}
	// Cloned: a packed table's Source lives in m until its next call.
	return sampleAnswer{a, strings.Clone(m.Source())}
}

// rulePaths returns the URLs sampled for r: its From for an exact rule,
// From and From+"x" for a prefix, a generated match for a regex (ok is
// false when none could be made). The host is the rule's (a wildcard's
// "www."), the query one that meets its query conditions.
func rulePaths(r *matcher.Rule) ([]sampleURL, bool) {
	host := hostmap.Example(r.Host)
	var froms []string
	ok := true
	switch r.Kind {
	case matcher.Exact:
		froms = []string{r.From}
	case matcher.Prefix:
		froms = []string{r.From, r.From + "x"}
	case matcher.Regex:
		var p string
		if p, ok = regexsample.Path(r.From); ok {
			froms = []string{p}
		}
	}
	var out []sampleURL
	for _, f := range froms {
		u := sampleURL{host: host, path: f}
		if r.RequestURI {
			if p, q, has := strings.Cut(f, "?"); has {
				u.path, u.query = p, []byte(q)
			}
		}
		if len(r.Query) > 0 {
			u.query = condsQuery(u.query, r.Query)
		}
		if r.When != nil {
			meetWhen(&u, r.When)
		}
		out = append(out, u)
	}
	return out, ok
}

// meetWhen makes u a request that meets w's conditions (its unless's
// are left unmet): the scheme, a header field for each header, language
// and cookie condition, the first country listed.
func meetWhen(u *sampleURL, w *matcher.When) {
	u.https = w.Scheme == "https"
	anyOr := func(v string) string {
		if v == matcher.AnyValue {
			return "1"
		}
		return v
	}
	if len(w.Language) > 0 {
		l := strings.TrimSuffix(w.Language[0], "-*")
		if l == "*" {
			l = "en"
		}
		u.fields = append(u.fields, [2]string{"Accept-Language", l})
	}
	for _, h := range w.Header {
		u.fields = append(u.fields, [2]string{h.Name, anyOr(h.Value)})
	}
	var cookies []string
	for _, k := range w.Cookie {
		cookies = append(cookies, k.Name+"="+anyOr(k.Value))
	}
	if len(cookies) > 0 {
		u.fields = append(u.fields, [2]string{"Cookie", strings.Join(cookies, "; ")})
	}
	if len(w.Country) > 0 {
		u.country = w.Country[0]
	}
}

// condsQuery appends to q parameters that meet conds.
func condsQuery(q []byte, conds []matcher.QueryCond) []byte {
	for _, c := range conds {
		if len(q) > 0 {
			q = append(q, '&')
		}
		v := c.Value
		if v == matcher.AnyValue {
			v = "1"
		}
		q = append(q, url.QueryEscape(c.Name)+"="+url.QueryEscape(v)...)
	}
	if q == nil {
		q = []byte{}
	}
	return q
}

// describe writes r as `exact /a (host x, query a = "b", scheme = https) -> 301 https://b`.
func describe(r *matcher.Rule) ruleDesc {
	var b strings.Builder
	b.WriteString(r.Kind.String())
	b.WriteByte(' ')
	b.WriteString(r.From)
	var notes []string
	if r.Host != "" {
		notes = append(notes, "host "+r.Host)
	}
	notes = append(notes, r.Conditions()...)
	if r.RequestURI {
		notes = append(notes, "request_uri")
	}
	if r.CaseInsensitive {
		notes = append(notes, "case-insensitive")
	}
	if r.TrailingSlash {
		notes = append(notes, "trailing slash")
	}
	if len(notes) > 0 {
		b.WriteString(" (" + strings.Join(notes, ", ") + ")")
	}
	if r.Pass {
		b.WriteString(" -> no redirect")
	} else {
		fmt.Fprintf(&b, " -> %d %s", r.Status, r.To)
		if r.QueryString != matcher.QueryKeep {
			b.WriteString([]string{"", " (query dropped)", " (query replaced)"}[r.QueryString])
		}
	}
	return ruleDesc{r.Source(), strings.TrimSuffix(b.String(), " ")}
}

// WriteText writes the report for a reviewer.
func WriteText(w io.Writer, r Report) {
	fmt.Fprintf(w, "comparing %s (baseline) with %s\n", r.Baseline, r.Config)
	for _, s := range r.Settings {
		fmt.Fprintf(w, "\nsetting changed: %s\n", s)
	}
	if len(r.Added) > 0 {
		fmt.Fprintf(w, "\nrules added (%d):\n", len(r.Added))
		for _, d := range r.Added {
			fmt.Fprintf(w, "  + %s  %s\n", d.Source, d.Rule)
		}
	}
	if len(r.Removed) > 0 {
		fmt.Fprintf(w, "\nrules removed (%d):\n", len(r.Removed))
		for _, d := range r.Removed {
			fmt.Fprintf(w, "  - %s  %s\n", d.Source, d.Rule)
		}
	}
	if len(r.Changed) > 0 {
		fmt.Fprintf(w, "\nrules changed (%d):\n", len(r.Changed))
		for _, c := range r.Changed {
			fmt.Fprintf(w, "  ~ was %s  %s\n      now %s  %s\n", c.Old.Source, c.Old.Rule, c.New.Source, c.New.Rule)
		}
	}
	if len(r.URLs) > 0 {
		fmt.Fprintf(w, "\nURLs whose answer changes (%d of %d sampled):\n", len(r.URLs), r.Sampled)
		for _, u := range r.URLs {
			fmt.Fprintf(w, "  %s\n      old: %s\n      new: %s\n", u.URL, withRule(u.Old), withRule(u.New))
		}
	}
	for _, s := range r.Uncover {
		fmt.Fprintf(w, "\nnot covered: %s\n", s)
	}
	status := "no answer changes"
	if r.Changes() {
		status = "answers change: review before shipping"
	}
	fmt.Fprintf(w, "\n%s: %d added, %d removed, %d changed, %d of %d sampled URLs answered differently\n",
		status, len(r.Added), len(r.Removed), len(r.Changed), len(r.URLs), r.Sampled)
}

func withRule(a sampleAnswer) string {
	if a.Rule == "" {
		return a.Answer + "  (no rule)"
	}
	return a.Answer + "  (" + a.Rule + ")"
}
