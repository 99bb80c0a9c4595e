package nginx

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Directive is one nginx directive: a name, its arguments (unquoted, with
// escapes resolved) and, for block directives such as server or location,
// the directives inside the braces.
type Directive struct {
	Name  string
	Args  []string
	Block []*Directive // nil for a simple directive
	// IsBlock tells an empty block ("location / {}") from no block.
	IsBlock bool
	File    string
	Line    int
}

// Source returns where the directive was written, as "file:line".
func (d *Directive) Source() string { return fmt.Sprintf("%s:%d", d.File, d.Line) }

// Error is a syntax error or an unreadable file, with its place.
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// maxIncludeDepth stops include cycles (a file including itself).
const maxIncludeDepth = 16

// ParseFile reads an nginx configuration file, expanding include
// directives in place. A relative include glob is taken, as nginx takes
// it, from the folder of the main file (its conf prefix), at any depth of
// includes: conf.d/site.conf including "snippets/x.conf" means the
// snippets folder beside nginx.conf.
func ParseFile(name string) ([]*Directive, error) {
	return parseFile(name, filepath.Dir(name), 0)
}

func parseFile(name, prefix string, depth int) ([]*Directive, error) {
	if depth > maxIncludeDepth {
		return nil, &Error{File: name, Msg: fmt.Sprintf("includes nest deeper than %d; is a file including itself?", maxIncludeDepth)}
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, &Error{File: name, Msg: fmt.Sprintf("cannot read: %v", err)}
	}
	dirs, err := Parse(name, data)
	if err != nil {
		return nil, err
	}
	return expandIncludes(dirs, prefix, depth)
}

// expandIncludes replaces every include directive, at any depth, by the
// directives of the files its glob names, in name order as nginx reads
// them.
func expandIncludes(dirs []*Directive, dir string, depth int) ([]*Directive, error) {
	out := make([]*Directive, 0, len(dirs))
	for _, d := range dirs {
		if d.Name != "include" || d.IsBlock {
			if d.IsBlock {
				block, err := expandIncludes(d.Block, dir, depth)
				if err != nil {
					return nil, err
				}
				d.Block = block
			}
			out = append(out, d)
			continue
		}
		if len(d.Args) != 1 {
			return nil, &Error{File: d.File, Line: d.Line, Msg: "include takes one file name or glob"}
		}
		pattern := d.Args[0]
		if !filepath.IsAbs(pattern) {
			pattern = filepath.Join(dir, pattern)
		}
		names, err := filepath.Glob(pattern)
		if err != nil {
			return nil, &Error{File: d.File, Line: d.Line, Msg: fmt.Sprintf("include %q: %v", d.Args[0], err)}
		}
		if len(names) == 0 && !strings.ContainsAny(d.Args[0], "*?[") {
			// nginx refuses a missing file but accepts a glob matching nothing.
			return nil, &Error{File: d.File, Line: d.Line, Msg: fmt.Sprintf("include %q: no such file", d.Args[0])}
		}
		sort.Strings(names)
		for _, n := range names {
			inc, err := parseFile(n, dir, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, inc...)
		}
	}
	return out, nil
}

// Parse reads nginx configuration syntax from data (named name in
// errors): directives ending with ';' or holding a block in braces, words
// separated by white space, quoted with " or ' (a backslash escapes the next
// character), '#' to the end of the line a comment when it starts a word.
// It does not follow includes; ParseFile does.
func Parse(name string, data []byte) ([]*Directive, error) {
	p := &parser{lex: lexer{src: string(data), line: 1}, file: name}
	dirs, err := p.block(0)
	if err != nil {
		return nil, err
	}
	return dirs, nil
}

// maxBlockDepth bounds nesting, so that hostile input cannot exhaust the
// stack.
const maxBlockDepth = 64

type parser struct {
	lex  lexer
	file string
}

func (p *parser) fail(line int, format string, args ...any) error {
	return &Error{File: p.file, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// block reads directives until the '}' closing a block (depth > 0) or the
// end of the input (depth 0).
func (p *parser) block(depth int) ([]*Directive, error) {
	if depth > maxBlockDepth {
		return nil, p.fail(p.lex.line, "blocks nest deeper than %d", maxBlockDepth)
	}
	var dirs []*Directive
	var cur *Directive
	for {
		tok, err := p.lex.next()
		if err != nil {
			return nil, p.fail(p.lex.line, "%v", err)
		}
		switch {
		case tok.kind == tokEOF:
			if cur != nil {
				return nil, p.fail(cur.Line, "directive %q does not end with ';' or '{'", cur.Name)
			}
			if depth > 0 {
				return nil, p.fail(tok.line, "unexpected end of file: a block is not closed with '}'")
			}
			return dirs, nil
		case tok.kind == tokSemicolon:
			if cur == nil {
				return nil, p.fail(tok.line, "unexpected ';' with no directive before it")
			}
			dirs, cur = append(dirs, cur), nil
		case tok.kind == tokOpen:
			if cur == nil {
				return nil, p.fail(tok.line, "unexpected '{' with no directive before it")
			}
			block, err := p.block(depth + 1)
			if err != nil {
				return nil, err
			}
			cur.Block, cur.IsBlock = block, true
			dirs, cur = append(dirs, cur), nil
		case tok.kind == tokClose:
			if cur != nil {
				return nil, p.fail(cur.Line, "directive %q does not end with ';' before '}'", cur.Name)
			}
			if depth == 0 {
				return nil, p.fail(tok.line, "unexpected '}' with no block open")
			}
			return dirs, nil
		case cur == nil:
			cur = &Directive{Name: tok.text, File: p.file, Line: tok.line}
		default:
			cur.Args = append(cur.Args, tok.text)
		}
	}
}

type tokKind uint8

const (
	tokWord tokKind = iota
	tokSemicolon
	tokOpen
	tokClose
	tokEOF
)

type token struct {
	kind tokKind
	text string
	line int
}

// lexer splits nginx syntax into words and the punctuation ; { }.
type lexer struct {
	src  string
	pos  int
	line int
}

func (l *lexer) next() (token, error) {
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch c {
		case '\n':
			l.line++
			l.pos++
		case ' ', '\t', '\r':
			l.pos++
		case '#':
			if i := strings.IndexByte(l.src[l.pos:], '\n'); i >= 0 {
				l.pos += i
			} else {
				l.pos = len(l.src)
			}
		case ';':
			l.pos++
			return token{kind: tokSemicolon, line: l.line}, nil
		case '{':
			l.pos++
			return token{kind: tokOpen, line: l.line}, nil
		case '}':
			l.pos++
			return token{kind: tokClose, line: l.line}, nil
		case '"', '\'':
			return l.quoted(c)
		default:
			return l.word(), nil
		}
	}
	return token{kind: tokEOF, line: l.line}, nil
}

// word reads an unquoted word. "${name}" keeps its braces, as nginx's
// reader does, so that "$host${uri}x" is one word.
func (l *lexer) word() token {
	line := l.line
	var b strings.Builder
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		if c == '$' && l.pos+1 < len(l.src) && l.src[l.pos+1] == '{' {
			end := strings.IndexByte(l.src[l.pos:], '}')
			if end < 0 || strings.ContainsAny(l.src[l.pos:l.pos+end], " \t\r\n;") {
				b.WriteString("${")
				l.pos += 2
				continue
			}
			b.WriteString(l.src[l.pos : l.pos+end+1])
			l.pos += end + 1
			continue
		}
		if strings.IndexByte(" \t\r\n;{}", c) >= 0 {
			break
		}
		if c == '\\' && l.pos+1 < len(l.src) {
			// The escaped character never ends the word; unescape
			// decides what the pair becomes.
			if l.src[l.pos+1] == '\n' {
				l.line++
			}
			b.WriteString(l.src[l.pos : l.pos+2])
			l.pos += 2
			continue
		}
		b.WriteByte(c)
		l.pos++
	}
	return token{kind: tokWord, text: unescape(b.String()), line: line}
}

// quoted reads a word in quotes, which may span lines.
func (l *lexer) quoted(q byte) (token, error) {
	line := l.line
	for i := l.pos + 1; i < len(l.src); i++ {
		switch c := l.src[i]; {
		case c == q:
			raw := l.src[l.pos+1 : i]
			l.pos = i + 1
			if l.pos < len(l.src) && strings.IndexByte(" \t\r\n;{})", l.src[l.pos]) < 0 {
				// nginx allows ')' too, for if ($a != "").
				return token{}, fmt.Errorf("a quoted word must be followed by white space, ';', '{', '}' or ')'")
			}
			return token{kind: tokWord, text: unescape(raw), line: line}, nil
		case c == '\\' && i+1 < len(l.src):
			if l.src[i+1] == '\n' {
				l.line++
			}
			i++
		case c == '\n':
			l.line++
		}
	}
	return token{}, fmt.Errorf("quoted word starting on line %d is not closed", line)
}

// unescape resolves backslash escapes as nginx's reader does, quoted or
// not: \" \' \\ become the character, \t \r \n the control character,
// and any other backslash is kept (so "\d" reaches a regex intact).
func unescape(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		switch e := s[i+1]; e {
		case '"', '\'', '\\':
			b.WriteByte(e)
			i++
		case 't':
			b.WriteByte('\t')
			i++
		case 'r':
			b.WriteByte('\r')
			i++
		case 'n':
			b.WriteByte('\n')
			i++
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
