package edits

import (
	"github.com/redirectd/redirectd/engine/admin/edit"
	"sync"
	"weak"

	"github.com/redirectd/redirectd/internal/hostmap"
	"github.com/redirectd/redirectd/matcher"
)

// findRule returns the first rule of set with this host and from (a
// copy), or nil: the rule a draft's change or delete  The rule that
// answers from itself is found by a lookup; the rules a plain lookup
// cannot reach are found in an index of them (offLookup): rules with
// conditions (an https-only rule of an nginx import), a window or shadow
// mode, behind another rule of their path, or a regex whose pattern does
// not match itself.
func findRule(set *matcher.Set, m *matcher.Match, host, from string) *matcher.Rule {
	m.Req = nil
	if set.Lookup([]byte(hostmap.Example(host)), []byte(from), nil, m) || m.Passed() != nil {
		if r := m.Rule(); r.Host == host && r.From == from {
			c := *r
			return &c
		}
	}
	if r := offLookup.find(set, edit.Key(host, from)); r != nil {
		c := *r
		return &c
	}
	return nil
}

// findEdited returns the rule of set that e edits (a copy), or nil: the
// rule of its host, from and conditions when e gives conditions, else
// the first of its host and from.
func findEdited(set *matcher.Set, m *matcher.Match, e *edit.Entry) *matcher.Rule {
	if len(e.Query) == 0 && len(e.When) == 0 {
		return findRule(set, m, e.Host, e.From)
	}
	if r := offLookup.find(set, e.Key()); r != nil {
		c := *r
		return &c
	}
	return nil
}

// offLookup indexes the rules of the serving set that are not plain
// exact rules, by edit.Key, built on the first find after the set
// changes: a draft's edits are checked against the set serving, which
// changes at a reload or promote. Plain exact rules (a million-line map)
// are found by lookup and stay out of it.
var offLookup ruleIndex

// ruleIndex is offLookup's type. It holds its set weakly: a set
// replaced by a reload is not kept alive for the index's sake.
type ruleIndex struct {
	mu    sync.Mutex
	set   weak.Pointer[matcher.Set]
	byKey map[string]*matcher.Rule
}

// find returns the first indexed rule of set with key, or nil.
func (x *ruleIndex) find(set *matcher.Set, key string) *matcher.Rule {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.set.Value() != set {
		x.set, x.byKey = weak.Make(set), map[string]*matcher.Rule{}
		set.Each(func(rh matcher.RuleHits) {
			r := rh.Rule
			plain := r.Kind == matcher.Exact && r.When.Empty() && len(r.Query) == 0 && r.Active.IsZero() && !r.Shadow
			if plain {
				return
			}
			c := *r
			if k := edit.Key(r.Host, r.From); x.byKey[k] == nil {
				x.byKey[k] = &c
			}
			// And by its conditions, for an entry that names them.
			if k := edit.RuleCondKey(r); k != "" && x.byKey[k] == nil {
				x.byKey[k] = &c
			}
		})
	}
	return x.byKey[key]
}
