package matcher

import (
	"slices"
	"strings"
	"weak"
)

// PackedRef refers, weakly, to the plain packed table of one host of a
// finished Set, so that a later build of the same rules (a reload whose
// million-line map file did not change) can take the table over rather
// than build it again: with both sets alive during a reload, that halves
// the reload's peak memory. The table's arena, entries and index are
// never written once the Set is finished, so two Sets may share them;
// each Set gets hit counters of its own. The reference keeps nothing
// alive: once the Set that holds the table is collected it refers to
// nothing, and Builder.Reuse declines it.
type PackedRef struct {
	t       weak.Pointer[packedTable]
	uriMode URI
}

// PackedRef returns the reference to host's plain packed table, and how
// many rules it holds; 0 when there is none.
func (s *Set) PackedRef(host string) (PackedRef, int) {
	h := s.any
	if host != "" {
		h, _ = s.hosts.Get(strings.ToLower(host))
	}
	if h == nil || h.packed == nil {
		return PackedRef{}, 0
	}
	return PackedRef{t: weak.Make(h.packed), uriMode: s.uriMode}, len(h.packed.ents)
}

// Files returns the files the table's rules came from.
func (r PackedRef) Files() []string {
	if t := r.t.Value(); t != nil {
		return slices.Clone(t.files)
	}
	return nil
}

// Reuse adds every rule of the table r refers to, in the table's order,
// as adding them one by one would, and reports whether it did. It does
// not when the table is gone, or when adding the rules one by one could
// give another result: the Set is in file order or compares paths
// otherwise, its host already has exact rules (they could duplicate the
// table's), or the table passes this Builder's limits. The caller must
// know that the rules it stands for are exactly those the table was
// built from.
func (b *Builder) Reuse(r PackedRef) bool {
	old := r.t.Value()
	if old == nil || b.s.fileOrder || r.uriMode != b.s.uriMode || old.form != 0 ||
		int64(len(old.arena)) > b.limits.HostBytes || len(old.ents) > b.limits.HostRules {
		return false
	}
	h := b.s.hostRules(old.host)
	if len(h.exact.m) > 0 || h.packed != nil && len(h.packed.ents) > 0 {
		return false
	}
	t := &packedTable{arena: old.arena, ents: old.ents, slots: old.slots, shift: old.shift, indexed: old.indexed,
		seed: old.seed, host: old.host, files: old.files, shared: true}
	if h.packed != nil {
		i := slices.Index(b.s.packed, h.packed)
		b.s.packed[i] = t
	} else {
		b.s.packed = append(b.s.packed, t)
	}
	h.packed = t
	b.lastH = nil
	b.s.packedN += len(t.ents)
	if len(t.ents) > 0 {
		b.extendSpan(span{t: t, lo: 0, hi: len(t.ents)})
	}
	return true
}

// own gives a table taken over by Reuse arrays of its own before it is
// written to (a later rule of the same host): the Set it came from still
// reads them.
func (t *packedTable) own() {
	if !t.shared {
		return
	}
	t.shared = false
	t.arena = slices.Clip(t.arena)
	t.ents = slices.Clip(t.ents)
	t.slots = slices.Clone(t.slots)
	t.files = slices.Clone(t.files)
}

// PackedLen returns how many rules host's plain packed table holds so far.
func (b *Builder) PackedLen(host string) int {
	h := b.s.any
	if host != "" {
		h, _ = b.s.hosts.Get(strings.ToLower(host))
	}
	if h == nil || h.packed == nil {
		return 0
	}
	return len(h.packed.ents)
}

// SharesPacked reports whether s and o answer host's plain packed rules
// from the same arrays (one took the other's table over): for tests.
func (s *Set) SharesPacked(o *Set, host string) bool {
	a, _ := s.PackedRef(host)
	b, _ := o.PackedRef(host)
	ta, tb := a.t.Value(), b.t.Value()
	return ta != nil && tb != nil && len(ta.ents) > 0 && len(tb.ents) > 0 && &ta.ents[0] == &tb.ents[0]
}
