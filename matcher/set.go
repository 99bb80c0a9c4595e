package matcher

import (
	"errors"
	"slices"
	"strings"
	"sync/atomic"
)

// Set is an immutable, compiled rule set. Lookups on one Set may run from
// any number of goroutines at once.
type Set struct {
	any   *hostRules            // rules without a host
	hosts map[string]*hostRules // by lower-case host
	// wild holds the rules of wildcard hosts, "*.example.com" under
	// ".example.com".
	wild  map[string]*hostRules
	rules []*rule // the rules not in packed tables, in file order
	// packed holds the packed tables of every host, packedN their rules;
	// order lists rules and packed entries in file order, for Each.
	packed  []*packedTable
	packedN int
	order   []span
}

// span is a run of rules in file order: s.rules[lo:hi] when t is nil,
// else entries lo to hi of t.
type span struct {
	t      *packedTable
	lo, hi int
}

// hostRules holds the rules of one host (or of none).
type hostRules struct {
	exact exactTable
	// Exact rules compared loosely: case-insensitive ones by their
	// lower-cased path (fold), trailing-slash-insensitive ones without the
	// slash (slash), rules that are both under both (foldSlash).
	fold, slash, foldSlash exactTable
	// prefix and prefixFold (case-insensitive rules, lower-cased) map
	// prefixes to indexes into prefixRules.
	prefix, prefixFold *radix
	prefixRules        []*rule
	// prefixAlts holds, for a prefix with more than one rule (some with
	// query conditions), all of them in the order they are tried.
	prefixAlts map[int32][]*rule
	regex      regexIndex
	// packed holds the plain exact rules (see packable), nil when none.
	packed *packedTable
}

// exactTable maps keys to exact rules. Most keys have one rule, found with
// one map lookup; a key with several (rules with query conditions) also
// has them all in alts, in the order they are tried.
type exactTable struct {
	m    map[string]*rule
	alts map[string][]*rule
}

// get returns the rule for key whose query conditions query satisfies.
func (t *exactTable) get(key, query []byte) *rule {
	r := t.m[string(key)]
	if r == nil {
		return nil
	}
	if t.alts != nil {
		if alts := t.alts[string(key)]; alts != nil {
			return pick(alts, query)
		}
	}
	if len(r.Query) == 0 || condsHold(r.Query, query) {
		return r
	}
	return nil
}

// pick returns the first of rules whose conditions query satisfies.
func pick(rules []*rule, query []byte) *rule {
	for _, r := range rules {
		if len(r.Query) == 0 || condsHold(r.Query, query) {
			return r
		}
	}
	return nil
}

// link adds r to the rules tried for one key (alts, nil for a key with one
// rule so far, whose rule is first): rules with query conditions before the
// one without, each group in file order. Two rules with the same
// conditions, or none, are duplicates.
func link(alts []*rule, first, r *rule, kind string) ([]*rule, error) {
	if alts == nil {
		alts = []*rule{first}
	}
	for _, old := range alts {
		if old == r {
			return alts, nil
		}
		if old.condKey == r.condKey {
			what := ""
			if len(r.Query) > 0 {
				what = " with the same query conditions"
			}
			return alts, fieldErr("from", "duplicate %s rule for %q%s (first defined at %s)", kind, r.From, what, old.Source())
		}
	}
	i := len(alts)
	if len(r.Query) > 0 {
		for i = 0; i < len(alts) && len(alts[i].Query) > 0; i++ {
		}
	}
	return slices.Insert(alts, i, r), nil
}

func (t *exactTable) add(key string, r *rule, kind string) error {
	if t.m == nil {
		t.m = make(map[string]*rule)
	}
	old := t.m[key]
	if old == nil {
		t.m[key] = r
		return nil
	}
	if old == r {
		return nil
	}
	alts, err := link(t.alts[key], old, r, kind)
	if err != nil {
		return err
	}
	if t.alts == nil {
		t.alts = make(map[string][]*rule)
	}
	t.alts[key] = alts
	t.m[key] = alts[0]
	return nil
}

