package matcher

// Match is the result of Set.Lookup and the caller's working memory for
// it. The zero value is ready to use; reuse one per goroutine (per event
// loop) so lookups allocate nothing once it has grown.
type Match struct {
	rule  *rule
	host  []byte // the request's host as given to Lookup, for $host
	query []byte // the request's query as given to Lookup
	// norm and lower hold the request path normalised and lower-cased,
	// when it needed either.
	norm, lower []byte
	path        []byte // the path of the last regex match, captures index into it
	rest        []byte // the path after a prefix rule's From
	caps        []int
	// capsOf is the rule whose successful match filled caps, so that a
	// failed attempt at another candidate is not mistaken for it.
	capsOf  *rule
	scratch Scratch
}

// Rule returns the matched rule.
func (m *Match) Rule() *Rule { return &m.rule.Rule }

// Hit counts a request answered with the matched rule: one atomic add.
// Lookup does not count, so that explain and tests leave counts alone.
func (m *Match) Hit() { m.rule.hits.Add(1) }

// Source returns the matched rule's "file:line". It allocates the first
// time a rule is asked, and never again for that rule.
func (m *Match) Source() string {
	if p := m.rule.source.Load(); p != nil {
		return *p
	}
	s := m.rule.Source()
	m.rule.source.Store(&s)
	return s
}

// Status returns the matched rule's status code.
func (m *Match) Status() int { return m.rule.Status }

// AppendLocation appends the Location of the match to dst and returns it:
// To with regex groups filled in, then (prefix rules) the rest of the path,
// then '?' or '&' and query when query is not empty.
func (m *Match) AppendLocation(dst, query []byte) []byte {
	r := m.rule
	if r.Kind == Regex {
		return r.to.appendLocation(dst, m.path, m.caps[:r.ncaps], nil, m.host, query)
	}
	return r.to.appendLocation(dst, nil, nil, m.rest, m.host, query)
}

func (m *Match) matchRegex(r *rule, path []byte) bool {
	if cap(m.caps) < r.ncaps {
		m.caps = make([]int, r.ncaps)
	}
	m.capsOf = nil
	if !r.prog.match(path, m.caps[:r.ncaps], &m.scratch) {
		return false
	}
	m.capsOf, m.path = r, path
	return true
}
