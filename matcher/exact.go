package matcher

// exactTable maps keys to exact rules. Most keys have one rule; a key with
// several (rules with query conditions) has them all in alts, in the order
// they are tried. Either is found with one map lookup.
type exactTable struct {
	m map[string]exactEntry
}

// exactEntry is the rule of a key, the first of alts when it has several.
type exactEntry struct {
	r    *rule
	alts *altList
}

// get returns the rule for key whose conditions and gate hold for the
// lookup m is doing.
func (t *exactTable) get(key []byte, m *Match) *rule {
	e := t.m[string(key)]
	r := e.r
	if r == nil {
		return nil
	}
	if e.alts != nil {
		return e.alts.pick(m)
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
func link(alts *altList, first, r *rule, kind string) (*altList, error) {
	if alts == nil {
		alts = &altList{rules: []*rule{first}}
	}
	if old := alts.find(r.condKey); old != nil {
		if old == r {
			return alts, nil
		}
		what := ""
		switch {
		case len(r.Query) > 0:
			what = " with the same query conditions"
		case r.when != nil:
			what = " with the same conditions"
		}
		return alts, fieldErr("from", "duplicate %s rule for %q%s (first defined at %s)", kind, r.From, what, old.Source())
	}
	alts.insert(r)
	return alts, nil
}

func (t *exactTable) add(key string, r *rule, kind string) error {
	if t.m == nil {
		t.m = make(map[string]exactEntry)
	}
	e := t.m[key]
	if e.r == nil {
		t.m[key] = exactEntry{r: r}
		return nil
	}
	if e.r == r {
		return nil
	}
	alts, err := link(e.alts, e.r, r, kind)
	if err != nil {
		return err
	}
	t.m[key] = exactEntry{alts.rules[0], alts}
	return nil
}

// finish builds the index of each list of alternatives, sorted in file
// order first when fileOrder.
func (t *exactTable) finish(fileOrder bool) {
	for _, e := range t.m {
		if e.alts != nil {
			e.alts.finish(fileOrder)
		}
	}
}