// rule is a compiled Rule.
type rule struct {
	Rule
	// hits counts the requests the server answered with this rule.
	hits atomic.Uint64
	// source caches Source() for the access log, built on the first hit
	// rather than for every rule of a million-rule map.
	source atomic.Pointer[string]
	to     template
	// condKey is Query in a canonical form, to find duplicates.
	condKey string
	prog    *program // regex rules only
	ncaps   int      // 2 * (groups + 1), regex rules only
}

// Counts tells how many rules of each kind a Set holds.
type Counts struct {
	Exact, Prefix, Regex int
}

// maxErrors bounds how many rule errors Compile reports at once.
const maxErrors = 20

// Compile checks rules and builds a Set. Rules are taken in file order, which
// decides between regexes that match the same path. It reports each bad
// rule (up to 20) as a *RuleError, joined with errors.Join.
func Compile(rules []Rule) (*Set, error) {
	b := NewBuilder(DefaultLimits)
	var errs []error
	for i := 0; i < len(rules) && len(errs) < maxErrors; i++ {
		if err := b.Add(&rules[i]); err != nil {
			errs = append(errs, err)
		}
	}
	s, err := b.Set()
	if err != nil {
		errs = append(errs, unjoin(err)...)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs[:min(len(errs), maxErrors)]...)
	}
	return s, nil
}

// unjoin splits an errors.Join result into its errors.
func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// hostRules returns the rules of host (lower case), made when missing.
func (s *Set) hostRules(host string) *hostRules {
	if host == "" {
		return s.any
	}
	table, key := s.hosts, host
	if strings.HasPrefix(key, "*.") {
		table, key = s.wild, key[1:]
	}
	h := table[key]
	if h == nil {
		h = newHostRules()
		table[key] = h
	}
	return h
}

func newHostRules() *hostRules {
	return &hostRules{prefix: newRadix()}
}

// loose reports whether any rule here is compared loosely.
func (h *hostRules) loose() bool {
	return h.fold.m != nil || h.slash.m != nil || h.foldSlash.m != nil || h.prefixFold != nil
}

func compileRule(in *Rule) (*rule, error) {
	r := &rule{Rule: *in}
	// A Set keeps no reference into the caller's memory: From and To of a
	// map file's rules are substrings of the whole file.
	r.From, r.To = strings.Clone(r.From), strings.Clone(r.To)
	r.Host = strings.ToLower(r.Host)
	if r.Kind == Regex && r.CaseInsensitive {
		r.From = "(?i)" + r.From
	}
	switch {
	case r.Pass:
		if r.To != "" {
			return nil, fieldErr("to", "%q given for a no-redirect entry; leave it empty", r.To)
		}
	case !ValidStatus(r.Status):
		return nil, fieldErr("status", "%d is not a redirect status; use 301, 302, 303, 307 or 308", r.Status)
	default:
		if err := checkTo(r.To); err != nil {
			return nil, err
		}
	}
	if len(r.Query) > 0 {
		r.Query = append([]QueryCond(nil), r.Query...)
		sortConds(r.Query)
		for _, q := range r.Query {
			if q.Name == "" {
				return nil, fieldErr("query", "a condition has an empty parameter name")
			}
		}
		r.condKey = condsKey(r.Query)
	}
	var names []string
	switch r.Kind {
	case Exact, Prefix:
		if !strings.HasPrefix(r.From, "/") {
			return nil, fieldErr("from", "%q must be a path starting with '/'", r.From)
		}
		if strings.ContainsAny(r.From, "?#") {
			return nil, fieldErr("from", "%q holds '?' or '#'; it is compared with the path only, without the query", r.From)
		}
	case Regex:
		p, err := compileProgram(r.From)
		if err != nil {
			return nil, fieldErr("from", "cannot compile regex %q: %v", r.From, err)
		}
		r.prog = p
		r.ncaps = 2 * (p.numSubexp() + 1)
		names = p.names
	default:
		return nil, fieldErr("match", "unknown rule kind %d", r.Kind)
	}
	if r.Pass {
		return r, nil
	}
	t, err := parseTemplate(r.To, names, r.QueryString)
	if err != nil {
		return nil, fieldErr("to", "%v", err)
	}
	r.to = t
	return r, nil
}

