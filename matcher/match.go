package matcher

import (
	"bytes"
	"unsafe"

	"github.com/redirectd/redirectd/matcher/pcre"
)

// Match is the result of Set.Lookup and the caller's working memory for
// it. The zero value is ready to use; reuse one per goroutine (per event
// loop) so lookups allocate nothing once it has grown.
type Match struct {
	// Req is the request, for rules with conditions (Rule.When); the
	// caller sets it before Lookup. Nil means no such rule matches.
	Req Request
	// failVary is the Vary line of a rule whose conditions failed during
	// the last Lookup.
	failVary string
	rule     *rule
	// pk and pi are the packed table and entry matched, when rule is nil;
	// lx and li the lowered regex (regexIndex.lits), when both are.
	pk   *packedTable
	pi   uint32
	lx   *regexIndex
	li   int32
	pr   Rule   // Rule() of a packed entry
	src  []byte // Source() of a packed entry
	host []byte // the request's host as given to Lookup, for $host
	// raw is the request's path as given to Lookup, for $path; dec is it
	// decoded (decode.go) once decoded is set, for $uri and rules with
	// DecodedPath; decKey is dec in a table's form (folded, trimmed).
	// decBuf is dec's own memory: dec may be raw itself.
	raw, dec, decKey, decBuf []byte
	decoded                  bool
	// ngx: dec is nginx's $uri (Set.URI's Nginx), with the flags nginx
	// noted of the path; bad: nginx answers 400 to the path.
	ngx, bad bool
	// ngxMode is the URI setting dec was built under; uriKept: by
	// RefusesURI, for the next Lookup.
	ngxMode URI
	uriKept bool
	uflags  uriFlags
	query   []byte // the request's query as given to Lookup
	// qp and cp are the query and the cookies split for conditions
	// (params.go), on first use after a Lookup.
	qp, cp params
	// altCands and altKey are altIndex.pick's working memory.
	altCands []int32
	altKey   []byte
	// norm and lower hold the request path normalised and lower-cased,
	// when it needed either.
	norm, lower []byte
	path        []byte // the path of the last regex match, captures index into it
	rest        []byte // the path after a prefix rule's From
	caps        []int
	// uri is the request target as sent (raw path, '?', query), built when
	// the Set has RequestURI rules; uriLower is it lower-cased; fold and
	// foldURI are the path and target folded for (?i) lowered regexes.
	uri, uriLower, fold, foldURI []byte
	// cands are the regex tier's candidates, sorted in file order, and
	// grams the indexed grams of the input, each once (regex.go).
	cands, left []*rule
	grams       []uint32
	// gramsTmp is sortGrams' second buffer.
	gramsTmp []uint32
	// capsOf is the rule whose successful match filled caps, so that a
	// failed attempt at another candidate is not mistaken for it.
	capsOf *rule
	// caps2 holds the other tier's captures while lookupRegex tries the
	// rules compared with the target.
	caps2   []int
	scratch Scratch
	// dfa answers the candidates left past the work budget; runs counts
	// the backtracker runs of the last Lookup and passes its one-pass
	// runs, for tests.
	dfa          setDFA
	runs, passes int
	// budget replaces workBudget when not 0, for tests (-1: every
	// candidate goes to the one pass).
	budget int
	// pcre is the PCRE regexes' scratch, pcreLeft the steps the lookup
	// may still spend on them, pcreAbandoned whether it ran out
	// (regex_pcre.go).
	pcre          pcre.Scratch
	pcreLeft      int
	pcreAbandoned bool
	// Now is the time windows are compared with, in Unix nanoseconds; the
	// server sets its coarse clock's. Zero means time.Now, read only when
	// a rule with a window matches.
	Now int64
	// shadow is the first shadow rule the last Lookup met (shadow.go),
	// with what its Location needs.
	shadow                 *rule
	shadowRest, shadowPath []byte
	shadowCaps             []int
	// fileOrder is the Set's of the last Lookup (Builder.FileOrder).
	fileOrder bool
}

// Rule returns the matched rule, valid until the next Lookup. A rule of a
// packed table is made on the call, with its From and To allocated: Rule
// is for explain and tools, not the hot path.
func (m *Match) Rule() *Rule {
	switch {
	case m.pk != nil:
		m.pr = m.pk.rule(m.pi)
		return &m.pr
	case m.lx != nil:
		m.pr = m.lx.rule(m.li)
		return &m.pr
	}
	return &m.rule.Rule
}

// Passed returns the no-redirect rule (Rule.Pass) that decided the last
// Lookup as a miss, or nil when no rule matched or a redirect did.
func (m *Match) Passed() *Rule {
	if m.passed() {
		return m.Rule()
	}
	return nil
}

// passed reports whether the last Lookup ended on a Pass rule.
func (m *Match) passed() bool {
	return m.rule != nil && m.rule.Pass || m.lx != nil && m.lx.lit(m.li).flags&litPass != 0
}

