package matcher

// SetLocations attaches the location phase compiled with the rules
// (package matcher/rewrite's *Hosts), so that a reload publishes both at
// once. It is held as any since package rewrite builds on this one; call
// it before the Set is shared.
func (s *Set) SetLocations(l any) { s.locations = l }

// Locations returns what SetLocations attached, nil when nothing.
func (s *Set) Locations() any {
	if s == nil {
		return nil
	}
	return s.locations
}