// checkTo refuses a To that would break the answer's head: Location is
// written as given, so a control character would end the header early.
func checkTo(to string) error {
	if to == "" {
		return fieldErr("to", "empty; give the URL or path to redirect to")
	}
	for i := 0; i < len(to); i++ {
		if c := to[i]; c < 0x20 || c == 0x7f {
			return fieldErr("to", "%q holds a control character at byte %d", to, i)
		}
	}
	return nil
}

func (h *hostRules) add(r *rule) error {
	from := normalizeString(r.From)
	switch r.Kind {
	case Exact:
		if !r.CaseInsensitive && !r.TrailingSlash {
			if h.packed != nil && len(r.Query) == 0 {
				if i, ok := h.packed.find([]byte(from)); ok {
					return fieldErr("from", "duplicate exact rule for %q (first defined at %s)", r.From, h.packed.appendSource(nil, i))
				}
			}
			return h.exact.add(from, r, "exact")
		}
		return h.addLoose(from, r)
	case Prefix:
		tree := &h.prefix
		if r.CaseInsensitive {
			from = lowerString(from)
			tree = &h.prefixFold
		}
		if *tree == nil {
			*tree = newRadix()
		}
		idx := int32(len(h.prefixRules))
		if old := (*tree).insert(from, idx); old >= 0 {
			(*tree).insert(from, old)
			alts, err := link(h.prefixAlts[old], h.prefixRules[old], r, "prefix")
			if err != nil {
				return err
			}
			if h.prefixAlts == nil {
				h.prefixAlts = make(map[int32][]*rule)
			}
			h.prefixAlts[old] = alts
			h.prefixRules[old] = alts[0]
		} else {
			h.prefixRules = append(h.prefixRules, r)
		}
		if r.TrailingSlash && from != "/" && strings.HasSuffix(from, "/") {
			// "/docs/" ignoring the slash also answers "/docs" itself.
			return h.addLoose(from, r)
		}
	case Regex:
		h.regex.add(r)
	}
	return nil
}

// addLoose files an exact rule (or a prefix rule's slash-less form) that
// is compared case-insensitively, without its trailing slash, or both.
func (h *hostRules) addLoose(from string, r *rule) error {
	switch {
	case r.CaseInsensitive && r.TrailingSlash:
		return h.foldSlash.add(trimSlashString(lowerString(from)), r, "exact")
	case r.CaseInsensitive:
		return h.fold.add(lowerString(from), r, "exact")
	default:
		return h.slash.add(trimSlashString(from), r, "exact")
	}
}

// Counts returns the number of rules of each kind.
func (s *Set) Counts() Counts {
	c := Counts{Exact: s.packedN}
	for _, r := range s.rules {
		switch r.Kind {
		case Exact:
			c.Exact++
		case Prefix:
			c.Prefix++
		case Regex:
			c.Regex++
		}
	}
	return c
}

// Len returns the number of rules.
func (s *Set) Len() int { return len(s.rules) + s.packedN }

// Lookup finds the rule for a request: host as sent in the Host header
// (any case, port allowed), path without the query, and query (after '?',
// nil for none) for rules with query conditions. It reports whether a rule
// matched; m then describes the match until its next Lookup. Rules of the
// request's host are tried first, then those of wildcard hosts from the
// longest, then host-less rules. A rule with Pass decides a request as a
// miss: Lookup returns false and m.Passed reports the rule.
func (s *Set) Lookup(host, path, query []byte, m *Match) bool {
	return s.lookup(host, path, query, m) && (m.rule == nil || !m.rule.Pass)
}

