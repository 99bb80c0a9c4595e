package matcher

import (
	"strconv"
	"strings"
	"time"
)

// Conditions returns r's conditions besides its host, one text each, as
// explain, the admin /rules, test, check -baseline and the console show
// them: `scheme = https`, `query ref = "x"`, `header X-Beta (any value)`,
// `language = de, fr`, `unless cookie beta = "1"`, `active from
// 2026-12-24T00:00:00Z`. None for a rule that answers every request for
// its path. It is the one place that writes them, so that every output
// reads alike.
func (r *Rule) Conditions() []string {
	var out []string
	for _, q := range r.Query {
		out = append(out, pairText("query", q.Name, q.Value))
	}
	if !r.When.Empty() {
		out = append(out, whenText(r.When, "")...)
		if u := r.When.Unless; !u.Empty() {
			out = append(out, whenText(u, "unless ")...)
			for _, q := range u.Query {
				out = append(out, "unless "+pairText("query", q.Name, q.Value))
			}
		}
	}
	if w := windowText(r.Active); w != "" {
		out = append(out, w)
	}
	return out
}

// ConditionsText is Conditions joined with ", ", "" for none.
func (r *Rule) ConditionsText() string { return strings.Join(r.Conditions(), ", ") }

// whenText writes w's own conditions (not its Unless or Query), each
// after prefix.
func whenText(w *When, prefix string) []string {
	var out []string
	for _, t := range condTypes {
		if t.unit != nil && t.has(w) {
			out = append(out, prefix+t.unit.text(w))
		}
	}
	if len(w.Language) > 0 {
		out = append(out, prefix+"language = "+strings.Join(w.Language, ", "))
	}
	if len(w.Country) > 0 {
		out = append(out, prefix+"country = "+strings.Join(w.Country, ", "))
	}
	for _, h := range w.Header {
		out = append(out, prefix+pairText("header", h.Name, h.Value))
	}
	for _, k := range w.Cookie {
		out = append(out, prefix+pairText("cookie", k.Name, k.Value))
	}
	return out
}

// pairText writes a query, header or cookie condition. Names and values
// come from configs and imports: quoted, so that a space or a comma in
// one cannot be mistaken for the list's separator.
func pairText(what, name, value string) string {
	if value == AnyValue {
		return what + " " + name + " (any value)"
	}
	return what + " " + name + " = " + strconv.Quote(value)
}

// windowText writes a time window, "" for always.
func windowText(w Window) string {
	var parts []string
	if !w.From.IsZero() {
		parts = append(parts, "from "+w.From.UTC().Format(time.RFC3339))
	}
	if !w.Until.IsZero() {
		parts = append(parts, "until "+w.Until.UTC().Format(time.RFC3339))
	}
	if len(parts) == 0 {
		return ""
	}
	return "active " + strings.Join(parts, " ")
}

// Unmet says which of r's conditions a request does not meet, one line
// each ("requires scheme = https; this URL is http"), none when it meets
// them all: req is the request (nil: one with no fields, over http),
// query its query, now the instant asked about. For explain and test,
// never on the traffic path: it compiles r's conditions and allocates.
func (r *Rule) Unmet(query []byte, req Request, now time.Time) []string {
	if req == nil {
		req = &FixedRequest{}
	}
	m := &Match{Req: req, query: query}
	var out []string
	for i := range r.Query {
		if c := &r.Query[i]; !m.queryParams().holds(c) {
			out = append(out, "requires "+pairText("query", c.Name, c.Value)+"; "+paramGot("the query", m.queryParams(), c.Name))
		}
	}
	if !r.When.Empty() {
		out = append(out, whenUnmet(r.When, m)...)
	}
	if w := windowText(r.Active); w != "" && !r.Active.Contains(now) {
		out = append(out, "is "+w+"; it is now "+now.UTC().Format(time.RFC3339))
	}
	return out
}

