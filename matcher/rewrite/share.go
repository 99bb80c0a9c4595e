package rewrite

import (
	"maps"
	"slices"
	"strings"

	"github.com/redirectd/redirectd/matcher"
)

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
	// slotMaps are the maps that read or define variable slots, by
	// spec, each with the slots it was compiled against: a Program
	// whose slots stand the same when it reaches the map (the hosts of
	// one config mostly, all declaring the same maps first) uses it
	// too. gwern.net's map defines a named group: compiled per server
	// it cost every server block 13 MiB.
	slotMaps map[*MapSpec][]*slotMap
	// indexes are the maps' regex indexes by the map's entries as
	// written: a map that defines a named group is compiled per host,
	// but its index depends on its keys alone (a 42,000-key map's is
	// 15 MiB).
	indexes map[string]*regexIndex
}

func newShare() *share {
	return &share{maps: map[*MapSpec]*mapVar{}, patterns: map[string]*matcher.Pattern{}, indexes: map[string]*regexIndex{},
		slotMaps: map[*MapSpec][]*slotMap{}}
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

// slotMap is a map compiled against variable slots: the compiler's
// slots and their defined flags before it, and the slot and define
// calls its compilation made, in order. A compiler in the same state
// that makes the same calls ends in the same state, the map's slot
// numbers valid for it.
type slotMap struct {
	m       *mapVar
	slots   map[string]int
	defined []bool
	ops     []slotOp
}

// slotOp is one slot (define false) or define call.
type slotOp struct {
	name   string
	line   int
	define bool
}

// slotMap returns the map of ms that an earlier Program compiled against
// the slots c has now, its calls replayed on c; nil if none was.
func (s *share) slotMap(c *compiler, ms *MapSpec) *mapVar {
	if s == nil {
		return nil
	}
	for _, sm := range s.slotMaps[ms] {
		if !maps.Equal(sm.slots, c.slots) || !slices.Equal(sm.defined, c.defined) {
			continue
		}
		c.where, c.inMap = "", strings.TrimPrefix(ms.Variable, "$")
		for _, op := range sm.ops {
			if op.define {
				c.defined[c.slots[strings.ToLower(op.name)]] = true
			} else {
				c.slot(op.name, op.line)
			}
		}
		c.inMap = ""
		return sm.m
	}
	return nil
}

// compileMapShared is compileMap, keeping the map for the Programs after
// this one: whole when it touches no slot, else with the slots it was
// compiled against.
func (c *compiler) compileMapShared(ms *MapSpec) (*mapVar, error) {
	if c.shared == nil {
		return c.compileMap(ms)
	}
	sm := &slotMap{slots: maps.Clone(c.slots), defined: slices.Clone(c.defined)}
	c.rec = &sm.ops
	m, err := c.compileMap(ms)
	c.rec = nil
	if err != nil {
		return nil, err
	}
	if m.shared {
		c.shared.keepMap(ms, m)
	} else {
		sm.m = m
		c.shared.slotMaps[ms] = append(c.shared.slotMaps[ms], sm)
	}
	return m, nil
}