func (s *Set) lookup(host, path, query []byte, m *Match) bool {
	m.rule, m.pk, m.rest, m.host, m.query = nil, nil, nil, host, query
	if indexPercent(path) >= 0 {
		m.norm = normalizePath(m.norm[:0], path)
		path = m.norm
	}
	if len(s.hosts) > 0 || len(s.wild) > 0 {
		var buf [maxHostLen]byte
		if key, ok := normalizeHost(buf[:0], host); ok {
			if h := s.hosts[string(key)]; h != nil && h.lookup(path, m) {
				return true
			}
			for i := 0; i < len(key) && len(s.wild) > 0; i++ {
				if key[i] != '.' {
					continue
				}
				if h := s.wild[string(key[i:])]; h != nil && h.lookup(path, m) {
					return true
				}
			}
		}
	}
	return s.any.lookup(path, m)
}

func (h *hostRules) lookup(path []byte, m *Match) bool {
	q := m.query
	if r := h.exact.get(path, q); r != nil {
		m.rule = r
		return true
	}
	if h.packed != nil {
		if i, ok := h.packed.find(path); ok {
			m.pk, m.pi = h.packed, i
			return true
		}
	}
	var lower []byte
	if h.loose() {
		m.lower = appendLower(m.lower[:0], path)
		lower = m.lower
		if r := h.fold.get(lower, q); r != nil {
			m.rule = r
			return true
		}
		if r := h.slash.get(trimSlash(path), q); r != nil {
			m.rule = r
			return true
		}
		if r := h.foldSlash.get(trimSlash(lower), q); r != nil {
			m.rule = r
			return true
		}
	}
	r, n := h.longestPrefix(h.prefix, path, q)
	if h.prefixFold != nil {
		if fr, fn := h.longestPrefix(h.prefixFold, lower, q); fr != nil && (r == nil || fn > n) {
			r, n = fr, fn
		}
	}
	if r != nil {
		m.rule, m.rest = r, path[n:]
		return true
	}
	if r := h.regex.lookup(path, m); r != nil {
		m.rule = r
		return true
	}
	return false
}

// longestPrefix returns the rule of the longest prefix in t of path whose
// query conditions query satisfies, and that prefix's length.
func (h *hostRules) longestPrefix(t *radix, path, query []byte) (*rule, int) {
	var best *rule
	end := 0
	for n, pos := &t.root, 0; n != nil; n, pos = n.step(path, pos) {
		if n.val < 0 {
			continue
		}
		if r := h.prefixRule(n.val, query); r != nil {
			best, end = r, pos
		}
	}
	return best, end
}

// prefixRule returns the rule filed under prefix number v that query
// satisfies.
func (h *hostRules) prefixRule(v int32, query []byte) *rule {
	if h.prefixAlts != nil {
		if alts := h.prefixAlts[v]; alts != nil {
			return pick(alts, query)
		}
	}
	if r := h.prefixRules[v]; len(r.Query) == 0 || condsHold(r.Query, query) {
		return r
	}
	return nil
}

// RuleHits is a rule with its hit count, as Set.Each reports it.
type RuleHits struct {
	*Rule
	Hits uint64
}

// Each calls fn for every rule in file order with its hit count. The Rule
// is valid only during the call; Each allocates for rules of packed
// tables, so it is for tools, not the hot path.
func (s *Set) Each(fn func(RuleHits)) {
	for _, sp := range s.order {
		if sp.t == nil {
			for _, r := range s.rules[sp.lo:sp.hi] {
				fn(RuleHits{Rule: &r.Rule, Hits: r.hits.Load()})
			}
			continue
		}
		for i := sp.lo; i < sp.hi; i++ {
			r := sp.t.rule(uint32(i))
			fn(RuleHits{Rule: &r, Hits: sp.t.hits[i].Load()})
		}
	}
}

// Rules returns every rule in file order, as compiled (hosts lower-cased).
func (s *Set) Rules() []Rule {
	out := make([]Rule, 0, s.Len())
	s.Each(func(r RuleHits) { out = append(out, *r.Rule) })
	return out
}
