package rewrite

import "github.com/redirectd/redirectd/internal/ascii"

// prepare evaluates the maps that parts read and no step has read yet,
// so that appending parts finds their values in vars. It runs before a
// value is built, never inside: a map's work appends to arena.
func (s *Scratch) prepare(req *Request, parts []part) {
	for i := range parts {
		s.preparePart(req, &parts[i])
	}
}

// preparePart is prepare of one part.
func (s *Scratch) preparePart(req *Request, pt *part) {
	if pt.kind == vMap && (s.vars[pt.n].n < 0 || s.prog.maps[pt.m].volatile || s.prog.maps[pt.m].fn != 0) {
		s.evalMap(req, s.prog.maps[pt.m], pt.n)
	}
}

// evalMap sets m's variable (slot) as ngx_http_map_variable: the source's
// value (without a trailing '.' in a hostnames map) is looked up among
// the literal keys without case, then the wildcard ones, then the
// regexes in order (whose captures become the request's, as nginx's);
// an empty source takes the default.
func (s *Scratch) evalMap(req *Request, m *mapVar, slot int) {
	s.vars[slot] = span{} // a map that reads itself reads it empty
	s.prepare(req, m.source.parts)
	start := len(s.arena)
	s.arena = s.appendScript(s.arena, req, &m.source, false)
	key := s.arena[start:]
	if m.fn != 0 {
		vs := len(s.arena)
		if m.enc != nil {
			s.arena = applyEnc(s.arena, key, m.enc)
		} else {
			s.arena = m.fn.apply(s.arena, key)
		}
		s.vars[slot] = span{vs, len(s.arena) - vs}
		return
	}
	if m.byHost != nil && len(key) > 0 && key[len(key)-1] == '.' {
		key = key[:len(key)-1]
	}
	v := &m.def
	if len(key) > 0 {
		s.low = ascii.AppendLower(s.low[:0], key)
		if i, ok := m.exact[string(s.low)]; ok {
			v = &m.values[i]
		} else if i, ok := m.byHost.find(s.low); ok {
			v = &m.values[i]
		} else if m.index != nil {
			// The index names the first key that matches; one with
			// groups runs again here for its captures. Should it not
			// match (a PCRE key past its budget this time), the walk
			// goes on.
			first := m.index.first(key, &s.match)
			for j := first; j >= 0 && j < len(m.regexes); j++ {
				if j == first && m.regexes[j].re.numCaps() == 0 { // nil: lazy, no group
					s.matchedWhole(key)
					v = &m.values[m.regexes[j].value]
					break
				}
				if s.matchRegex(m.keyRegex(j), key) {
					v = &m.values[m.regexes[j].value]
					break
				}
			}
		} else {
			for j := range m.regexes {
				if s.matchRegex(m.regexes[j].re, key) {
					v = &m.values[m.regexes[j].value]
					break
				}
			}
		}
	}
	s.prepare(req, v.parts)
	vs := len(s.arena)
	s.arena = s.appendScript(s.arena, req, v, false)
	s.vars[slot] = span{vs, len(s.arena) - vs}
}
