package matcher

import (
	"errors"
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
	exact map[string]*rule
	// Exact rules compared loosely: case-insensitive ones by their
	// lower-cased path (fold), trailing-slash-insensitive ones without the
	// slash (slash), rules that are both under both (foldSlash).
	fold, slash, foldSlash map[string]*rule
	// prefix and prefixFold (case-insensitive rules, lower-cased) map
	// prefixes to indexes into prefixRules.
	prefix, prefixFold *radix
	prefixRules        []*rule
	regex              regexIndex
	// packed holds the plain exact rules (see packable), nil when none.
	packed *packedTable
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
	prog   *program // regex rules only
	ncaps  int      // 2 * (groups + 1), regex rules only
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
	return &hostRules{exact: make(map[string]*rule), prefix: newRadix()}
}

// loose reports whether any rule here is compared loosely.
func (h *hostRules) loose() bool {
	return h.fold != nil || h.slash != nil || h.foldSlash != nil || h.prefixFold != nil
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
	if !ValidStatus(r.Status) {
		return nil, fieldErr("status", "%d is not a redirect status; use 301, 302, 303, 307 or 308", r.Status)
	}
	if err := checkTo(r.To); err != nil {
		return nil, err
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
			if h.packed != nil {
				if i, ok := h.packed.find([]byte(from)); ok {
					return fieldErr("from", "duplicate exact rule for %q (first defined at %s)", r.From, h.packed.appendSource(nil, i))
				}
			}
			return addExact(&h.exact, from, r, "exact")
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
			return fieldErr("from", "duplicate prefix rule for %q (first defined at %s)", r.From, h.prefixRules[old].Source())
		}
		h.prefixRules = append(h.prefixRules, r)
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
		return addExact(&h.foldSlash, trimSlashString(lowerString(from)), r, "exact")
	case r.CaseInsensitive:
		return addExact(&h.fold, lowerString(from), r, "exact")
	default:
		return addExact(&h.slash, trimSlashString(from), r, "exact")
	}
}

func addExact(m *map[string]*rule, key string, r *rule, kind string) error {
	if *m == nil {
		*m = make(map[string]*rule)
	}
	if old := (*m)[key]; old != nil && old != r {
		return fieldErr("from", "duplicate %s rule for %q (first defined at %s)", kind, r.From, old.Source())
	}
	(*m)[key] = r
	return nil
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
// (any case, port allowed) and path without the query. It reports whether a
// rule matched; m then describes the match until its next Lookup. Rules of
// the request's host are tried first, then those of wildcard hosts from
// the longest, then host-less rules.
func (s *Set) Lookup(host, path []byte, m *Match) bool {
	m.rule, m.pk, m.rest, m.host = nil, nil, nil, host
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
	if r := h.exact[string(path)]; r != nil {
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
		if r := h.fold[string(lower)]; r != nil {
			m.rule = r
			return true
		}
		if r := h.slash[string(trimSlash(path))]; r != nil {
			m.rule = r
			return true
		}
		if r := h.foldSlash[string(trimSlash(lower))]; r != nil {
			m.rule = r
			return true
		}
	}
	v, n, ok := h.prefix.longest(path)
	if h.prefixFold != nil {
		if fv, fn, fok := h.prefixFold.longest(lower); fok && (!ok || fn > n) {
			v, n, ok = fv, fn, true
		}
	}
	if ok {
		m.rule, m.rest = h.prefixRules[v], path[n:]
		return true
	}
	if r := h.regex.lookup(path, m); r != nil {
		m.rule = r
		return true
	}
	return false
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
