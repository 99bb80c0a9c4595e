package pcre

import (
	"fmt"
	"strconv"
	"strings"
)

// The bounds Compile puts on a pattern, which may come from a hostile
// rule source: its length, how deep its groups nest (PCRE2's own default
// limit) and how many instructions it compiles to once counted repeats
// are unrolled.
const (
	MaxPatternBytes = 1 << 14
	maxDepth        = 250
	maxRepeat       = 65535 // PCRE2's largest {n,m}
	maxInsts        = 1 << 15
	maxNameLen      = 32
)

// Error is a pattern Compile refuses: what, and the byte offset in the
// pattern where it was found.
type Error struct {
	Pos int
	Msg string
}

func (e *Error) Error() string { return fmt.Sprintf("pcre: %s at offset %d", e.Msg, e.Pos) }

// flags are the inline options: (?i) (?m) (?s) (?x) (?n) (?U).
type flags struct{ i, m, s, x, n, u bool }

type parser struct {
	src   string
	i     int
	fl    flags
	ncap  int
	total int // groups in the whole pattern (first pass), for \10 and up
	names []string
	depth int
	look  int // lookarounds open, where PCRE2 refuses \K
	refs  []ref
	// groups are the capture groups by number; behinds the lookbehinds,
	// checked for a fixed length once backreferences know their groups.
	groups  map[int]*node
	behinds []ref
}

// ref is a backreference to check once every group is known.
type ref struct {
	n    *node
	name string
	pos  int
}

func (p *parser) errf(pos int, format string, a ...any) error {
	return &Error{Pos: pos, Msg: fmt.Sprintf(format, a...)}
}

// parse parses the whole pattern.
func parse(src string, ci bool, total int) (*parser, *node, error) {
	p := &parser{src: src, total: total, names: []string{""}, groups: map[int]*node{}}
	p.fl.i = ci
	n, err := p.alt()
	if err != nil {
		return nil, nil, err
	}
	if p.i < len(src) { // only a ')' stops alt at depth 0
		return nil, nil, p.errf(p.i, "unmatched closing parenthesis")
	}
	for _, r := range p.refs {
		if total < 0 { // the first pass only counts groups
			break
		}
		if r.name != "" {
			r.n.cap = -1
			for k, nm := range p.names {
				if nm == r.name {
					r.n.cap = k
				}
			}
			if r.n.cap < 0 {
				return nil, nil, p.errf(r.pos, "reference to non-existent subpattern %q", r.name)
			}
		}
		if r.n.cap > p.ncap || r.n.cap < 1 {
			return nil, nil, p.errf(r.pos, "reference to non-existent subpattern %d", r.n.cap)
		}
		r.n.target = p.groups[r.n.cap]
	}
	for _, b := range p.behinds {
		for _, s := range b.n.subs {
			if _, ok := s.fixedLen(); !ok && total >= 0 {
				return nil, nil, p.errf(b.pos, "lookbehind assertion is not fixed length")
			}
		}
	}
	return p, n, nil
}

func (p *parser) more() bool { return p.i < len(p.src) }
func (p *parser) peek() byte { return p.src[p.i] }

// skipX skips white space and # comments in (?x) mode.
func (p *parser) skipX() {
	for p.fl.x && p.more() {
		switch c := p.peek(); {
		case c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r':
			p.i++
		case c == '#':
			for p.more() && p.peek() != '\n' {
				p.i++
			}
		default:
			return
		}
	}
}

// skipComments skips what PCRE reads as nothing, so that a quantifier
// after it applies to the item before: (?#...) comments, and white space
// and # comments in (?x) mode.
func (p *parser) skipComments() {
	for {
		p.skipX()
		if !strings.HasPrefix(p.src[p.i:], "(?#") {
			return
		}
		end := strings.IndexByte(p.src[p.i:], ')')
		if end < 0 {
			return // group reports the missing )
		}
		p.i += end + 1
	}
}

