package matcher

import (
	"errors"
	"strings"
)

// Builder compiles rules into a Set one at a time, so that a loader can
// hand over a map file's rules as it reads them instead of holding a
// []Rule of a million entries first. Plain exact rules (case-sensitive,
// trailing-slash-strict, without percent escapes in From) go into the
// packed table of their host; every other rule is compiled as Compile
// does. Rules must be added in file order, which decides between regexes
// and which of two duplicates an error calls the first.
type Builder struct {
	s      *Set
	limits Limits
	// The host of the last packed rule and its rules: a map file's rules
	// share one host, so most adds skip the host lookup.
	lastHost string
	lastH    *hostRules
}

// NewBuilder returns a Builder of an empty Set whose packed tables are
// bounded by l (DefaultLimits unless a test wants small ones).
func NewBuilder(l Limits) *Builder {
	return &Builder{limits: l, s: &Set{any: newHostRules(), hosts: make(map[string]*hostRules),
		wild: make(map[string]*hostRules)}}
}

// Add checks one rule and adds it. A bad rule, a duplicate or a rule past
// the Limits is reported as a *RuleError and leaves the Set as it was.
// Add keeps no reference to in or its strings.
func (b *Builder) Add(in *Rule) error {
	if packable(in) {
		ok, err := b.addPacked(in)
		if err != nil {
			return ruleError(in, err)
		}
		if ok {
			return nil
		}
	}
	r, err := compileRule(in)
	if err != nil {
		return ruleError(in, err)
	}
	if err := b.s.hostRules(r.Host).add(r); err != nil {
		return ruleError(in, err)
	}
	b.s.rules = append(b.s.rules, r)
	b.extend(nil, len(b.s.rules)-1)
	return nil
}

// addPacked adds in to its host's packed table; false without an error
// means the table cannot hold it and the ordinary path should.
func (b *Builder) addPacked(in *Rule) (bool, error) {
	host := strings.ToLower(in.Host) // no copy when already lower case
	if b.lastH == nil || host != b.lastHost {
		b.lastHost, b.lastH = host, b.s.hostRules(host)
	}
	h := b.lastH
	if r := h.exact[in.From]; r != nil {
		return false, fieldErr("from", "duplicate exact rule for %q (first defined at %s)", in.From, r.Source())
	}
	t := h.packed
	if t == nil {
		t = newPackedTable(host)
		h.packed = t
		b.s.packed = append(b.s.packed, t)
	}
	dup, ok, err := t.add(in, b.limits)
	switch {
	case err != nil:
		return false, err
	case dup >= 0:
		return false, fieldErr("from", "duplicate exact rule for %q (first defined at %s)", in.From, t.appendSource(nil, uint32(dup)))
	case !ok:
		return false, nil
	}
	b.s.packedN++
	b.extend(t, len(t.ents)-1)
	return true, nil
}

// extend records the rule just added (index i of t, or of s.rules when t
// is nil) in the Set's file order.
func (b *Builder) extend(t *packedTable, i int) {
	o := b.s.order
	if n := len(o); n > 0 && o[n-1].t == t && o[n-1].hi == i {
		o[n-1].hi++
		return
	}
	b.s.order = append(o, span{t: t, lo: i, hi: i + 1})
}

// Set finishes the build and returns the Set; the Builder must not be
// used after.
func (b *Builder) Set() *Set {
	for _, t := range b.s.packed {
		t.finish()
	}
	s := b.s
	b.s, b.lastH = nil, nil
	return s
}

func ruleError(in *Rule, err error) error {
	var fe *FieldError
	if !errors.As(err, &fe) {
		fe = &FieldError{Field: "from", Msg: err.Error()}
	}
	return &RuleError{Rule: *in, FieldError: *fe}
}
