package matcher

// Shadowed reports whether a shadow rule (Rule.Shadow) would have answered
// the last Lookup had it been live: the first one met in the order rules
// are tried, whatever the live answer was.
func (m *Match) Shadowed() bool { return m.shadow != nil }

// ShadowRule returns the shadow rule of the last Lookup, or nil.
func (m *Match) ShadowRule() *Rule {
	if m.shadow == nil {
		return nil
	}
	return &m.shadow.Rule
}

// ShadowHit counts a request the shadow rule would have answered: one
// atomic add. A shadow rule never answers, so its hit counter holds only
// these, reported by Set.Each as ShadowHits.
func (m *Match) ShadowHit() { m.shadow.hits.Add(1) }

// ShadowSource returns the shadow rule's "file:line", cached as Source
// caches it for live rules.
func (m *Match) ShadowSource() string {
	r := m.shadow
	if p := r.source.Load(); p != nil {
		return *p
	}
	s := r.Source()
	r.source.Store(&s)
	return s
}

// AppendShadowLocation appends the Location the shadow rule would have
// answered with, as AppendLocation does for the live match.
func (m *Match) AppendShadowLocation(dst, query []byte) []byte {
	r := m.shadow
	if r.Kind == Regex {
		return r.to.appendLocation(dst, m.shadowPath, m.shadowCaps[:r.ncaps], nil, m, query)
	}
	return r.to.appendLocation(dst, nil, nil, m.shadowRest, m, query)
}