// alt parses alternatives up to a ')' or the end. Inline flags set in
// one alternative hold in the next ones of the same group, as in PCRE.
func (p *parser) alt() (*node, error) {
	var alts []*node
	for {
		n, err := p.concat()
		if err != nil {
			return nil, err
		}
		alts = append(alts, n)
		if p.more() && p.peek() == '|' {
			p.i++
			continue
		}
		break
	}
	if len(alts) == 1 {
		return alts[0], nil
	}
	return &node{kind: nAlt, subs: alts}, nil
}

func (p *parser) concat() (*node, error) {
	var seq []*node
	for {
		p.skipX()
		if !p.more() || p.peek() == '|' || p.peek() == ')' {
			break
		}
		n, err := p.atom()
		if err != nil {
			return nil, err
		}
		if n == nil { // a flag setting, comment, \E or a \Q\E run added to seq directly
			continue
		}
		if n.kind == nConcat && n.min < 0 { // \Q...\E: literals, the last one quantifiable
			seq = append(seq, n.subs...)
			if len(n.subs) == 0 {
				continue
			}
			n = seq[len(seq)-1]
			seq = seq[:len(seq)-1]
		}
		n, err = p.quantifiers(n)
		if err != nil {
			return nil, err
		}
		seq = append(seq, n)
	}
	switch len(seq) {
	case 0:
		return &node{kind: nEmpty}, nil
	case 1:
		return seq[0], nil
	}
	return &node{kind: nConcat, subs: seq}, nil
}

// quantifiers applies the quantifier after n, if any.
func (p *parser) quantifiers(n *node) (*node, error) {
	p.skipComments()
	if !p.more() {
		return n, nil
	}
	qpos := p.i
	min, max, ok := p.quantifier()
	if !ok {
		return n, nil
	}
	if n.kind == nAssert || n.kind == nKeep || n.kind == nEmpty {
		return nil, p.errf(qpos, "quantifier does not follow a repeatable item")
	}
	if min > maxRepeat || max > maxRepeat {
		return nil, p.errf(qpos, "number too big in {} quantifier")
	}
	if max >= 0 && max < min {
		return nil, p.errf(qpos, "numbers out of order in {} quantifier")
	}
	r := &node{kind: nRepeat, subs: []*node{n}, min: min, max: max, greedy: !p.fl.u}
	if p.more() && p.peek() == '?' {
		r.greedy = !r.greedy
		p.i++
	} else if p.more() && p.peek() == '+' {
		r.greedy, r.possessive = true, true
		p.i++
	}
	if n.kind == nLook { // PCRE2: a quantified assertion runs at most once
		if r.max > 1 || r.max < 0 {
			r.max = 1
		}
		if r.min > 1 {
			r.min = 1
		}
	}
	p.skipComments()
	if p.more() {
		if _, _, ok := p.peekQuantifier(); ok {
			return nil, p.errf(p.i, "quantifier does not follow a repeatable item")
		}
	}
	return r, nil
}

// peekQuantifier reads the quantifier at p.i without consuming it.
func (p *parser) peekQuantifier() (int, int, bool) {
	save := p.i
	min, max, ok := p.quantifier()
	p.i = save
	return min, max, ok
}

// quantifier reads * + ? {n} {n,} {n,m}; a { that does not start one of
// these is a literal, as in PCRE2 10.42 (which reads {,m} as literal too).
func (p *parser) quantifier() (min, max int, ok bool) {
	if !p.more() {
		return 0, 0, false
	}
	switch p.peek() {
	case '*':
		p.i++
		return 0, -1, true
	case '+':
		p.i++
		return 1, -1, true
	case '?':
		p.i++
		return 0, 1, true
	case '{':
		j := p.i + 1
		num := func() (int, bool) {
			k := j
			for j < len(p.src) && p.src[j] >= '0' && p.src[j] <= '9' {
				j++
			}
			if k == j {
				return 0, false
			}
			v, err := strconv.Atoi(p.src[k:j])
			if err != nil || v > maxRepeat {
				v = maxRepeat + 1
			}
			return v, true
		}
		lo, ok := num()
		if !ok {
			return 0, 0, false
		}
		hi := lo
		if j < len(p.src) && p.src[j] == ',' {
			j++
			if hi, ok = num(); !ok {
				hi = -1
			}
		}
		if j >= len(p.src) || p.src[j] != '}' {
			return 0, 0, false
		}
		p.i = j + 1
		return lo, hi, true
	}
	return 0, 0, false
}

