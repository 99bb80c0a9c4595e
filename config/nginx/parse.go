package nginx

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/redirectd/redirectd/config/nginx/syntax"
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
// as nginx's own reader splits them and resolves their escapes (package
// syntax). It does not follow includes; ParseFile does.
func Parse(name string, data []byte) ([]*Directive, error) {
	p := &parser{lex: syntax.New(string(data)), file: name}
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
	lex  *syntax.Lexer
	file string
}

func (p *parser) fail(line int, format string, args ...any) error {
	return &Error{File: p.file, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// block reads directives until the '}' closing a block (depth > 0) or the
// end of the input (depth 0).
func (p *parser) block(depth int) ([]*Directive, error) {
	if depth > maxBlockDepth {
		return nil, p.fail(p.lex.Line(), "blocks nest deeper than %d", maxBlockDepth)
	}
	var dirs []*Directive
	var cur *Directive
	for {
		tok, err := p.lex.Next()
		if err != nil {
			return nil, p.fail(err.(*syntax.Error).Line, "%v", err)
		}
		switch {
		case tok.Kind == syntax.EOF:
			if cur != nil {
				return nil, p.fail(cur.Line, "directive %q does not end with ';' or '{'", cur.Name)
			}
			if depth > 0 {
				return nil, p.fail(tok.Line, "unexpected end of file: a block is not closed with '}'")
			}
			return dirs, nil
		case tok.Kind == syntax.Semicolon:
			if cur == nil {
				return nil, p.fail(tok.Line, "unexpected ';' with no directive before it")
			}
			dirs, cur = append(dirs, cur), nil
		case tok.Kind == syntax.Open:
			if cur == nil {
				return nil, p.fail(tok.Line, "unexpected '{' with no directive before it")
			}
			block, err := p.block(depth + 1)
			if err != nil {
				return nil, err
			}
			cur.Block, cur.IsBlock = block, true
			dirs, cur = append(dirs, cur), nil
		case tok.Kind == syntax.Close:
			if cur != nil {
				return nil, p.fail(cur.Line, "directive %q does not end with ';' before '}'", cur.Name)
			}
			if depth == 0 {
				return nil, p.fail(tok.Line, "unexpected '}' with no block open")
			}
			return dirs, nil
		case cur == nil:
			cur = &Directive{Name: tok.Text, File: p.file, Line: tok.Line}
		default:
			cur.Args = append(cur.Args, tok.Text)
		}
	}
}
