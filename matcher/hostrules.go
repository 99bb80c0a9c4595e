package matcher

import (
	"math"
	"strings"

	"github.com/redirectd/redirectd/internal/ascii"
)

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
	prefixAlts map[int32]*altList
	regex      regexIndex
	// Rules with RequestURI, compared with the request target as sent:
	// exact ones by the target (uriFold: lower-cased), regexes in uriRegex.
	uri, uriFold exactTable
	uriRegex     regexIndex
	// packed holds the plain exact rules (see packable), nil when none.
	packed *packedTable
	// decoded holds the exact rules with DecodedPath that are not
	// packed, by decodedIndex; decodedN counts them and the packed ones.
	decoded  [6]exactTable
	decodedN int
	// formPacked holds the packed tables of loose exact rules, by form
	// (packed_form.go); formN counts them.
	formPacked [numForms]*packedTable
	formN      int
	// uriMode is the Set's (urimode.go): with Nginx, rules are filed
	// under nginx's $uri of their From.
	uriMode URI
}

// lookupDecoded looks the decoded path up in the decoded tables, each
// form's unpacked rules (those with conditions among them) before its
// packed ones, and records a match in m.
func (h *hostRules) lookupDecoded(m *Match) bool {
	p := m.decodedPath()
	for i := range h.decoded {
		f := decodedIndexForm(i)
		t, pt := &h.decoded[i], h.formPacked[f]
		if t.m == nil && pt == nil {
			continue
		}
		key := p
		if f != formDecoded {
			m.decKey = appendFormKey(m.decKey[:0], p, f)
			key = m.decKey
		}
		if r := t.get(key, m); r != nil {
			m.rule = r
			return true
		}
		if h.findForm(f, key, m) {
			return true
		}
	}
	return false
}

// finishAlts builds the index of every list of rules told apart by
// their conditions (alts.go). In file order each list is tried in file
// order too: a rule without conditions before one with them answers
// first, where by default those with conditions are tried first.
func (h *hostRules) finishAlts(fileOrder bool) {
	for _, t := range []*exactTable{&h.exact, &h.fold, &h.slash, &h.foldSlash, &h.uri, &h.uriFold} {
		t.finish(fileOrder)
	}
	for i := range h.decoded {
		h.decoded[i].finish(fileOrder)
	}
	for _, a := range h.prefixAlts {
		a.finish(fileOrder)
	}
}

