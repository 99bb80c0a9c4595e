package matcher

import (
	"math"

	"github.com/redirectd/redirectd/internal/ascii"
)

// File order (Builder.FileOrder) is how Netlify and Vercel apply their
// rules: the first rule in the file that matches wins, whatever its kind
// and host. The indexes are the same as for precedence order; a lookup
// asks each of them for its earliest matching rule and keeps the one of
// smallest seq, and the regex tier, asked last, stops at the best seq
// found so far. Nothing is scanned rule by rule.

// fileCand is the earliest matching rule a file-order lookup has found
// so far: an ordinary rule (r), or a lowered regex (x and hit).
type fileCand struct {
	seq  int32
	r    *rule
	x    *regexIndex
	hit  litHit
	uri  bool   // x or r's regex was compared with the request target
	rest []byte // a prefix rule's rest of the path
}

// take makes r the candidate when it comes before it in file order.
func (c *fileCand) take(r *rule, rest []byte) {
	if r != nil && r.seq < c.seq {
		*c = fileCand{seq: r.seq, r: r, rest: rest, uri: r.RequestURI}
	}
}

// lookupFileOrder is Set.lookup for a Set in file order: the request's
// host, its wildcard hosts and host-less rules are all asked, and the
// earliest rule of them all answers.
func (s *Set) lookupFileOrder(host, path []byte, m *Match) bool {
	c := fileCand{seq: math.MaxInt32}
	if !s.hosts.Empty() {
		var buf [maxHostLen]byte
		if key, ok := normalizeHost(buf[:0], host); ok {
			if h, _ := s.hosts.Exact(key); h != nil {
				h.firstInFile(path, m, &c)
			}
			for i := 0; ; {
				h, next, ok := s.hosts.Wild(key, i)
				if !ok {
					break
				}
				h.firstInFile(path, m, &c)
				i = next
			}
		}
	}
	s.any.firstInFile(path, m, &c)
	if m.shadow != nil && m.shadow.seq > c.seq {
		m.shadow = nil // after the live answer: it would not have answered
	}
	return m.takeFileCand(&c, path)
}

// firstInFile narrows c to the earliest rule of h that matches, if it
// comes before c: each exact table gives the rule of its key, the prefix
// trees every prefix of the path (not only the longest), and the regex
// indexes the earliest regex before c.
func (h *hostRules) firstInFile(path []byte, m *Match, c *fileCand) {
	c.take(h.exact.get(path, m), nil)
	if h.uri.m != nil || h.uriFold.m != nil {
		c.take(h.uri.get(m.uri, m), nil)
		if h.uriFold.m != nil {
			m.uriLower = ascii.AppendLower(m.uriLower[:0], m.uri)
			c.take(h.uriFold.get(m.uriLower, m), nil)
		}
	}
	var lower []byte
	if h.loose() {
		m.lower = ascii.AppendLower(m.lower[:0], path)
		lower = m.lower
		c.take(h.fold.get(lower, m), nil)
		c.take(h.slash.get(trimSlash(path), m), nil)
		c.take(h.foldSlash.get(trimSlash(lower), m), nil)
	}
	if h.decodedN > 0 {
		p := m.decodedPath()
		for i := range h.decoded {
			f := decodedIndexForm(i)
			if h.decoded[i].m == nil {
				continue
			}
			key := p
			if f != formDecoded {
				m.decKey = appendFormKey(m.decKey[:0], p, f)
				key = m.decKey
			}
			c.take(h.decoded[i].get(key, m), nil)
		}
	}
	h.everyPrefix(h.prefix, path, path, m, c)
	if h.prefixFold != nil {
		h.everyPrefix(h.prefixFold, lower, path, m, c)
	}
	h.firstRegex(&h.regex, path, &m.fold, false, m, c)
	if !h.uriRegex.empty() {
		h.firstRegex(&h.uriRegex, m.uri, &m.foldURI, true, m, c)
	}
}

// everyPrefix offers c the rule of each prefix of key in t; path is the
// request's path, of key's length, for the rest.
func (h *hostRules) everyPrefix(t *radix, key, path []byte, m *Match, c *fileCand) {
	for n, pos := &t.root, 0; n != nil; n, pos = n.step(key, pos) {
		if n.val >= 0 {
			before := m.shadow
			c.take(h.prefixRule(n.val, m), path[pos:])
			if m.shadow != before {
				m.shadowRest = path[pos:]
			}
		}
	}
}

// firstRegex offers c the earliest regex of x before it that matches in.
func (h *hostRules) firstRegex(x *regexIndex, in []byte, fold *[]byte, uri bool, m *Match, c *fileCand) {
	if x.empty() {
		return
	}
	var hit litHit
	r := x.lookup(in, m.query, c.seq, fold, &hit, m)
	switch {
	case r != nil:
		c.take(r, nil)
	case hit.i >= 0:
		*c = fileCand{seq: x.lit(hit.i).seq, x: x, hit: hit, uri: uri}
	}
}

// takeFileCand records c in m as lookupRegex and hostRules.lookup record
// their answers, running a regex winner again when another candidate's
// run took the captures since. It reports whether c holds a rule.
func (m *Match) takeFileCand(c *fileCand, path []byte) bool {
	in, folded := path, &m.fold
	if c.uri {
		in, folded = m.uri, &m.foldURI
	}
	switch {
	case c.x != nil:
		l := c.x.lit(c.hit.i)
		if cap(m.caps) < 4 {
			m.caps = make([]int, 4)
		}
		f := in
		if l.fold {
			f = *folded
		}
		c.hit.fillCaps(m.caps[:l.ncaps()], &l.litPattern, in, f)
		m.lx, m.li, m.path, m.capsOf = c.x, c.hit.i, in, nil
	case c.r != nil:
		m.rule, m.rest = c.r, c.rest
		if c.r.Kind == Regex && m.capsOf != c.r {
			m.matchRegex(c.r, in)
		}
	default:
		return false
	}
	return true
}
