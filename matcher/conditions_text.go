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
			for _, s := range t.unit.text(w) {
				out = append(out, prefix+s)
			}
		}
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
	eachCond(w, m, func(t condType, i int, text string, holds bool) {
		if !holds {
			out = append(out, "requires "+text+"; "+t.unit.got(w, i, m))
		}
	})
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
	eachCond(u, m, func(_ condType, _ int, text string, holds bool) {
		if holds {
			out = append(out, text)
		}
	})
	for i := range u.Query {
		if q := &u.Query[i]; m.queryParams().holds(q) {
			out = append(out, pairText("query", q.Name, q.Value))
		}
	}
	return out
}

// eachCond calls f with each of w's own conditions (not its Unless or
// Query): its kind, its place among that kind's, its text and whether
// it holds for m. A kind whose conditions do not compile (a config
// that would not load) is passed as failing.
func eachCond(w *When, m *Match, f func(t condType, i int, text string, holds bool)) {
	for _, t := range condTypes {
		if t.unit == nil || !t.has(w) {
			continue
		}
		var key strings.Builder
		texts := t.unit.text(w)
		checks, err := t.unit.compile(w, "when", &key)
		for i, text := range texts {
			f(t, i, text, err == nil && i < len(checks) && m.Req != nil && checks[i].holds(m))
		}
	}
}

// paramGot says what a query or the cookies hold for name.
func paramGot(what string, p *params, name string) string {
	if v, ok := p.first(name); ok {
		return what + " has " + strconv.Quote(string(v))
	}
	return what + " has none"
}