func (h *hostRules) add(r *rule) error {
	if r.RequestURI {
		return h.addURI(r)
	}
	if r.DecodedPath {
		// From is decoded too, so that a key may be written either way
		// ("/a:b" or "/a%3Ab"; "/faq?" or "/faq%3F").
		f := ruleForm(&r.Rule)
		key := formKey(r.From, f, h.uriMode)
		if err := h.dupInForm(f, key, r); err != nil {
			return err
		}
		h.decodedN++
		return h.decoded[decodedIndex(f)].add(key, r, "exact")
	}
	from := normalizeString(r.From)
	if h.uriMode.Nginx {
		from, _ = nginxKey(r.From, h.uriMode)
	}
	switch r.Kind {
	case Exact:
		if !r.CaseInsensitive && !r.TrailingSlash {
			if h.packed != nil && !r.conditional() {
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
				h.prefixAlts = make(map[int32]*altList)
			}
			h.prefixAlts[old] = alts
			h.prefixRules[old] = alts.rules[0]
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
	if r.Kind == Exact {
		f := ruleForm(&r.Rule)
		if err := h.dupInForm(f, formKey(r.From, f, h.uriMode), r); err != nil {
			return err
		}
	}
	switch {
	case r.CaseInsensitive && r.TrailingSlash:
		return h.foldSlash.add(trimSlashString(lowerString(from)), r, "exact")
	case r.CaseInsensitive:
		return h.fold.add(lowerString(from), r, "exact")
	default:
		return h.slash.add(trimSlashString(from), r, "exact")
	}
}

// addURI files a rule with RequestURI. Its From is not normalised: nginx's
// $request_uri is the target as sent.
func (h *hostRules) addURI(r *rule) error {
	switch {
	case r.TrailingSlash:
		return fieldErr("trailing_slash", "not available with request_uri, which compares the target as sent")
	case r.Kind == Regex:
		h.uriRegex.add(r)
		return nil
	case r.CaseInsensitive:
		return h.uriFold.add(lowerString(r.From), r, "exact")
	default:
		return h.uri.add(r.From, r, "exact")
	}
}

func (h *hostRules) lookup(path []byte, m *Match) bool {
	if r := h.exact.get(path, m); r != nil {
		m.rule = r
		return true
	}
	if h.packed != nil {
		if i, ok := h.packed.find(path); ok {
			m.pk, m.pi = h.packed, i
			return true
		}
	}
	if h.uri.m != nil || h.uriFold.m != nil {
		if r := h.uri.get(m.uri, m); r != nil {
			m.rule = r
			return true
		}
		if h.uriFold.m != nil {
			m.uriLower = ascii.AppendLower(m.uriLower[:0], m.uri)
			if r := h.uriFold.get(m.uriLower, m); r != nil {
				m.rule = r
				return true
			}
		}
	}
	var lower []byte
	if h.loose() {
		m.lower = ascii.AppendLower(m.lower[:0], path)
		lower = m.lower
		if r := h.fold.get(lower, m); r != nil {
			m.rule = r
			return true
		}
		if h.findForm(formFold, lower, m) {
			return true
		}
		if r := h.slash.get(trimSlash(path), m); r != nil {
			m.rule = r
			return true
		}
		if h.findForm(formSlash, trimSlash(path), m) {
			return true
		}
		if r := h.foldSlash.get(trimSlash(lower), m); r != nil {
			m.rule = r
			return true
		}
		if h.findForm(formFold|formSlash, trimSlash(lower), m) {
			return true
		}
	}
	if h.decodedN > 0 && h.lookupDecoded(m) {
		return true
	}
	r, n := h.longestPrefix(h.prefix, path, m)
	if h.prefixFold != nil {
		if fr, fn := h.longestPrefix(h.prefixFold, lower, m); fr != nil && (r == nil || fn > n) {
			r, n = fr, fn
		}
	}
	if r != nil {
		m.rule, m.rest = r, path[n:]
		return true
	}
	return h.lookupRegex(path, m)
}

// lookupRegex answers the regex tier: the earliest rule in file order of
// those compared with the path and those compared with the target.
func (h *hostRules) lookupRegex(path []byte, m *Match) bool {
	x, in, folded := &h.regex, path, &m.fold
	var hit litHit
	r := x.lookup(path, m.query, math.MaxInt32, &m.fold, &hit, m)
	if !h.uriRegex.empty() {
		// The target's candidates match into other captures, so that the
		// path's winner keeps its own and runs once.
		won, wonPath := m.capsOf, m.path
		m.caps, m.caps2 = m.caps2, m.caps
		var uhit litHit
		ur := h.uriRegex.lookup(m.uri, m.query, x.seqOf(r, &hit), &m.foldURI, &uhit, m)
		if ur != nil || uhit.i >= 0 {
			x, r, hit, in, folded = &h.uriRegex, ur, uhit, m.uri, &m.foldURI
		} else {
			m.caps, m.caps2 = m.caps2, m.caps
			m.capsOf, m.path = won, wonPath
		}
	}
	switch {
	case r != nil:
		m.rule = r
		if m.capsOf != r {
			// A later candidate overwrote the captures; rerun the winner.
			m.matchRegex(r, in)
		}
	case hit.i >= 0:
		l := x.lit(hit.i)
		if cap(m.caps) < 4 {
			m.caps = make([]int, 4)
		}
		f := in
		if l.fold {
			f = *folded
		}
		hit.fillCaps(m.caps[:l.ncaps()], &l.litPattern, in, f)
		m.lx, m.li, m.path, m.capsOf = x, hit.i, in, nil
	default:
		return false
	}
	return true
}

// longestPrefix returns the rule of the longest prefix in t of path whose
// query conditions query satisfies, and that prefix's length.
func (h *hostRules) longestPrefix(t *radix, path []byte, m *Match) (*rule, int) {
	var best *rule
	end := 0
	shadow := m.shadow
	for n, pos := &t.root, 0; n != nil; n, pos = n.step(path, pos) {
		if n.val < 0 {
			continue
		}
		before := m.shadow
		r := h.prefixRule(n.val, m)
		if m.shadow != before {
			m.shadowRest = path[pos:]
		}
		if r != nil {
			best, end = r, pos
			if before != shadow {
				// A shadow rule of a shorter prefix loses to this one.
				m.shadow = shadow
			}
		}
	}
	return best, end
}

// prefixRule returns the rule filed under prefix number v that query
// satisfies.
func (h *hostRules) prefixRule(v int32, m *Match) *rule {
	if h.prefixAlts != nil {
		if alts := h.prefixAlts[v]; alts != nil {
			return alts.pick(m)
		}
	}
	if r := h.prefixRules[v]; !r.conditional() || r.holds(m) {
		return r
	}
	return nil
}
