package matcher

import (
	"sync"

	"github.com/redirectd/redirectd/internal/hostmap"
)

// Set is an immutable, compiled rule set. Lookups on one Set may run from
// any number of goroutines at once.
type Set struct {
	// countries answers when.country (conditions.go); nil: no database.
	countries Countries
	any       *hostRules // rules without a host
	// hosts holds the rules of each lower-case host or wildcard host
	// ("*.example.com", covering names at any depth below).
	hosts hostmap.Map[*hostRules]
	rules []*rule // the rules not in packed tables, in file order
	// packed holds the packed tables of every host, packedN their rules;
	// order lists rules and packed entries in file order, for Each.
	packed  []*packedTable
	packedN int
	// litN counts the lowered regexes, kept in their regexIndex.
	litN  int
	order []span
	// uri is set when a rule has RequestURI, so lookups build the target.
	uri bool
	// fileOrder: the first matching rule in file order wins, whatever
	// its kind and host (fileorder.go).
	fileOrder bool
	// uriMode is which path the rules compare (urimode.go).
	uriMode URI
	// headers are the header lines of answers no rule's headers decide
	// (headers.go).
	headers    string
	headerList []Header
	// near is NearMisses's index, built on its first call (near.go).
	nearOnce sync.Once
	near     *nearIndex
	// locations is the location phase (set_locations.go).
	locations any
}

// span is a run of rules in file order: entries lo to hi of t, or of x's
// lowered regexes, or s.rules[lo:hi] when both are nil.
type span struct {
	t      *packedTable
	x      *regexIndex
	lo, hi int
}

// Counts tells how many rules of each kind a Set holds. Its JSON keys are
// snake_case, as every JSON output of redirectd's (check -format json).
type Counts struct {
	Exact  int `json:"exact"`
	Prefix int `json:"prefix"`
	Regex  int `json:"regex"`
}

