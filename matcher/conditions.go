package matcher

import (
	"net/netip"
	"slices"
	"strings"
)

// Request gives a rule's conditions (Rule.When) the parts of the request
// they read. Lookup reaches it only when a candidate rule has conditions,
// so rules without them cost nothing; the engine sets it on the Match
// (Match.Req) before Lookup, with no work done until a method is called.
type Request interface {
	// Header returns the value of the first field named name (compared
	// without case), nil when the request has none.
	Header(name []byte) []byte
	// Country returns the client's ISO 3166 country code in upper case,
	// "" when unknown (no database, or an address it does not list).
	Country() string
	// HTTPS reports whether the request came over TLS: to the TLS
	// listener, or marked so by a TLS terminator the server trusts.
	HTTPS() bool
}

// When holds conditions on who sends a request, all of which must hold.
// A rule with conditions is tried before the rule without for the same
// path, as with Query.
type When struct {
	// Language lists language ranges ("de", "de-*", "*"); the condition
	// holds when the client's most preferred Accept-Language tag (highest
	// q, first among equals, q=0 never) falls in one of them by RFC 4647
	// basic filtering: "de" and "de-*" take "de" and "de-AT".
	Language []string
	// Country lists ISO 3166 alpha-2 codes, upper case.
	Country []string
	// Header and Cookie are fields and cookies that must have the value
	// given exactly (field names without case, values with it), or be
	// present with any value when the value is AnyValue ("*"), as in a
	// query condition.
	Header []KeyValue
	Cookie []KeyValue
	// Scheme is "http" (plain requests only) or "https" (requests over
	// TLS only; Request.HTTPS), "" for either: an nginx server that
	// listens on one kind of port only.
	Scheme string
	// Unless holds conditions none of which may hold: each language list,
	// country list, header, cookie and query parameter in it is one
	// condition, and the rule answers only when every one of them fails
	// (Vercel's missing). Its Query conditions read the request's query
	// as Rule.Query does; Query is refused outside Unless, where
	// Rule.Query says the same. An Unless holds no Unless.
	Unless *When
	Query  []QueryCond
	// IP lists the networks the client's address must be in (cond_ip.go).
	IP []netip.Prefix
	// Method lists the methods the request must have (cond_method.go).
	Method []string
	// Sample is the share of clients, above 0 and at most 1, that the
	// rule answers (cond_sample.go); 0 for every client.
	Sample float64
}

// KeyValue is a header field or cookie name with the value it must have.
type KeyValue struct{ Name, Value string }

// Empty reports whether w holds no condition at all.
func (w *When) Empty() bool {
	if w == nil {
		return true
	}
	for _, t := range condTypes {
		if t.has(w) {
			return false
		}
	}
	return w.Unless.Empty()
}

// when is a compiled When.
type when struct {
	// checks are the conditions, one per condition (a header each, a
	// language list one), in condTypes order.
	checks []condCheck
	// unless is the compiled Unless, nil for none; query is set on it
	// alone.
	unless *when
	query  []QueryCond
	// vary is the Vary line the answer carries ("Vary: ...\r\n").
	vary string
	// fields are the names in vary, Unless's included.
	fields []string
}

var cookieField = []byte("cookie")

// compileWhen checks w and builds its compiled form and condKey text.
func compileWhen(w *When) (*when, string, error) {
	return compileWhenIn(w, "when")
}