// Hit counts a request answered with the matched rule: one atomic add,
// and the time it last answered (stamp: a load, and a store only when
// the second changed). Lookup does not count, so that explain and tests
// leave counts alone.
func (m *Match) Hit() {
	now := m.stampNow()
	switch {
	case m.pk != nil:
		m.pk.hits[m.pi].Add(1)
		stamp(&m.pk.last[m.pi], now)
		return
	case m.lx != nil:
		l := m.lx.lit(m.li)
		l.hits.Add(1)
		stamp(&l.last, now)
		return
	}
	m.rule.hits.Add(1)
	stamp(&m.rule.last, now)
}

// Source returns the matched rule's "file:line" without allocating once
// warm. For a rule of a packed table the string is built in the Match's
// own memory, so it is valid only until the next Source call on this
// Match: the access log copies it at once. (A cached string per rule, as
// ordinary rules have, would put a pointer per rule back into a million-
// rule table for the garbage collector to scan.)
func (m *Match) Source() string {
	switch {
	case m.pk != nil:
		m.src = m.pk.appendSource(m.src[:0], m.pi)
		return unsafe.String(unsafe.SliceData(m.src), len(m.src))
	case m.lx != nil:
		m.src = m.lx.appendSource(m.src[:0], m.li)
		return unsafe.String(unsafe.SliceData(m.src), len(m.src))
	}
	if p := m.rule.source.Load(); p != nil {
		return *p
	}
	s := m.rule.Source()
	m.rule.source.Store(&s)
	return s
}

// Line returns the matched rule's Line without allocating: package
// rewrite files a map's regex keys as rules whose Line is the key's
// position, and reads which key matched by it.
func (m *Match) Line() int {
	switch {
	case m.pk != nil:
		return int(m.pk.ents[m.pi].line)
	case m.lx != nil:
		return int(m.lx.lit(m.li).line)
	}
	return m.rule.Line
}

// Status returns the matched rule's status code.
func (m *Match) Status() int {
	switch {
	case m.pk != nil:
		return m.pk.status(m.pi)
	case m.lx != nil:
		return int(m.lx.lit(m.li).status)
	}
	return m.rule.Status
}

// AppendLocation appends the Location of the match to dst and returns it:
// To with regex groups filled in, then (prefix rules) the rest of the path,
// then '?' or '&' and query when query is not empty.
func (m *Match) AppendLocation(dst, query []byte) []byte {
	switch {
	case m.pk != nil:
		return m.pk.appendLocation(dst, m.pi, query)
	case m.lx != nil:
		return m.lx.appendLocation(dst, m.li, m.path, m.caps, m, query)
	}
	r := m.rule
	if r.Kind == Regex {
		return r.to.appendLocation(dst, m.path, m.caps[:r.ncaps], nil, m, query)
	}
	return r.to.appendLocation(dst, nil, nil, m.rest, m, query)
}

// decodedPath returns the request's path in its decoded form, decoding
// it on the first call after a Lookup.
func (m *Match) decodedPath() []byte {
	if !m.decoded {
		m.dec, m.decoded = decodePath(m.decBuf[:0], m.raw), true
		if unsafe.SliceData(m.dec) != unsafe.SliceData(m.raw) {
			// Decoded into decBuf (perhaps grown). When nothing needed
			// decoding dec is the caller's path, which must never be
			// appended to.
			m.decBuf = m.dec[:0]
		}
	}
	return m.dec
}

// Path returns the path of the last Lookup as rules compare it:
// percent-encoded unreserved characters decoded, the hex of other
// escapes upper-cased (normalize.go), so that "/%62log/" and "/blog/"
// are one path; in a Set of URI.Nginx, nginx's $uri (the upstream routes
// then choose on what nginx's locations see). It is valid until the next
// Lookup and allocates nothing.
func (m *Match) Path() []byte {
	if m.ngx && !m.bad {
		return m.dec
	}
	if indexPercent(m.raw) >= 0 {
		return m.norm
	}
	return m.raw
}

// OnePass reports whether the last Lookup's regex candidates cost more
// than the work budget one by one, the rest answered in one pass over
// the path (regex_dfa.go): a request worth counting, most likely crafted
// from the rules' literals.
func (m *Match) OnePass() bool { return m.passes > 0 }

func (m *Match) matchRegex(r *rule, path []byte) bool {
	m.runs++
	if cap(m.caps) < r.ncaps {
		m.caps = make([]int, r.ncaps)
	}
	m.capsOf = nil
	if r.prog.pcre != nil {
		return m.matchPCRE(r, path)
	}
	caps, in := m.caps[:r.ncaps], path
	if r.prog.tooBig(len(path)) {
		if !r.prog.matchBig(path, caps) {
			return false
		}
		m.capsOf, m.path = r, path
		return true
	}
	if n := len(r.prog.strip); n > 0 {
		if !bytes.HasPrefix(path, []byte(r.prog.strip)) {
			return false
		}
		in = path[n:]
	}
	if !r.prog.match(in, caps, &m.scratch) {
		return false
	}
	if n := len(r.prog.strip); n > 0 {
		caps[0] = 0
		for i := 1; i < len(caps); i++ {
			if caps[i] >= 0 {
				caps[i] += n
			}
		}
	}
	m.capsOf, m.path = r, path
	return true
}
