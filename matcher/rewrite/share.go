package rewrite

import "github.com/redirectd/redirectd/matcher"

// share is what the Programs of one CompileHosts compile once for all.
// Its methods take a nil share as keeping nothing (Compile's one Program).
type share struct {
	// maps are the maps that read no variable of their Program
	// (mapVar.shared): the config gives every host the same ones.
	maps map[*MapSpec]*mapVar
	// patterns are the regexes compiled so far, by source. A site's
	// rewrites file included in many locations (werf's, in each docs
	// version's location of two servers) compiled each regex a dozen
	// times, most of a 250-rewrite site's heap; a compiled
	// matcher.Pattern is read-only once made (its lazily built fallback
	// is an atomic pointer), so Programs and loops can run one.
	patterns map[string]*matcher.Pattern
	// indexes are the maps' regex indexes by the map's entries as
	// written: a map that defines a named group is compiled per host,
	// but its index depends on its keys alone (a 42,000-key map's is
	// 15 MiB).
	indexes map[string]*regexIndex
}

func newShare() *share {
	return &share{maps: map[*MapSpec]*mapVar{}, patterns: map[string]*matcher.Pattern{}, indexes: map[string]*regexIndex{}}
}

// regexIndex returns the index of a map of entries whose regex keys are
// regexes, built once per share.
func (s *share) regexIndex(entries string, regexes []mapRegex) *regexIndex {
	if s == nil {
		return buildMapIndex(regexes)
	}
	if x, ok := s.indexes[entries]; ok {
		return x
	}
	x := buildMapIndex(regexes)
	s.indexes[entries] = x
	return x
}

func (s *share) mapVar(ms *MapSpec) *mapVar {
	if s == nil {
		return nil
	}
	return s.maps[ms]
}

func (s *share) keepMap(ms *MapSpec, m *mapVar) {
	if s != nil {
		s.maps[ms] = m
	}
}

// pattern returns src compiled, once per share.
func (s *share) pattern(src string) (*matcher.Pattern, error) {
	if s == nil {
		return matcher.CompilePattern(src)
	}
	if p, ok := s.patterns[src]; ok {
		return p, nil
	}
	p, err := matcher.CompilePattern(src)
	if err == nil {
		s.patterns[src] = p
	}
	return p, err
}
