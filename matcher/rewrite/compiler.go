package rewrite

import (
	"sort"
	"strings"
)

// compiler holds what compiling one Program gathers: the variables of
// set and named captures, by slot, and the largest capture count.
type compiler struct {
	// partSlab holds the parts of map values (keepParts), valueParts
	// those of each value text of the map being compiled.
	partSlab   []part
	valueParts map[string][]part
	slots      map[string]int
	defined    []bool
	// used is where each variable was first used, for the error on one
	// that nothing defines.
	used    map[string]Error
	maxCaps int
	// where is the location being compiled, for errors.
	where string
	// maps are the map variables by lower-case name, their index in
	// Program.maps.
	maps map[string]int
	// inMap is the variable of the map being compiled, for errors.
	inMap string
	// shared holds what earlier Programs of the same CompileHosts
	// compiled that serves this one too (share.go); nil: nothing kept.
	shared *share
	// rec, when set, records each slot and define call (share.go).
	rec *[]slotOp
}

func newCompiler() *compiler {
	return &compiler{slots: map[string]int{}, used: map[string]Error{}, maps: map[string]int{}}
}

// slot returns the slot of the variable name, giving it one on first use.
func (c *compiler) slot(name string, line int) int {
	if c.rec != nil {
		*c.rec = append(*c.rec, slotOp{name: name, line: line})
	}
	name = strings.ToLower(name)
	n, ok := c.slots[name]
	if !ok {
		n = len(c.defined)
		c.slots[name] = n
		c.defined = append(c.defined, false)
	}
	if _, ok := c.used[name]; !ok {
		c.used[name] = Error{Location: c.where, Map: c.inMap, Line: line}
	}
	return n
}

// define marks name as set by a set or a named capture.
func (c *compiler) define(name string) int {
	n := c.slot(name, 0)
	c.defined[n] = true
	if c.rec != nil {
		*c.rec = append(*c.rec, slotOp{name: name, define: true})
	}
	return n
}

// undefined reports the variables used that nothing defines, as nginx
// refuses an unknown variable.
func (c *compiler) undefined() error {
	var bad []string
	for name, n := range c.slots {
		if !c.defined[n] {
			bad = append(bad, name)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	sort.Strings(bad)
	e := c.used[bad[0]]
	e.Key = "steps"
	if e.Map != "" {
		e.Key = "entries"
	}
	e.Msg = "unknown variable $" + bad[0] + ": not the request's, and no set or named capture defines it"
	return &e
}

// compileSteps compiles one step text whose first line is line.
// The error_page, try_files and internal directives in it are returned
// apart, in p: they are the block's declarations, not steps.
func (c *compiler) compileSteps(src string, line int) ([]step, *parser, error) {
	toks, err := lex(src, line)
	if err != nil {
		return nil, nil, err
	}
	p := &parser{c: c, toks: toks}
	steps, err := p.parseSteps(false)
	return steps, p, err
}