// lit returns a node for literal byte c under the current flags.
func (p *parser) lit(c byte) *node {
	n := &node{kind: nSet}
	n.set.add(c)
	if p.fl.i {
		n.set.fold()
	}
	return n
}

// atom parses one item; nil when it was only a setting or comment.
func (p *parser) atom() (*node, error) {
	c := p.peek()
	switch c {
	case '(':
		return p.group()
	case '[':
		return p.class()
	case '\\':
		return p.escape()
	case '.':
		p.i++
		n := &node{kind: nSet, set: setNotNL}
		if p.fl.s {
			n.set = setAll
		}
		return n, nil
	case '^':
		p.i++
		if p.fl.m {
			return &node{kind: nAssert, assert: aBeginLine}, nil
		}
		return &node{kind: nAssert, assert: aBegin}, nil
	case '$':
		p.i++
		if p.fl.m {
			return &node{kind: nAssert, assert: aEndLine}, nil
		}
		return &node{kind: nAssert, assert: aEndZ}, nil
	case '*', '+', '?':
		return nil, p.errf(p.i, "quantifier does not follow a repeatable item")
	case '{':
		if _, _, ok := p.peekQuantifier(); ok {
			return nil, p.errf(p.i, "quantifier does not follow a repeatable item")
		}
	}
	p.i++
	return p.lit(c), nil
}

// group parses a group from its '('.
//
// Long because it tells apart every opening PCRE has, `(?:` `(?>`
// `(?=` `(?<=` `(?<name>` `(?P=` and the rest, a case each.
func (p *parser) group() (*node, error) {
	open := p.i
	p.i++
	if p.depth++; p.depth > maxDepth {
		return nil, p.errf(open, "parentheses are too deeply nested (more than %d)", maxDepth)
	}
	defer func() { p.depth-- }()
	rest := p.src[p.i:]
	kind, capName, behind, neg := nCapture, "", false, false
	switch {
	case strings.HasPrefix(rest, "*"):
		return nil, p.errf(open, "(*VERB) and (*OPTION) are not supported")
	case !strings.HasPrefix(rest, "?"):
		if p.fl.n {
			kind = nConcat
		}
	case strings.HasPrefix(rest, "?#"):
		end := strings.IndexByte(rest, ')')
		if end < 0 {
			return nil, p.errf(open, "missing ) after (?# comment")
		}
		p.i += end + 1
		return nil, nil
	case strings.HasPrefix(rest, "?:"):
		kind, p.i = nConcat, p.i+2
	case strings.HasPrefix(rest, "?>"):
		kind, p.i = nAtomic, p.i+2
	case strings.HasPrefix(rest, "?="):
		kind, p.i = nLook, p.i+2
	case strings.HasPrefix(rest, "?!"):
		kind, neg, p.i = nLook, true, p.i+2
	case strings.HasPrefix(rest, "?<="):
		kind, behind, p.i = nLook, true, p.i+3
	case strings.HasPrefix(rest, "?<!"):
		kind, behind, neg, p.i = nLook, true, true, p.i+3
	case strings.HasPrefix(rest, "?P="):
		p.i += 3
		name, err := p.name(')')
		if err != nil {
			return nil, err
		}
		n := &node{kind: nBackref, fold: p.fl.i}
		p.refs = append(p.refs, ref{n: n, name: name, pos: open})
		return n, nil
	case strings.HasPrefix(rest, "?<"), strings.HasPrefix(rest, "?P<"), strings.HasPrefix(rest, "?'"):
		end := byte('>')
		if rest[1] == '\'' {
			end = '\''
		}
		p.i += strings.IndexAny(rest, "<'") + 1
		name, err := p.name(end)
		if err != nil {
			return nil, err
		}
		capName = name
	default:
		return p.flagGroup(open)
	}
	if kind == nCapture {
		p.ncap++
		if capName != "" {
			for _, nm := range p.names {
				if nm == capName {
					return nil, p.errf(open, "two named subpatterns have the same name %q", capName)
				}
			}
		}
		p.names = append(p.names, capName)
	}
	cap := p.ncap
	if kind == nLook {
		p.look++
	}
	sub, err := p.groupBody(open, p.fl)
	if kind == nLook {
		p.look--
	}
	if err != nil {
		return nil, err
	}
	switch kind {
	case nCapture:
		n := &node{kind: nCapture, cap: cap, subs: []*node{sub}}
		p.groups[cap] = n
		return n, nil
	case nAtomic:
		return &node{kind: nAtomic, subs: []*node{sub}}, nil
	case nLook:
		n := &node{kind: nLook, behind: behind, neg: neg, subs: []*node{sub}}
		if sub.kind == nAlt {
			n.subs = sub.subs
		}
		if behind {
			p.behinds = append(p.behinds, ref{n: n, pos: open})
		}
		return n, nil
	}
	return wrap(sub), nil // (?:...) and, under (?n), (...)
}