// Counts returns the number of rules of each kind.
func (s *Set) Counts() Counts {
	c := Counts{Exact: s.packedN, Regex: s.litN}
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

// FileOrder reports whether the first matching rule in file order wins
// (Builder.FileOrder), rather than exact, prefix, regex per host.
func (s *Set) FileOrder() bool { return s.fileOrder }

// Len returns the number of rules.
func (s *Set) Len() int { return len(s.rules) + s.packedN + s.litN }

// Lookup finds the rule for a request: host as sent in the Host header
// (any case, port allowed), path without the query, and query (after '?',
// nil for none) for rules with query conditions. It reports whether a rule
// matched; m then describes the match until its next Lookup. Rules of the
// request's host are tried first, then those of wildcard hosts from the
// longest, then host-less rules. A rule with Pass decides a request as a
// miss: Lookup returns false and m.Passed reports the rule. A rule with a
// window (Rule.Active) outside it at m.Now, or in shadow mode, is passed
// over as if absent; m.Shadowed reports a shadow rule that would have won.
func (s *Set) Lookup(host, path, query []byte, m *Match) bool {
	return s.lookup(host, path, query, m) && !m.passed()
}

func (s *Set) lookup(host, path, query []byte, m *Match) bool {
	m.rule, m.pk, m.lx, m.rest, m.host, m.query, m.shadow = nil, nil, nil, nil, host, query, nil
	m.failVary = ""
	m.qp.ready, m.cp.ready = false, false
	m.runs, m.passes, m.scratch.steps = 0, 0, 0
	m.pcreLeft, m.pcreAbandoned = pcreBudget, false
	// nginx's $uri of this path, built by RefusesURI for this request,
	// is kept; anything else is built again.
	kept := m.uriKept && s.uriMode.Nginx && m.ngx && m.ngxMode == s.uriMode && samePath(m.raw, path)
	m.uriKept = false
	if !kept {
		m.decoded, m.ngx, m.bad = false, false, false
	}
	m.raw, m.fileOrder = path, s.fileOrder
	if s.uri {
		m.uri = append(m.uri[:0], path...)
		if query != nil {
			m.uri = append(append(m.uri, '?'), query...)
		}
	}
	if indexPercent(path) >= 0 {
		m.norm = normalizePath(m.norm[:0], path)
		path = m.norm
	}
	if s.uriMode.Nginx {
		// Every rule but the target's compares $uri, built here once.
		if !kept {
			m.ngxMode = s.uriMode
			m.nginxURIPath(m.raw, s.uriMode)
		}
		if m.bad {
			return false
		}
		path = m.dec
	}
	if s.fileOrder {
		return s.lookupFileOrder(host, path, m)
	}
	if !s.hosts.Empty() {
		var buf [maxHostLen]byte
		if key, ok := normalizeHost(buf[:0], host); ok {
			if h, _ := s.hosts.Exact(key); h != nil && h.lookup(path, m) {
				return true
			}
			for i := 0; ; {
				h, next, ok := s.hosts.Wild(key, i)
				if !ok {
					break
				}
				if h.lookup(path, m) {
					return true
				}
				i = next
			}
		}
	}
	return s.any.lookup(path, m)
}

// hostRules returns the rules of host (lower case), made when missing.
func (s *Set) hostRules(host string) *hostRules {
	if host == "" {
		return s.any
	}
	h, _ := s.hosts.Get(host)
	if h == nil {
		h = newHostRules()
		h.uriMode = s.uriMode
		h.regex.host, h.uriRegex.host = host, host
		s.hosts.Put(host, h)
	}
	return h
}

// eachHost calls fn for the rules of every host, and of none.
func (s *Set) eachHost(fn func(*hostRules)) {
	fn(s.any)
	s.hosts.Values(fn)
}

func newHostRules() *hostRules {
	return &hostRules{prefix: newRadix()}
}

// loose reports whether any rule here is compared loosely.
func (h *hostRules) loose() bool {
	return h.fold.m != nil || h.slash.m != nil || h.foldSlash.m != nil || h.prefixFold != nil || h.formN > 0
}

// RuleHits is a rule with its hit count, as Set.Each reports it.
type RuleHits struct {
	*Rule
	Hits uint64
	// LastAnswered is when the rule last answered a request, in Unix
	// seconds; 0 for never (since it was loaded, or carried).
	LastAnswered int64
	// ShadowHits counts the requests a shadow rule would have answered.
	ShadowHits uint64
}

// Each calls fn for every rule in file order with its hit count. The Rule
// is valid only during the call; Each allocates for rules of packed
// tables, so it is for tools, not the hot path.
func (s *Set) Each(fn func(RuleHits)) {
	for _, sp := range s.order {
		switch {
		case sp.t != nil:
			for i := sp.lo; i < sp.hi; i++ {
				r := sp.t.rule(uint32(i))
				fn(RuleHits{Rule: &r, Hits: sp.t.hits[i].Load(), LastAnswered: unstamp(&sp.t.last[i])})
			}
		case sp.x != nil:
			for i := sp.lo; i < sp.hi; i++ {
				r := sp.x.rule(int32(i))
				l := sp.x.lit(int32(i))
				fn(RuleHits{Rule: &r, Hits: l.hits.Load(), LastAnswered: unstamp(&l.last)})
			}
		default:
			for _, r := range s.rules[sp.lo:sp.hi] {
				if r.Shadow {
					fn(RuleHits{Rule: &r.Rule, ShadowHits: r.hits.Load()})
					continue
				}
				fn(RuleHits{Rule: &r.Rule, Hits: r.hits.Load(), LastAnswered: unstamp(&r.last)})
			}
		}
	}
}

// Rules returns every rule in file order, as compiled (hosts lower-cased).
func (s *Set) Rules() []Rule {
	out := make([]Rule, 0, s.Len())
	s.Each(func(r RuleHits) { out = append(out, *r.Rule) })
	return out
}
