package rewrite

import (
	"fmt"
	"strings"

	"github.com/redirectd/redirectd/internal/ascii"
)

// MapSpec is one nginx map block: Variable is set from Source by the
// first of its entries that matches, else Default. Maps belong to every
// server (nginx's map is of the http block) and are evaluated when a
// step first reads the variable, then kept for the request (nginx's map
// is cacheable unless volatile).
type MapSpec struct {
	// Line is where the map is written, for errors about it.
	Line int
	// Source is the value looked up, with variables ("$uri",
	// "$host$uri"); Variable is the name set, with or without '$'.
	Source   string
	Variable string
	// Entries are the map's lines in nginx's syntax: "key value;",
	// "default value;", "hostnames;", "~regex value;", "~*regex
	// value;", "volatile;" (looked up at every read), a key starting
	// with '\' taken literally. EntriesLine is
	// the line of their first line.
	Entries     string
	EntriesLine int
	// Default is the value when nothing matches, "" by default; a
	// "default" line in Entries says the same.
	Default string
	// Function makes the map a function of its source, without
	// entries: "tolower", "toupper", "escape", "unescape" (Apache's
	// int: maps) or "urlencode" (its [B] flag's escape); see mapFuncs.
	// Such a map is computed at every read.
	Function string
}

// mapEntry is one "key value;" of a map.
type mapEntry struct {
	key, value string
	line       int
}

// parseMapEntries reads a map's body, as ngx_http_map's handler does.
func parseMapEntries(src string, line int) (entries []mapEntry, def *mapEntry, hostnames, volatile bool, err error) {
	toks, err := lex(src, line)
	if err != nil {
		return nil, nil, false, false, err
	}
	for i := 0; i < len(toks); {
		start := i
		for i < len(toks) && !toks[i].punct {
			i++
		}
		if i == len(toks) {
			return nil, nil, false, false, errAt(toks[start].line, "%q: missing ';' at the end", toks[start].word)
		}
		if toks[i].word != ";" || i == start {
			return nil, nil, false, false, errAt(toks[i].line, "unexpected %q: a map's lines are \"key value;\"", toks[i].word)
		}
		words := toks[start:i]
		i++
		w0 := words[0]
		switch {
		case len(words) == 1 && w0.word == "hostnames" && !w0.quoted:
			hostnames = true
		case len(words) == 1 && w0.word == "volatile" && !w0.quoted:
			volatile = true
		case len(words) == 2 && w0.word == "include" && !w0.quoted:
			return nil, nil, false, false, errAt(w0.line, "include is not supported in a map's entries; give the file as the map's file")
		case len(words) != 2:
			return nil, nil, false, false, errAt(w0.line, "%q: a map's line is a key and a value", w0.word)
		case w0.word == "default" && !w0.quoted:
			if def != nil {
				return nil, nil, false, false, errAt(w0.line, "duplicate default (the first is on line %d)", def.line)
			}
			def = &mapEntry{key: "default", value: words[1].word, line: w0.line}
		default:
			entries = append(entries, mapEntry{key: w0.word, value: words[1].word, line: w0.line})
		}
	}
	return entries, def, hostnames, volatile, nil
}

// mapVar is a compiled map.
type mapVar struct {
	name   string
	source script
	// exact holds the values of the literal keys, lower case (nginx
	// hashes them so); byHost the wildcard ones of a hostnames map.
	exact   map[string]int32
	byHost  *hostTable
	regexes []mapRegex
	// index finds the first regex that matches (mapindex.go);
	// nil for a map of few.
	index *regexIndex
	// lazy holds the lazy keys (mapRegex.re nil) compiled on a walk.
	lazy   lazyKeys
	values []script
	def    script
	// caps is the most groups a regex key has, for the Scratch.
	caps int
	// volatile: looked up at every read, not kept for the request.
	volatile bool
	// shared: nothing in the map depends on its Program's variable
	// slots (no variable of set or of another map, no named group), so
	// every host's Program uses the one compiled first.
	shared bool
	// fn, when set, is the map's value as a function of its source;
	// enc, urlencode's table where its options set one.
	fn  mapFunc
	enc *[256]byte
}

// mapRegex is a regex key and the index of its value.
type mapRegex struct {
	re    *rx // nil for a lazy key (mapindex.go)
	value int32
	// line is the entry's, for an error found once all are read.
	line int32
	// expr is the regex as written, ci whether it was ~*, for the index.
	expr string
	ci   bool
}

// declareMaps gives each map's variable its slot, before any step is
// compiled, so that steps and other maps can read it.
func (c *compiler) declareMaps(maps []MapSpec) error {
	for i := range maps {
		name := strings.TrimPrefix(maps[i].Variable, "$")
		if err := checkSettable("$" + name); err != nil {
			return &Error{Map: name, Line: maps[i].Line, Key: "variable", Msg: err.Error()}
		}
		lower := strings.ToLower(name)
		if _, dup := c.maps[lower]; dup {
			return &Error{Map: name, Line: maps[i].Line, Key: "variable", Msg: "a second map of the variable"}
		}
		c.maps[lower] = i
		c.define(name)
	}
	return nil
}

