package matcher

import (
	"encoding/binary"
	"slices"
)

// altList is the rules filed under one path (or prefix) that conditions
// tell apart, in the order they are tried: those with conditions in file
// order, then the one without. The first whose conditions hold answers.
type altList struct {
	rules []*rule
	// byKey finds a rule by its condKey, for duplicates, once the list is
	// long enough that comparing with each would make loading quadratic.
	byKey map[string]*rule
	// ix finds the rules whose conditions can hold for a request without
	// trying the others; nil for a short list, tried in turn.
	ix *altIndex
}

// altIndexMin is the shortest list that gets an index: below it, trying
// the rules in turn costs no more than the index does.
var altIndexMin = 8

// find returns the rule of the list with condKey key, or nil.
func (a *altList) find(key string) *rule {
	if a.byKey != nil {
		return a.byKey[key]
	}
	for _, r := range a.rules {
		if r.condKey == key {
			return r
		}
	}
	return nil
}

// insert adds r: a rule with conditions after the others with conditions,
// a rule without at the end (there is at most one).
func (a *altList) insert(r *rule) {
	i := len(a.rules)
	if r.conditional() && i > 0 && !a.rules[i-1].conditional() {
		i--
	}
	a.rules = slices.Insert(a.rules, i, r)
	switch {
	case a.byKey != nil:
		a.byKey[r.condKey] = r
	case len(a.rules) >= 16:
		a.byKey = make(map[string]*rule, len(a.rules))
		for _, o := range a.rules {
			a.byKey[o.condKey] = o
		}
	}
}

// finish sets the rules' Vary lines and builds the index; the list is
// not changed after. fileOrder sorts it in file order first: the first
// rule that holds is then the earliest in the file.
func (a *altList) finish(fileOrder bool) {
	if fileOrder {
		slices.SortFunc(a.rules, func(x, y *rule) int { return int(x.seq - y.seq) })
	}
	a.byKey = nil
	setVary(a.rules)
	a.ix = nil
	if len(a.rules) >= altIndexMin {
		a.ix = newAltIndex(a.rules)
	}
}

// pick returns the first rule whose conditions and gate hold for the
// lookup m is doing, as trying each in turn would, and leaves m as that
// would: failVary, and the shadow rule met.
func (a *altList) pick(m *Match) *rule {
	if a.ix == nil {
		return pick(a.rules, m)
	}
	return a.ix.pick(a.rules, m)
}

// altIndex files each rule of an altList under one condition it needs
// whose (name, value) a request's query or cookies can be looked up by:
// a query parameter with its value, or asked for with any (by name), a
// cookie likewise. A request's parameters and cookies, split once
// (params.go), are looked up in keys, and only the rules found there and
// those with no such condition (rest) are tried, in list order. A rule
// filed under a condition the request does not meet cannot answer, so the
// first of the tried rules that holds is the first of the list that does;
// what a lookup costs is the number of parameters and cookies (at most
// MaxParams each) and of the rules tried, not of the rules in the list.
//
// A rule is filed under its rarest condition in the list: 20,000 rules
// with `id = N` and `lang = "en"` each go under their id. Rules that
// share every condition that can be looked up, and rules whose
// conditions are on headers, language, country or scheme alone, are
// tried in turn, as without an index.
type altIndex struct {
	// groups hold the keys by kind and name; groupOf finds one by its
	// appendAltKey text without value, when there are more than a few
	// (else they are compared in turn: most lists ask for one name).
	groups  []keyGroup
	groupOf map[string]int32
	// rest are the positions of the rules filed under no key, ascending.
	rest []int32
	// only marks the rules whose one condition is their key: found
	// under it, such a rule holds, its gate aside.
	only []bool
	// Which kinds of key there are, so that a request is split and
	// looked up only for those.
	kinds [numAltKinds]bool
	// lastCookie[i] is the position of the last rule at or before i filed
	// under a cookie, -1 for none; nil when there is none. Such a rule
	// (it has no query condition, or it would be filed under that) left
	// its Vary line in failVary when tried in turn and failing; so does
	// one skipped, as it fails. Rules filed under a network (ip) count
	// as filed under a cookie here, for the same reason.
	lastCookie []int32
	// ip finds the rules filed by their when.ip networks (cond_ip.go),
	// nil for none.
	ip *ipIndex
}

