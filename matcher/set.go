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
	rules []*rule               // all rules, in file order
}

// hostRules holds the rules of one host (or of none).
type hostRules struct {
	exact  map[string]*rule
	prefix *radix // value: index into prefixRules
	// prefixRules are indexed by the radix values.
	prefixRules []*rule
	regex       regexIndex
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
	s := &Set{any: newHostRules(), hosts: make(map[string]*hostRules), rules: make([]*rule, 0, len(rules))}
	var errs []error
	fail := func(in *Rule, err error) {
		var fe *FieldError
		if !errors.As(err, &fe) {
			fe = &FieldError{Field: "from", Msg: err.Error()}
		}
		errs = append(errs, &RuleError{Rule: *in, FieldError: *fe})
	}
	for i := 0; i < len(rules) && len(errs) < maxErrors; i++ {
		r, err := compileRule(&rules[i])
		if err != nil {
			fail(&rules[i], err)
			continue
		}
		h := s.any
		if r.Host != "" {
			if h = s.hosts[r.Host]; h == nil {
				h = newHostRules()
				s.hosts[r.Host] = h
			}
		}
		if err := h.add(r); err != nil {
			fail(&rules[i], err)
			continue
		}
		s.rules = append(s.rules, r)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return s, nil
}

func newHostRules() *hostRules {
	return &hostRules{exact: make(map[string]*rule), prefix: newRadix()}
}

func compileRule(in *Rule) (*rule, error) {
	r := &rule{Rule: *in}
	r.Host = strings.ToLower(r.Host)
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
	t, err := parseTemplate(r.To, names)
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
	switch r.Kind {
	case Exact:
		if old := h.exact[r.From]; old != nil {
			return fieldErr("from", "duplicate exact rule for %q (first defined at %s)", r.From, old.Source())
		}
		h.exact[r.From] = r
	case Prefix:
		idx := int32(len(h.prefixRules))
		if old := h.prefix.insert(r.From, idx); old >= 0 {
			return fieldErr("from", "duplicate prefix rule for %q (first defined at %s)", r.From, h.prefixRules[old].Source())
		}
		h.prefixRules = append(h.prefixRules, r)
	case Regex:
		h.regex.add(r)
	}
	return nil
}

// Counts returns the number of rules of each kind.
func (s *Set) Counts() Counts {
	var c Counts
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
func (s *Set) Len() int { return len(s.rules) }

// Lookup finds the rule for a request: host as sent in the Host header
// (any case, port allowed) and path without the query. It reports whether a
// rule matched; m then describes the match until its next Lookup.
func (s *Set) Lookup(host, path []byte, m *Match) bool {
	m.rule, m.rest = nil, nil
	if len(s.hosts) > 0 {
		var buf [maxHostLen]byte
		if key, ok := normalizeHost(buf[:0], host); ok {
			if h := s.hosts[string(key)]; h != nil && h.lookup(path, m) {
				return true
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
	if v, n, ok := h.prefix.longest(path); ok {
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

// Each calls fn for every rule in file order with its hit count.
func (s *Set) Each(fn func(RuleHits)) {
	for _, r := range s.rules {
		fn(RuleHits{Rule: &r.Rule, Hits: r.hits.Load()})
	}
}