// compileMap compiles one map whose variable declareMaps filed.
func (c *compiler) compileMap(ms *MapSpec) (*mapVar, error) {
	name := strings.TrimPrefix(ms.Variable, "$")
	m := &mapVar{name: name, exact: map[string]int32{}}
	c.where, c.inMap = "", name
	defer func() { c.inMap = "" }()
	var err error
	fail := func(key string, line int, err error) (*mapVar, error) {
		if e, ok := err.(*Error); ok {
			e.Key, e.Map, e.Location = key, name, ""
			return nil, e
		}
		return nil, &Error{Map: name, Line: line, Key: key, Msg: err.Error()}
	}
	if m.source, err = c.compileScript(ms.Source, ms.Line); err != nil {
		return fail("source", ms.Line, err)
	}
	if len(m.source.parts) == 0 {
		return fail("source", ms.Line, fmt.Errorf("missing; a map looks up a value with variables, such as \"$uri\""))
	}
	if ms.Function != "" {
		return c.compileFuncMap(m, ms)
	}
	entries, def, hostnames, volatile, err := parseMapEntries(ms.Entries, ms.EntriesLine)
	if err != nil {
		return fail("entries", ms.EntriesLine, err)
	}
	defText := ms.Default
	if def != nil {
		if ms.Default != "" {
			return fail("entries", def.line, errAt(def.line, "a second default: the map's default is also set outside its entries"))
		}
		defText = def.value
	}
	if m.def, err = c.compileScript(defText, ms.Line); err != nil {
		return fail("default", ms.Line, err)
	}
	if hostnames {
		m.byHost = &hostTable{}
	}
	m.volatile = volatile
	// Sized once: a map of 42,000 keys grown by appending held a third
	// more than it used.
	nre := 0
	for _, e := range entries {
		if len(e.key) > 1 && e.key[0] == '~' {
			nre++
		}
	}
	m.values, m.regexes = make([]script, 0, len(entries)), make([]mapRegex, 0, nre)
	c.valueParts = make(map[string][]part)
	defer func() { c.valueParts = nil }()
	for _, e := range entries {
		if err := c.addMapEntry(m, e); err != nil {
			return fail("entries", e.line, errAt(e.line, "%q: %v", e.key, err))
		}
	}
	m.index = c.shared.regexIndex(ms.Entries, m.regexes)
	if m.index == nil {
		// Walked in order: every key runs on its own.
		for i := range m.regexes {
			r := &m.regexes[i]
			if r.re != nil {
				continue
			}
			r.re = &rx{}
			if r.re.p, err = c.shared.pattern(regexSource(r.expr, r.ci)); err != nil {
				key := "~" + r.expr
				if r.ci {
					key = "~*" + r.expr
				}
				return fail("entries", int(r.line), errAt(int(r.line), "%q: invalid regex %q: %v", key, r.expr, err))
			}
		}
	}
	m.shared = m.independent()
	return m, nil
}

// independent reports whether m reads no variable slot, so that its
// compiled form serves every Program.
func (m *mapVar) independent() bool {
	// caps first, whole: a Program that takes the map from another
	// sizes its Scratch by it (share.go).
	for _, r := range m.regexes {
		m.caps = max(m.caps, r.re.numCaps())
	}
	scripts := append([]script{m.source, m.def}, m.values...)
	for _, sc := range scripts {
		for _, pt := range sc.parts {
			if pt.kind == vUser || pt.kind == vMap {
				return false
			}
		}
	}
	for _, r := range m.regexes {
		if r.re == nil {
			continue // lazy: no group, no slot
		}
		for _, slot := range r.re.slots {
			if slot >= 0 {
				return false
			}
		}
	}
	return true
}

// addMapEntry compiles one entry into m.
func (c *compiler) addMapEntry(m *mapVar, e mapEntry) error {
	v, err := c.compileScript(e.value, e.line)
	if err != nil {
		return err
	}
	// A value written again (gwern.net's 42,209 keys have 29,446
	// values) shares the parts of its first: they are only read.
	if ps, ok := c.valueParts[e.value]; ok {
		v.parts = ps
	} else {
		v.parts = c.keepParts(v.parts)
		c.valueParts[e.value] = v.parts
	}
	idx := int32(len(m.values))
	key := e.key
	if len(key) > 1 && key[0] == '~' {
		ci := key[1] == '*'
		expr := key[1:]
		if ci {
			expr = key[2:]
		}
		re, err := c.mapKeyRegex(expr, ci)
		if err != nil {
			return err
		}
		m.values = append(m.values, v)
		m.regexes = append(m.regexes, mapRegex{re: re, value: idx, line: int32(e.line), expr: expr, ci: ci})
		return nil
	}
	// ASCII only, as the lookup folds the request's key and as nginx's
	// ngx_hash_strlow does: "/CAFÉ" is not "/café".
	key = string(ascii.AppendLower(nil, strings.TrimPrefix(key, `\`)))
	if m.byHost != nil {
		wild, err := m.byHost.add(key, idx)
		if err != nil {
			return err
		}
		if wild {
			m.values = append(m.values, v)
			return nil
		}
		key = strings.TrimPrefix(key, ".") // ".example.com" names example.com too
	}
	if _, dup := m.exact[key]; dup {
		return fmt.Errorf("duplicate key")
	}
	m.exact[key] = idx
	m.values = append(m.values, v)
	return nil
}

// keepParts returns a map value's parts copied into the compiler's slab:
// a value of its own each, 42,000 small objects among the load's
// garbage, held spans of the heap that would otherwise have been freed.
func (c *compiler) keepParts(ps []part) []part {
	if len(ps) == 0 || len(ps) > partChunk/4 {
		return ps
	}
	if cap(c.partSlab)-len(c.partSlab) < len(ps) {
		// Doubling from a few: a map of three values takes no more.
		c.partSlab = make([]part, 0, min(partChunk, max(8, 2*cap(c.partSlab))))
	}
	n := len(c.partSlab)
	c.partSlab = append(c.partSlab, ps...)
	return c.partSlab[n:len(c.partSlab):len(c.partSlab)]
}

// partChunk is the largest chunk of compiler.partSlab: 1,024 parts of
// 72 bytes fill nine pages, a large object with no room left over.
const partChunk = 1024
