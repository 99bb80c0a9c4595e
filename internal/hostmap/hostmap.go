// Package hostmap is the table of exact-or-wildcard host names that the
// rule set (matcher), the [[route]] tables (engine/forward) and the
// certificates by SNI (engine/tlsconf) each look a request's host up in:
// a name ("www.example.com") or a wildcard ("*.example.com"), one value
// each. It also holds Example, a host a request could carry for a
// pattern. A lookup allocates nothing; a Map is built once and only read
// after that, from any number of goroutines.
package hostmap

import "strings"

// Map holds values by exact name and by wildcard. Names are compared as
// stored: the caller lower-cases both the patterns and the names it looks
// up. The zero Map is empty and ready for Put.
type Map[V any] struct {
	exact map[string]V
	// wild is keyed by the wildcard without its '*' (".example.com").
	wild map[string]V
	// oneLabel: a wildcard covers exactly one label more (RFC 6125
	// 6.4.3, for certificates), not any number (rules and routes).
	oneLabel bool
}

// OneLabel makes m's wildcards cover names one label longer only:
// "*.example.com" covers a.example.com, not a.b.example.com. Call it
// before the first lookup.
func (m *Map[V]) OneLabel() { m.oneLabel = true }

// wildKey is pattern's key in wild and true, or false for an exact name.
func wildKey(pattern string) (string, bool) {
	if strings.HasPrefix(pattern, "*.") {
		return pattern[1:], true
	}
	return "", false
}

// Put sets the value of pattern: a name, or "*." and a name.
func (m *Map[V]) Put(pattern string, v V) {
	if k, ok := wildKey(pattern); ok {
		if m.wild == nil {
			m.wild = map[string]V{}
		}
		m.wild[k] = v
		return
	}
	if m.exact == nil {
		m.exact = map[string]V{}
	}
	m.exact[pattern] = v
}

// Get returns the value put for pattern itself (not one that covers it).
func (m *Map[V]) Get(pattern string) (V, bool) {
	if k, ok := wildKey(pattern); ok {
		v, ok := m.wild[k]
		return v, ok
	}
	v, ok := m.exact[pattern]
	return v, ok
}

// Empty reports whether nothing was put.
func (m *Map[V]) Empty() bool { return len(m.exact) == 0 && len(m.wild) == 0 }

// HasWild reports whether a wildcard was put.
func (m *Map[V]) HasWild() bool { return len(m.wild) > 0 }

// Exact returns the value of the name itself.
func (m *Map[V]) Exact(name []byte) (V, bool) {
	v, ok := m.exact[string(name)]
	return v, ok
}

// ExactString is Exact for a string.
func (m *Map[V]) ExactString(name string) (V, bool) {
	v, ok := m.exact[name]
	return v, ok
}

// Wild returns the value of the longest wildcard that covers name,
// looking at the suffixes that start at a dot at from or after, and next,
// the from that looks for a shorter one; ok is false when none covers it.
// Start with from 0:
//
//	for i := 0; ; {
//		v, next, ok := m.Wild(name, i)
//		if !ok { break }
//		... // v covers name; i = next to go on
//	}
func (m *Map[V]) Wild(name []byte, from int) (v V, next int, ok bool) {
	return wild(m, name, from)
}

// WildString is Wild for a string.
func (m *Map[V]) WildString(name string, from int) (v V, next int, ok bool) {
	return wild(m, name, from)
}

func wild[V any, S string | []byte](m *Map[V], name S, from int) (v V, next int, ok bool) {
	if len(m.wild) == 0 || m.oneLabel && from > 0 {
		return v, len(name), false
	}
	for i := from; i < len(name); i++ {
		if name[i] != '.' {
			continue
		}
		if m.oneLabel && i == 0 {
			break // the one label would be empty
		}
		if v, ok := m.wild[string(name[i:])]; ok {
			return v, i + 1, true
		}
		if m.oneLabel {
			break
		}
	}
	return v, len(name), false
}

// Names calls fn for every exact name, in no order.
func (m *Map[V]) Names(fn func(name string, v V)) {
	for k, v := range m.exact {
		fn(k, v)
	}
}

// Values calls fn for every value, exact names' first, in no order.
func (m *Map[V]) Values(fn func(V)) {
	for _, v := range m.exact {
		fn(v)
	}
	for _, v := range m.wild {
		fn(v)
	}
}

// NameCount is how many exact names were put.
func (m *Map[V]) NameCount() int { return len(m.exact) }

// Example is a host a request could carry for pattern: the name itself,
// or, for a wildcard, its "www." name. Samples and drafts use it to ask
// what a rule of that host answers.
func Example(pattern string) string {
	if rest, ok := strings.CutPrefix(pattern, "*."); ok {
		return "www." + rest
	}
	return pattern
}
