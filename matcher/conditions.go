package matcher

import (
	"bytes"
	"net/netip"
	"slices"
	"strings"

	"github.com/redirectd/redirectd/internal/ascii"
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
	langs   []string // lower case, "-*" cut off; "*" for any
	country []string
	header  []kvBytes
	cookie  []KeyValue
	// unless is the compiled Unless, nil for none; query is set on it
	// alone.
	unless *when
	query  []QueryCond
	// checks are the conditions of the kinds held in one file each
	// (condUnit: scheme, ip, method, sample), in condTypes order.
	checks []condCheck
	// vary is the Vary line the answer carries ("Vary: ...\r\n").
	vary string
	// fields are the names in vary, Unless's included.
	fields []string
}

type kvBytes struct{ name, value []byte }

var (
	acceptLanguage = []byte("accept-language")
	cookieField    = []byte("cookie")
)

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
	if err := c.compileClientConds(w, field, &key, &vary); err != nil {
		return nil, "", err
	}
	for _, t := range condTypes {
		if t.unit == nil {
			continue
		}
		chk, err := t.unit.compile(w, field, &key)
		if err != nil {
			return nil, "", err
		}
		if chk != nil {
			c.checks = append(c.checks, chk)
		}
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

// compileClientConds compiles w's conditions on what the client sends
// and where it is (language, country, header, cookie) into c, writing
// each to key and the header fields they read to vary.
func (c *when) compileClientConds(w *When, field string, key *strings.Builder, vary *[]string) error {
	for _, l := range w.Language {
		r := strings.ToLower(l)
		r = strings.TrimSuffix(r, "-*")
		if !validRange(r) {
			return fieldErr(field+".language", "%q is not a language range; write a tag such as \"de\", \"de-AT\", \"de-*\" or \"*\"", l)
		}
		c.langs = append(c.langs, r)
		key.WriteString("l" + r + "\x00")
	}
	if len(c.langs) > 0 {
		*vary = append(*vary, "Accept-Language")
	}
	for _, cc := range w.Country {
		if len(cc) != 2 || cc[0] < 'A' || cc[0] > 'Z' || cc[1] < 'A' || cc[1] > 'Z' {
			return fieldErr(field+".country", "%q is not an ISO 3166 alpha-2 country code; write two capital letters such as \"DE\"", cc)
		}
		c.country = append(c.country, cc)
		key.WriteString("c" + cc + "\x00")
	}
	for _, h := range w.Header {
		if !ascii.IsToken(h.Name) {
			return fieldErr(field+".header", "%q is not a header field name", h.Name)
		}
		c.header = append(c.header, kvBytes{[]byte(strings.ToLower(h.Name)), []byte(h.Value)})
		key.WriteString("h" + strings.ToLower(h.Name) + "\x00" + h.Value + "\x00")
		*vary = append(*vary, h.Name)
	}
	for _, k := range w.Cookie {
		if !ascii.IsToken(k.Name) {
			return fieldErr(field+".cookie", "%q is not a cookie name", k.Name)
		}
		c.cookie = append(c.cookie, k)
		key.WriteString("k" + k.Name + "\x00" + k.Value + "\x00")
	}
	if len(c.cookie) > 0 {
		*vary = append(*vary, "Cookie")
	}
	return nil
}

// validRange reports whether r (lower case, "-*" cut) is "*" or
// alphanumeric subtags of 1 to 8 characters joined by '-', the first
// alphabetic (RFC 4647 section 2.1).
func validRange(r string) bool {
	if r == "*" {
		return true
	}
	for i, sub := range strings.Split(r, "-") {
		if len(sub) < 1 || len(sub) > 8 {
			return false
		}
		for j := 0; j < len(sub); j++ {
			c := sub[j]
			if !(c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
				return false
			}
		}
	}
	return true
}

// holds reports whether the request of m satisfies every condition, and
// none of unless's but its query ones (queryUnless); a Match without Req
// satisfies none.
func (w *when) holds(m *Match) bool {
	req := m.Req
	if req == nil {
		return false
	}
	for _, c := range w.checks {
		if !c.holds(m) {
			return false
		}
	}
	if len(w.langs) > 0 && !langHolds(w.langs, req.Header(acceptLanguage)) {
		return false
	}
	if len(w.country) > 0 && !countryHolds(w.country, req) {
		return false
	}
	for _, h := range w.header {
		if !headerHolds(h, req) {
			return false
		}
	}
	if len(w.cookie) > 0 {
		cookies := m.cookieParams()
		for i := range w.cookie {
			if !cookieHolds(&w.cookie[i], cookies) {
				return false
			}
		}
	}
	return w.unless == nil || !w.unless.anyHolds(m)
}

// anyHolds reports whether one of w's conditions holds (w is an unless;
// its query conditions are queryUnless's).
func (w *when) anyHolds(m *Match) bool {
	req := m.Req
	for _, c := range w.checks {
		if c.holds(m) {
			return true
		}
	}
	if len(w.langs) > 0 && langHolds(w.langs, req.Header(acceptLanguage)) {
		return true
	}
	if len(w.country) > 0 && countryHolds(w.country, req) {
		return true
	}
	for _, h := range w.header {
		if headerHolds(h, req) {
			return true
		}
	}
	if len(w.cookie) > 0 {
		cookies := m.cookieParams()
		for i := range w.cookie {
			if cookieHolds(&w.cookie[i], cookies) {
				return true
			}
		}
	}
	return false
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

func countryHolds(list []string, req Request) bool {
	cc := req.Country()
	for _, c := range list {
		if c == cc {
			return true
		}
	}
	return false
}

// headerHolds reports whether req has the field h names, with h's value
// or, for AnyValue, any.
func headerHolds(h kvBytes, req Request) bool {
	v := req.Header(h.name)
	return v != nil && (isAny(h.value) || bytes.Equal(bytes.TrimSpace(v), h.value))
}

// cookieHolds is headerHolds for a cookie: the first of that name (as
// CookieValue finds it) among the request's cookies.
func cookieHolds(k *KeyValue, cookies *params) bool {
	v, ok := cookies.first(k.Name)
	return ok && (k.Value == AnyValue || string(v) == k.Value)
}

func isAny(v []byte) bool { return len(v) == 1 && v[0] == AnyValue[0] }

// langHolds reports whether the top preference of an Accept-Language
// value falls in one of ranges.
func langHolds(ranges []string, accept []byte) bool {
	tag, ok := PreferredLanguage(accept)
	if !ok {
		return false
	}
	for _, r := range ranges {
		if r == "*" || hasPrefixFold(tag, r) && (len(tag) == len(r) || tag[len(r)] == '-') {
			return true
		}
	}
	return false
}

func hasPrefixFold(s []byte, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		if ascii.Lower(s[i]) != prefix[i] {
			return false
		}
	}
	return true
}

// PreferredLanguage returns the tag of an Accept-Language value (RFC 9110
// section 12.5.4) with the highest weight, the first among equals, in
// place; ok is false when there is none with a weight above 0, or the
// top one is "*". Malformed elements are skipped, as clients send junk.
func PreferredLanguage(v []byte) (tag []byte, ok bool) {
	best := 0
	for len(v) > 0 {
		elem := v
		if i := bytes.IndexByte(v, ','); i >= 0 {
			elem, v = v[:i], v[i+1:]
		} else {
			v = nil
		}
		t, params := elem, []byte(nil)
		if i := bytes.IndexByte(elem, ';'); i >= 0 {
			t, params = elem[:i], elem[i+1:]
		}
		t = bytes.Trim(t, " \t")
		if len(t) == 0 || !validTag(t) {
			continue
		}
		q, good := parseQ(params)
		if !good || q <= best {
			continue
		}
		best, tag = q, t
	}
	if best == 0 || len(tag) == 1 && tag[0] == '*' {
		return nil, false
	}
	return tag, true
}

// validTag accepts "*" or subtags of 1 to 8 letters and digits joined by '-'.
func validTag(t []byte) bool {
	if len(t) == 1 && t[0] == '*' {
		return true
	}
	n := 0
	for i := 0; i <= len(t); i++ {
		if i == len(t) || t[i] == '-' {
			if n < 1 || n > 8 {
				return false
			}
			n = 0
			continue
		}
		c := t[i] | 0x20
		if !(c >= 'a' && c <= 'z' || t[i] >= '0' && t[i] <= '9') {
			return false
		}
		n++
	}
	return true
}

// parseQ reads the weight from an element's parameters as thousandths:
// 1000 when absent; good is false for a malformed weight (RFC 9110
// section 12.4.2: "0" to "1" with up to three decimals).
func parseQ(params []byte) (q int, good bool) {
	q = 1000
	for len(params) > 0 {
		p := params
		if i := bytes.IndexByte(params, ';'); i >= 0 {
			p, params = params[:i], params[i+1:]
		} else {
			params = nil
		}
		p = bytes.Trim(p, " \t")
		if len(p) < 2 || p[0]|0x20 != 'q' || p[1] != '=' {
			continue
		}
		w := p[2:]
		if len(w) == 0 || len(w) > 5 || w[0] != '0' && w[0] != '1' {
			return 0, false
		}
		q = int(w[0]-'0') * 1000
		if len(w) > 1 {
			if w[1] != '.' {
				return 0, false
			}
			scale := 100
			for _, c := range w[2:] {
				if c < '0' || c > '9' {
					return 0, false
				}
				q += int(c-'0') * scale
				scale /= 10
			}
		}
		if q > 1000 {
			return 0, false
		}
	}
	return q, true
}

// CookieValue returns the value of the cookie named name in a Cookie field
// value ("a=1; b=2"), without surrounding quotes.
func CookieValue(cookies, name []byte) ([]byte, bool) {
	for len(cookies) > 0 {
		pair := cookies
		if i := bytes.IndexByte(cookies, ';'); i >= 0 {
			pair, cookies = cookies[:i], cookies[i+1:]
		} else {
			cookies = nil
		}
		pair = bytes.Trim(pair, " \t")
		i := bytes.IndexByte(pair, '=')
		if i < 0 || !bytes.Equal(pair[:i], name) {
			continue
		}
		v := pair[i+1:]
		if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
			v = v[1 : len(v)-1]
		}
		return v, true
	}
	return nil, false
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

// Countries gives the country of a client address: a MaxMind database
// (package geoip), held by the Set so that a reload swaps both at once.
type Countries interface {
	// Country returns addr's ISO 3166 code in upper case, "" when unknown.
	Country(addr netip.Addr) string
}

// SetCountries gives s the country database its when.country rules read.
// Call it before the Set serves.
func (s *Set) SetCountries(c Countries) { s.countries = c }

// Countries returns the database given to SetCountries, or nil.
func (s *Set) Countries() Countries { return s.countries }