// groupBody parses the alternatives of the group opened at open, and its
// ')', under the flags fl: those in force before it hold again after.
func (p *parser) groupBody(open int, fl flags) (*node, error) {
	saved := p.fl
	p.fl = fl
	sub, err := p.alt()
	p.fl = saved
	if err != nil {
		return nil, err
	}
	if !p.more() || p.peek() != ')' {
		return nil, p.errf(open, "missing closing parenthesis")
	}
	p.i++
	return sub, nil
}

// flagGroup parses (?flags) and (?flags:...) after the '(' at open.
func (p *parser) flagGroup(open int) (*node, error) {
	p.i++ // '?'
	fl, on := p.fl, true
	for p.more() {
		c := p.peek()
		p.i++
		var f *bool
		switch c {
		case ')':
			p.fl = fl // to the end of the enclosing group
			return nil, nil
		case ':':
			sub, err := p.groupBody(open, fl)
			if err != nil {
				return nil, err
			}
			return wrap(sub), nil
		case '-':
			if !on {
				return nil, p.errf(p.i-1, "unrecognized character after (? or (?-")
			}
			on = false
			continue
		case 'i':
			f = &fl.i
		case 'm':
			f = &fl.m
		case 's':
			f = &fl.s
		case 'x':
			f = &fl.x
		case 'n':
			f = &fl.n
		case 'U':
			f = &fl.u
		case '|', '(', 'R', '&', '+', 'C', 'J', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			return nil, p.errf(open, "(?%c is not supported (branch reset, conditionals, recursion, callouts)", c)
		default:
			return nil, p.errf(p.i-1, "unrecognized character after (? or (?-")
		}
		*f = on
	}
	return nil, p.errf(open, "missing closing parenthesis")
}

// name reads a group name up to end.
func (p *parser) name(end byte) (string, error) {
	start := p.i
	for p.more() && p.peek() != end {
		c := p.peek()
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' && p.i > start) {
			return "", p.errf(p.i, "group name must start with a non-digit and hold only letters, digits and _")
		}
		p.i++
	}
	if !p.more() {
		return "", p.errf(start, "missing terminator for subpattern name")
	}
	name := p.src[start:p.i]
	if name == "" || len(name) > maxNameLen {
		return "", p.errf(start, "group name must be 1 to %d characters long", maxNameLen)
	}
	p.i++
	return name, nil
}

// wrap returns a group's body as an item a quantifier may follow: (?:)
// and (?:^) may be quantified, unlike nothing and ^.
func wrap(n *node) *node {
	if n.kind == nEmpty || n.kind == nAssert || n.kind == nKeep {
		return &node{kind: nConcat, subs: []*node{n}}
	}
	return n
}