// compileWhenIn is compileWhen for w at field (when, or when.unless).
func compileWhenIn(w *When, field string) (*when, string, error) {
	c := &when{}
	var key strings.Builder
	var vary []string
	if len(w.Query) > 0 && field == "when" {
		return nil, "", fieldErr("when.query", "a query condition goes in the rule's query; when.unless.query is for a parameter that must not be there")
	}
	if w.Unless != nil && field != "when" {
		return nil, "", fieldErr(field+".unless", "an unless holds no unless; write its conditions in the one unless")
	}
	for _, t := range condTypes {
		if t.unit == nil || !t.has(w) {
			continue
		}
		checks, err := t.unit.compile(w, field, &key)
		if err != nil {
			return nil, "", err
		}
		c.checks = append(c.checks, checks...)
		vary = append(vary, t.unit.vary(w)...)
	}
	for _, q := range w.Query {
		if q.Name == "" {
			return nil, "", fieldErr(field+".query", "a parameter needs a name")
		}
		c.query = append(c.query, q)
		key.WriteString("q" + q.Name + "\x00" + q.Value + "\x00")
	}
	if !w.Unless.Empty() {
		u, ukey, err := compileWhenIn(w.Unless, "when.unless")
		if err != nil {
			return nil, "", err
		}
		c.unless = u
		key.WriteString("u{" + ukey + "}")
		for _, f := range u.fields {
			if !slices.ContainsFunc(vary, func(g string) bool { return strings.EqualFold(f, g) }) {
				vary = append(vary, f)
			}
		}
	}
	c.fields = vary
	if len(vary) > 0 {
		c.vary = "Vary: " + strings.Join(vary, ", ") + "\r\n"
	}
	return c, key.String(), nil
}

// holds reports whether the request of m satisfies every condition, and
// none of unless's but its query ones (queryUnless); a Match without Req
// satisfies none.
func (w *when) holds(m *Match) bool {
	if m.Req == nil {
		return false
	}
	for _, c := range w.checks {
		if !c.holds(m) {
			return false
		}
	}
	return w.unless == nil || !w.unless.anyHolds(m)
}

// anyHolds reports whether one of w's conditions holds (w is an unless;
// its query conditions are queryUnless's).
func (w *when) anyHolds(m *Match) bool {
	for _, c := range w.checks {
		if c.holds(m) {
			return true
		}
	}
	return false
}

// Holds reports whether req meets w's conditions and none of its
// Unless's, whose query conditions it does not read (they are the rule's
// query's); false for a w that does not compile. For tools (the
// importers' order checks): it compiles w and allocates.
func (w *When) Holds(req Request) bool {
	if w.Empty() {
		return true
	}
	c, _, err := compileWhen(w)
	return err == nil && c.holds(&Match{Req: req})
}

// queryUnless reports whether one of the query conditions of w's unless
// holds in the query of m.
func (w *when) queryUnless(m *Match) bool {
	if w == nil || w.unless == nil || len(w.unless.query) == 0 {
		return false
	}
	q := m.queryParams()
	for i := range w.unless.query {
		if q.holds(&w.unless.query[i]) {
			return true
		}
	}
	return false
}

// condsHold reports whether the request of m satisfies r's query and when
// conditions (its gate, window.go, is checked apart: a regex rule's gate
// only once its pattern matched). A failed when condition leaves the
// fields it read for the answer's Vary.
func (r *rule) condsHold(m *Match) bool {
	if len(r.Query) > 0 && !m.queryParams().holdsAll(r.Query) {
		return false
	}
	if r.when == nil || !r.when.queryUnless(m) && r.when.holds(m) {
		return true
	}
	if len(r.vary) > len(m.failVary) {
		m.failVary = r.vary
	}
	return false
}

// Vary returns the Vary line ("Vary: ...\r\n") the answer of the last
// Lookup carries because conditions read those fields, "" for none: those
// of the matched rule and of the rules tried before it for its path, or,
// when it has none, of the longest line of a rule whose conditions failed
// on the way (a packed rule behind conditional ones, a miss).
func (m *Match) Vary() string {
	if m.rule != nil && m.rule.vary != "" {
		return m.rule.vary
	}
	return m.failVary
}

// setVary gives each of the rules tried in turn for one path the Vary
// line of the fields read to reach it: the answer of the rule without
// conditions depends on the conditions that failed before it, so a cache
// must not hand it to a client for whom one of them holds.
func setVary(alts []*rule) {
	var fields []string
	for _, r := range alts {
		if r.when != nil {
			for _, f := range r.when.fields {
				if !slices.ContainsFunc(fields, func(g string) bool { return strings.EqualFold(f, g) }) {
					fields = append(fields, f)
				}
			}
		}
		r.vary = ""
		if len(fields) > 0 {
			r.vary = "Vary: " + strings.Join(fields, ", ") + "\r\n"
		}
	}
}