// keyGroup is the keys of one kind and name: the positions of its rules
// by value (keyQuery, keyCookie) or all (keyQueryName, keyCookieName),
// ascending.
type keyGroup struct {
	kind    byte
	name    string
	byValue map[string][]int32
	all     []int32
}

// fewGroups is the most groups compared in turn.
const fewGroups = 4

// The kinds of altIndex key.
const (
	keyQuery      = iota // a query parameter with a value
	keyQueryName         // a query parameter with any value
	keyCookie            // a cookie with a value
	keyCookieName        // a cookie with any value
	numAltKinds
)

// appendAltKey appends the key text of a condition of kind on name
// (with value, for keyQuery and keyCookie): the kind, name's length,
// name, value, so that no two conditions share one.
func appendAltKey(dst []byte, kind byte, name, value []byte) []byte {
	dst = append(dst, kind)
	dst = binary.AppendUvarint(dst, uint64(len(name)))
	dst = append(dst, name...)
	return append(dst, value...)
}

// altKey is one condition a rule can be filed under.
type altKey struct {
	kind        byte
	name, value string
}

// ruleKeys returns the keys r can be filed under: its query conditions,
// or when it has none its cookie conditions.
func ruleKeys(r *rule) []altKey {
	var keys []altKey
	for _, q := range r.Query {
		if q.Value == AnyValue {
			keys = append(keys, altKey{keyQueryName, q.Name, ""})
		} else {
			keys = append(keys, altKey{keyQuery, q.Name, q.Value})
		}
	}
	if len(keys) > 0 || r.when == nil {
		return keys
	}
	for _, k := range cookiesOf(r.when) {
		if k.Value == AnyValue {
			keys = append(keys, altKey{keyCookieName, k.Name, ""})
		} else {
			keys = append(keys, altKey{keyCookie, k.Name, k.Value})
		}
	}
	return keys
}

// file adds position i under key k.
func (ix *altIndex) file(k altKey, i int32) {
	var scratch []byte
	g := ix.group(k.kind, []byte(k.name), &scratch)
	if g == nil {
		ix.groups = append(ix.groups, keyGroup{kind: k.kind, name: k.name})
		g = &ix.groups[len(ix.groups)-1]
		if k.kind == keyQuery || k.kind == keyCookie {
			g.byValue = make(map[string][]int32)
		}
		switch {
		case ix.groupOf != nil:
			ix.groupOf[string(appendAltKey(nil, k.kind, []byte(k.name), nil))] = int32(len(ix.groups) - 1)
		case len(ix.groups) > fewGroups:
			ix.groupOf = make(map[string]int32, len(ix.groups))
			for j := range ix.groups {
				o := &ix.groups[j]
				ix.groupOf[string(appendAltKey(nil, o.kind, []byte(o.name), nil))] = int32(j)
			}
		}
	}
	if g.byValue != nil {
		g.byValue[k.value] = append(g.byValue[k.value], i)
	} else {
		g.all = append(g.all, i)
	}
	ix.kinds[k.kind] = true
}

// group returns the group of kind and name, nil for none; scratch is
// memory for its groupOf key.
func (ix *altIndex) group(kind byte, name []byte, scratch *[]byte) *keyGroup {
	if ix.groupOf == nil {
		for j := range ix.groups {
			if g := &ix.groups[j]; g.kind == kind && g.name == string(name) {
				return g
			}
		}
		return nil
	}
	*scratch = appendAltKey((*scratch)[:0], kind, name, nil)
	if j, ok := ix.groupOf[string(*scratch)]; ok {
		return &ix.groups[j]
	}
	return nil
}

// keyIsAll reports whether r has no condition besides the one of its
// keys (ruleKeys gave one): one query condition, or one cookie condition
// and no other when condition.
func keyIsAll(r *rule) bool {
	if len(r.Query) > 0 {
		return len(r.Query) == 1 && r.when == nil
	}
	w := r.when
	return w != nil && checksOf[*cookieCond](w) == 1 && w.unless == nil && condCount(w) == 1
}

