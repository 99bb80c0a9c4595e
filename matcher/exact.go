package matcher

import "slices"

// exactTable maps keys to exact rules. Most keys have one rule, found with
// one map lookup; a key with several (rules with query conditions) also
// has them all in alts, in the order they are tried.
type exactTable struct {
	m    map[string]*rule
	alts map[string][]*rule
}

// get returns the rule for key whose conditions and gate hold for the
// lookup m is doing.
func (t *exactTable) get(key []byte, m *Match) *rule {
	r := t.m[string(key)]
	if r == nil {
		return nil
	}
	if t.alts != nil {
		if alts := t.alts[string(key)]; alts != nil {
			return pick(alts, m)
		}
	}
	if !r.conditional() || r.holds(m) {
		return r
	}
	return nil
}

// pick returns the first of rules whose conditions query satisfies.
func pick(rules []*rule, m *Match) *rule {
	for _, r := range rules {
		if !r.conditional() || r.holds(m) {
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
			switch {
			case len(r.Query) > 0:
				what = " with the same query conditions"
			case r.when != nil:
				what = " with the same conditions"
			}
			return alts, fieldErr("from", "duplicate %s rule for %q%s (first defined at %s)", kind, r.From, what, old.Source())
		}
	}
	i := len(alts)
	if r.conditional() {
		for i = 0; i < len(alts) && alts[i].conditional(); i++ {
		}
	}
	alts = slices.Insert(alts, i, r)
	setVary(alts)
	return alts, nil
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