// whenUnmet is Unmet for w's conditions: each of its own that fails, and
// each of its Unless that holds.
func whenUnmet(w *When, m *Match) []string {
	var out []string
	req := m.Req
	for _, t := range condTypes {
		if t.unit != nil && t.has(w) && !unitHolds(t.unit, w, m) {
			out = append(out, "requires "+t.unit.text(w)+"; "+t.unit.got(req))
		}
	}
	if len(w.Language) > 0 && !langHolds(langRanges(w.Language), req.Header(acceptLanguage)) {
		out = append(out, "requires language = "+strings.Join(w.Language, ", ")+"; "+languageGot(req))
	}
	if len(w.Country) > 0 && !countryHolds(w.Country, req) {
		out = append(out, "requires country = "+strings.Join(w.Country, ", ")+"; "+countryGot(req))
	}
	for _, h := range w.Header {
		if !headerHolds(kvBytes{[]byte(strings.ToLower(h.Name)), []byte(h.Value)}, req) {
			out = append(out, "requires "+pairText("header", h.Name, h.Value)+"; "+fieldGot(req, h.Name))
		}
	}
	for i := range w.Cookie {
		if k := &w.Cookie[i]; !cookieHolds(k, m.cookieParams()) {
			out = append(out, "requires "+pairText("cookie", k.Name, k.Value)+"; "+paramGot("the request's cookies", m.cookieParams(), k.Name))
		}
	}
	if u := w.Unless; u != nil {
		for _, c := range unlessHeld(u, m) {
			out = append(out, "requires not "+c+"; the request has it")
		}
	}
	return out
}

// unlessHeld lists the conditions of an unless that hold for m, as
// Conditions writes them.
func unlessHeld(u *When, m *Match) []string {
	var out []string
	req := m.Req
	for _, t := range condTypes {
		if t.unit != nil && t.has(u) && unitHolds(t.unit, u, m) {
			out = append(out, t.unit.text(u))
		}
	}
	if len(u.Language) > 0 && langHolds(langRanges(u.Language), req.Header(acceptLanguage)) {
		out = append(out, "language = "+strings.Join(u.Language, ", "))
	}
	if len(u.Country) > 0 && countryHolds(u.Country, req) {
		out = append(out, "country = "+strings.Join(u.Country, ", "))
	}
	for _, h := range u.Header {
		if headerHolds(kvBytes{[]byte(strings.ToLower(h.Name)), []byte(h.Value)}, req) {
			out = append(out, pairText("header", h.Name, h.Value))
		}
	}
	for i := range u.Cookie {
		if k := &u.Cookie[i]; cookieHolds(k, m.cookieParams()) {
			out = append(out, pairText("cookie", k.Name, k.Value))
		}
	}
	for i := range u.Query {
		if q := &u.Query[i]; m.queryParams().holds(q) {
			out = append(out, pairText("query", q.Name, q.Value))
		}
	}
	return out
}

// unitHolds compiles w's conditions of one condUnit kind and reports
// whether they hold for m; false when they do not compile.
func unitHolds(u condUnit, w *When, m *Match) bool {
	var key strings.Builder
	c, err := u.compile(w, "when", &key)
	return err == nil && c != nil && c.holds(m)
}

// langRanges is compileClientConds's form of language ranges.
func langRanges(list []string) []string {
	out := make([]string, len(list))
	for i, l := range list {
		out[i] = strings.TrimSuffix(strings.ToLower(l), "-*")
	}
	return out
}

func schemeOf(req Request) string {
	if req.HTTPS() {
		return "https"
	}
	return "http"
}

func languageGot(req Request) string {
	if tag, ok := PreferredLanguage(req.Header(acceptLanguage)); ok {
		return "the request prefers " + strconv.Quote(string(tag))
	}
	return "the request has no Accept-Language preference"
}

func countryGot(req Request) string {
	if cc := req.Country(); cc != "" {
		return "the client is in " + cc
	}
	return "the client's country is unknown"
}

func fieldGot(req Request, name string) string {
	if v := req.Header([]byte(strings.ToLower(name))); v != nil {
		return "the request has " + strconv.Quote(string(v))
	}
	return "the request has none"
}

// paramGot says what a query or the cookies hold for name.
func paramGot(what string, p *params, name string) string {
	if v, ok := p.first(name); ok {
		return what + " has " + strconv.Quote(string(v))
	}
	return what + " has none"
}