func newAltIndex(rules []*rule) *altIndex {
	ix := &altIndex{}
	count := make(map[altKey]int)
	all := make([][]altKey, len(rules))
	for i, r := range rules {
		all[i] = ruleKeys(r)
		for _, k := range all[i] {
			count[k]++
		}
	}
	ix.only = make([]bool, len(rules))
	// skippable[i]: rule i may be left untried though it would have
	// reached its when conditions (filed under a cookie or a network).
	skippable := make([]bool, len(rules))
	for i, keys := range all {
		if len(keys) == 0 {
			if nets := ipNets(rules[i].when); nets != nil {
				if ix.ip == nil {
					ix.ip = &ipIndex{}
				}
				ix.ip.file(nets, int32(i))
				skippable[i] = true
				continue
			}
			ix.rest = append(ix.rest, int32(i))
			continue
		}
		best := keys[0]
		for _, k := range keys[1:] {
			if count[k] < count[best] {
				best = k
			}
		}
		ix.file(best, int32(i))
		ix.only[i] = len(keys) == 1 && keyIsAll(rules[i])
		skippable[i] = best.kind == keyCookie || best.kind == keyCookieName
	}
	if slices.Contains(skippable, true) {
		ix.lastCookie = make([]int32, len(rules))
		last := int32(-1)
		for i := range rules {
			if skippable[i] {
				last = int32(i)
			}
			ix.lastCookie[i] = last
		}
	}
	return ix
}

// pick is altList.pick with the index.
func (ix *altIndex) pick(rules []*rule, m *Match) *rule {
	c := append(m.altCands[:0], ix.rest...)
	if ix.kinds[keyQuery] || ix.kinds[keyQueryName] {
		q := m.queryParams()
		for i := range q.list {
			e := &q.list[i]
			if ix.kinds[keyQuery] && e.firstPair {
				c = ix.lookup(c, keyQuery, q.name(i), q.value(i), m)
			}
			if ix.kinds[keyQueryName] && e.firstName {
				c = ix.lookup(c, keyQueryName, q.name(i), nil, m)
			}
		}
	}
	if ix.kinds[keyCookie] || ix.kinds[keyCookieName] {
		k := m.cookieParams()
		for i := range k.list {
			// A cookie condition reads the first cookie of its name.
			if !k.list[i].firstName {
				continue
			}
			if ix.kinds[keyCookie] {
				c = ix.lookup(c, keyCookie, k.name(i), k.value(i), m)
			}
			if ix.kinds[keyCookieName] {
				c = ix.lookup(c, keyCookieName, k.name(i), nil, m)
			}
		}
	}
	if ix.ip != nil {
		if a := clientOf(m.Req); a.IsValid() {
			c = ix.ip.lookup(c, a)
		}
	}
	// Each key is looked up once and each rule is under one key or in
	// rest, so no position is there twice, but for a rule under two
	// networks that both hold the client.
	sortPositions(c)
	if ix.ip != nil {
		c = slices.Compact(c)
	}
	m.altCands = c
	for _, p := range c {
		r := rules[p]
		if ix.only[p] && (r.gate == nil || m.open(r)) || !ix.only[p] && (!r.conditional() || r.holds(m)) {
			ix.failed(rules, p, c, m)
			return r
		}
	}
	ix.failed(rules, int32(len(rules)), c, m)
	return nil
}

// lookup appends the positions filed under one key to c.
func (ix *altIndex) lookup(c []int32, kind byte, name, value []byte, m *Match) []int32 {
	g := ix.group(kind, name, &m.altKey)
	switch {
	case g == nil:
	case g.byValue != nil:
		c = append(c, g.byValue[string(value)]...)
	default:
		c = append(c, g.all...)
	}
	return c
}

// failed leaves in m.failVary what the rules before position end that
// were skipped (not in tried, sorted) would have left had they been
// tried: the Vary line of the last one filed under a cookie. (Lines grow
// along the list, setVary, so the last is the longest; the rules tried
// left theirs, or none when their conditions held and their gate did
// not.)
func (ix *altIndex) failed(rules []*rule, end int32, tried []int32, m *Match) {
	if ix.lastCookie == nil || end == 0 {
		return
	}
	k := len(tried) - 1
	for j := ix.lastCookie[end-1]; j >= 0; j = ix.lastCookie[j-1] {
		for k >= 0 && tried[k] > j {
			k--
		}
		if k < 0 || tried[k] != j {
			if len(rules[j].vary) > len(m.failVary) {
				m.failVary = rules[j].vary
			}
			return
		}
		if j == 0 {
			return
		}
	}
}

// sortPositions sorts c, by insertion while it is short (the usual case:
// rest and a rule or two).
func sortPositions(c []int32) {
	if len(c) > 12 {
		slices.Sort(c)
		return
	}
	for i := 1; i < len(c); i++ {
		for j := i; j > 0 && c[j] < c[j-1]; j-- {
			c[j], c[j-1] = c[j-1], c[j]
		}
	}
}
