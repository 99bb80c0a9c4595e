package edits

import (
	"fmt"
	"github.com/redirectd/redirectd/engine/admin/edit"
	"maps"
	"slices"

	"github.com/redirectd/redirectd/matcher"
)

// Overlay is a set of edits keyed by host and from, in the order they
// were first made; a later edit of the same key replaces the earlier.
// It is not safe for concurrent use: its owner locks.
type Overlay struct {
	m    map[string]int // edit.Key -> index in list
	list []edit.Edit
}

// NewOverlay returns an empty overlay.
func NewOverlay() *Overlay { return &Overlay{m: map[string]int{}} }

// Put adds e, replacing an earlier edit of its key in place.
func (o *Overlay) Put(e edit.Edit) {
	k := e.Key()
	if i, ok := o.m[k]; ok {
		o.list[i] = e
		return
	}
	o.m[k] = len(o.list)
	o.list = append(o.list, e)
}

// Remove drops the edit of key, if any (a draft's delete of a rule only
// the draft added). It is linear in the edits: drafts remove seldom.
func (o *Overlay) Remove(key string) {
	i, ok := o.m[key]
	if !ok {
		return
	}
	o.list = append(o.list[:i], o.list[i+1:]...)
	delete(o.m, key)
	for j := i; j < len(o.list); j++ {
		o.m[o.list[j].Key()] = j
	}
}

// Get returns the edit of key, if any.
func (o *Overlay) Get(key string) (*edit.Edit, bool) {
	if o == nil {
		return nil, false
	}
	i, ok := o.m[key]
	if !ok {
		return nil, false
	}
	return &o.list[i], true
}

// For returns the edit of the rules r is one of: the edit that names r's
// host, from and conditions, else the one that names its host and from.
func (o *Overlay) For(r *matcher.Rule) (*edit.Edit, bool) {
	i, ok := o.indexFor(r)
	if !ok {
		return nil, false
	}
	return &o.list[i], true
}

func (o *Overlay) indexFor(r *matcher.Rule) (int, bool) {
	if o == nil {
		return 0, false
	}
	if k := edit.RuleCondKey(r); k != "" {
		if i, ok := o.m[k]; ok {
			return i, true
		}
	}
	i, ok := o.m[edit.Key(r.Host, r.From)]
	return i, ok
}

// Len returns the number of edits.
func (o *Overlay) Len() int {
	if o == nil {
		return 0
	}
	return len(o.list)
}

// Edits returns the edits in order; the slice is o's, only to be read.
func (o *Overlay) Edits() []edit.Edit {
	if o == nil {
		return nil
	}
	return o.list
}

// Merge returns a new overlay: o's edits, then top's over them.
func (o *Overlay) Merge(top *Overlay) *Overlay {
	out := &Overlay{m: make(map[string]int, o.Len()+top.Len()), list: make([]edit.Edit, 0, o.Len()+top.Len())}
	for _, e := range o.Edits() {
		out.Put(e)
	}
	for _, e := range top.Edits() {
		out.Put(e)
	}
	return out
}

// MergeStamped is o.Merge(top) with top's edits stamped as promoted by
// version n, built in one pass with one index: at a million
// edits each index built is a second of a promote's time and its
// garbage. top is not changed (a failed promote keeps its
// draft).
func (o *Overlay) MergeStamped(top *Overlay, n int) *Overlay {
	if o.Len() == 0 && top != nil {
		// The first promote over the config's rules: top's index as it
		// is, no key made again.
		out := &Overlay{m: maps.Clone(top.m), list: slices.Clone(top.list)}
		for i := range out.list {
			out.list[i].Version, out.list[i].Restored = n, 0
		}
		return out
	}
	out := &Overlay{m: make(map[string]int, o.Len()+top.Len()), list: make([]edit.Edit, 0, o.Len()+top.Len())}
	for _, e := range o.Edits() {
		out.Put(e)
	}
	for _, e := range top.Edits() {
		e.Version, e.Restored = n, 0
		out.Put(e)
	}
	return out
}

// FromEdits builds an overlay from a stored list.
func FromEdits(list []edit.Edit) *Overlay {
	o := &Overlay{m: make(map[string]int, len(list)), list: make([]edit.Edit, 0, len(list))}
	for _, e := range list {
		o.Put(e)
	}
	return o
}

// Apply builds a new rule set: base's rules in order, each whose key an
// edit names (the edit naming its conditions first, else the one naming
// its host and from) replaced (an add or change: its target and status, and its
// kind when the edit gives one), left out (a delete) or kept as it is
// (a rollback's OpConfig mark), then the adds
// and changes whose key no rule of base has, at the end, as rules of
// their own (file "admin", line the edit's place in o). It returns the
// keys of deletes that found no rule (the config no longer has them),
// for the caller to log, and the first rule the builder refuses, named
// by its edit.
func Apply(base *matcher.Set, o *Overlay, lim matcher.Limits) (*matcher.Set, []string, error) {
	b := matcher.NewBuilder(lim)
	if base.FileOrder() {
		// An edited rule keeps its place, and an added one is last.
		b.FileOrder()
	}
	b.SetURI(base.URI())
	found := make([]bool, o.Len())
	var err error
	base.Each(func(rh matcher.RuleHits) {
		if err != nil {
			return
		}
		r := *rh.Rule
		// One key made a rule: a million-rule promote makes a million.
		i, ok := o.m[edit.Key(r.Host, r.From)]
		if ok {
			// Its rule is there, if an edit naming its conditions
			// takes it instead: not an add.
			found[i] = true
		}
		if k := edit.RuleCondKey(&r); k != "" {
			if ci, cok := o.m[k]; cok {
				i, ok = ci, true
			}
		}
		if ok {
			found[i] = true
			switch e := &o.list[i]; e.Op {
			case edit.OpConfig: // the config's rule as it is
			case edit.OpDelete:
				return
			default:
				r.To, r.Status, r.Pass = e.To, e.Status, false
				if e.Kind != "" {
					r.Kind = e.MatchKind()
				}
				e.SetParts(&r, base)
			}
		}
		if aerr := b.Add(&r); aerr != nil {
			err = fmt.Errorf("%s: %w", r.Source(), aerr)
		}
	})
	if err != nil {
		return nil, nil, err
	}
	var gone []string
	for i := range o.list {
		e := &o.list[i]
		if found[i] || e.Op == edit.OpConfig {
			continue // a mark of a rule the config no longer has
		}
		if e.Op == edit.OpDelete {
			gone = append(gone, e.String())
			continue
		}
		r := matcher.Rule{Kind: e.MatchKind(), Host: e.Host, From: e.From, To: e.To, Status: e.Status, File: "admin", Line: i + 1}
		e.SetParts(&r, base)
		if aerr := b.Add(&r); aerr != nil {
			return nil, nil, &EntryError{Entry: e.Entry, Err: aerr}
		}
	}
	set, err := b.Set()
	if err != nil {
		return nil, nil, err
	}
	if err := set.SetHeaders(base.HeaderFields()); err != nil {
		return nil, nil, err
	}
	set.SetCountries(base.Countries())
	// The locations are the config's, which edits do not change.
	set.SetLocations(base.Locations())
	return set, gone, nil
}

// EntryError is an entry the rules cannot take, named.
type EntryError struct {
	Entry edit.Entry
	Err   error
}

func (e *EntryError) Error() string { return fmt.Sprintf("entry %s: %v", e.Entry.String(), e.Err) }
func (e *EntryError) Unwrap() error { return e.Err }
