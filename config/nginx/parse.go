package nginx

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/redirectd/redirectd/config/syntax"

	"github.com/redirectd/redirectd/config/importer"
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
type Error = importer.PlaceError

// ParseFile reads an nginx configuration file, expanding include
// directives in place. A relative include glob is taken, as nginx takes
// it, from the folder of the main file (its conf prefix), at any depth of
// includes: conf.d/site.conf including "snippets/x.conf" means the
// snippets folder beside nginx.conf.
//
// Each file is read and parsed once: a file included at several places
// (a snippet in every server block) gives the same directives, shared, at
// each of them. A file that includes itself, directly or through others
// (a glob such as conf.d/*.conf written inside conf.d/), is an error that
// names the cycle with the line of each include in it.
//
// Includes are read only from the main file's folder and the folders
// given in allow (and below them), symbolic links resolved: an include of
// any other file is an error naming the include's file:line. Errors about
// an included file name its file and line but never quote its bytes. The
// import runs as whoever runs it, often root, and its errors are shown or
// sent on: a config that includes /etc/shadow, or that a link in conf.d
// points there, must not print a line of it.
func ParseFile(name string, allow ...string) ([]*Directive, error) {
	in := &includer{prefix: filepath.Dir(name), done: map[string][]*Directive{}, weight: map[string]int{}}
	for _, dir := range append([]string{filepath.Dir(name)}, allow...) {
		in.roots = append(in.roots, fileKey(dir))
	}
	return in.file(name, nil)
}

// What one ParseFile call may cost. A file is read once however often it
// is included, but its directives stand at every include of it, and a
// file that includes the next one twice doubles them: 20 files of two
// lines each expand to a million copies. The bounds are on what the
// expansion yields, counted as it grows, so a fan-out is refused at the
// include that crosses them, before it costs memory; they are far above
// real configs (a 42,000-entry map is 42,000 directives).
const (
	maxReadBytes = 256 << 20 // bytes read from all the files together
	maxDirs      = 4 << 20   // directives in the expansion, blocks' included
	maxIncludes  = 100_000   // files spliced in by include directives
)

// includer expands the includes of one ParseFile call.
type includer struct {
	prefix string
	roots  []string // the folders includes may read, as fileKey gives them
	// done holds each file read so far, by key, with its includes
	// expanded: they depend only on prefix, the same for every file.
	done map[string][]*Directive
	// weight is the number of directives each file in done stands for,
	// those in its blocks included: what one more include of it adds.
	weight map[string]int
	// read, dirs and includes count what the expansion cost so far,
	// against maxReadBytes, maxDirs and maxIncludes.
	read, dirs, includes int
	// stack is the chain of files being expanded, the main file first;
	// each one's line is that of its include being expanded.
	stack []includeFrame
}

type includeFrame struct {
	name, key string
	line      int
}

// fileKey names a file the same however it is reached: absolute, cleaned,
// through symbolic links (a conf.d/x.conf linked to ../nginx.conf is a
// cycle).
func fileKey(name string) string {
	if k, err := filepath.EvalSymlinks(name); err == nil {
		name = k
	}
	if k, err := filepath.Abs(name); err == nil {
		return k
	}
	return filepath.Clean(name)
}

// file returns the directives of the file name, its includes expanded;
// inc is the include directive that names it (nil for the main file).
func (in *includer) file(name string, inc *Directive) ([]*Directive, error) {
	key := fileKey(name)
	for i, f := range in.stack {
		if f.key != key {
			continue
		}
		chain := make([]string, 0, len(in.stack)-i+1)
		for _, g := range in.stack[i:] {
			chain = append(chain, fmt.Sprintf("%s:%d", g.name, g.line))
		}
		chain = append(chain, name)
		return nil, &Error{File: inc.File, Line: inc.Line, Msg: fmt.Sprintf("include %q makes a cycle: %s", inc.Args[0], strings.Join(chain, " -> "))}
	}
	if dirs, ok := in.done[key]; ok {
		return dirs, in.count(inc, in.weight[key])
	}
	if inc != nil && !in.allowed(key) {
		return nil, &Error{File: inc.File, Line: inc.Line, Msg: fmt.Sprintf("include %q names %s, outside the folders an import reads (%s); it is not read: give -include-dir with its folder to read it",
			inc.Args[0], name, strings.Join(in.roots, ", "))}
	}
	data, err := in.readFile(name, inc)
	if err != nil {
		return nil, err
	}
	p := &parser{lex: syntax.New(string(data)), file: name, quiet: inc != nil}
	dirs, err := p.block(0)
	if err != nil {
		return nil, err
	}
	in.stack = append(in.stack, includeFrame{name: name, key: key})
	dirs, err = in.expand(dirs)
	in.stack = in.stack[:len(in.stack)-1]
	if err != nil {
		return nil, err
	}
	in.done[key] = dirs
	in.weight[key] = weigh(dirs)
	if inc == nil {
		return dirs, nil
	}
	return dirs, in.count(inc, in.weight[key])
}

// readFile reads name for the include inc (nil for the main file) within
// what is left of maxReadBytes, checking its size before reading it.
func (in *includer) readFile(name string, inc *Directive) ([]byte, error) {
	fi, err := os.Stat(name)
	if err == nil && fi.Size() > int64(maxReadBytes-in.read) {
		return nil, in.overLimit(inc, name, fmt.Sprintf("reading it would take the files read past %d MiB", maxReadBytes>>20))
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, &Error{File: name, Msg: fmt.Sprintf("cannot read: %v", err)}
	}
	if in.read += len(data); in.read > maxReadBytes {
		return nil, in.overLimit(inc, name, fmt.Sprintf("the files read grew past %d MiB", maxReadBytes>>20))
	}
	return data, nil
}

// count adds one include of a file that stands for n directives.
func (in *includer) count(inc *Directive, n int) error {
	in.includes++
	in.dirs += n
	switch {
	case in.includes > maxIncludes:
		return in.overLimit(inc, inc.Args[0], fmt.Sprintf("the includes expanded number more than %d", maxIncludes))
	case in.dirs > maxDirs:
		return in.overLimit(inc, inc.Args[0], fmt.Sprintf("the includes expand to more than %d directives (a file included at many places counts at each)", maxDirs))
	}
	return nil
}

// overLimit is the error for an expansion stopped at inc (nil for the
// main file) by a bound.
func (in *includer) overLimit(inc *Directive, name, why string) error {
	msg := fmt.Sprintf("%s is not read: %s; an import reads at most %d MiB, %d includes and %d directives (is a file included from several places that include each other?)",
		name, why, maxReadBytes>>20, maxIncludes, maxDirs)
	if inc == nil {
		return &Error{File: name, Msg: msg}
	}
	return &Error{File: inc.File, Line: inc.Line, Msg: fmt.Sprintf("include %q: %s", inc.Args[0], msg)}
}

// weigh counts dirs and the directives in their blocks.
func weigh(dirs []*Directive) int {
	n := len(dirs)
	for _, d := range dirs {
		n += weigh(d.Block)
	}
	return n
}

// allowed reports whether the file key lies in one of the roots.
func (in *includer) allowed(key string) bool {
	for _, r := range in.roots {
		if rel, err := filepath.Rel(r, key); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// expand replaces every include directive, at any depth, by the
// directives of the files its glob names, in name order as nginx reads
// them.
func (in *includer) expand(dirs []*Directive) ([]*Directive, error) {
	out := make([]*Directive, 0, len(dirs))
	for _, d := range dirs {
		if d.Name != "include" || d.IsBlock {
			if d.IsBlock {
				block, err := in.expand(d.Block)
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
			pattern = filepath.Join(in.prefix, pattern)
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
		in.stack[len(in.stack)-1].line = d.Line
		for _, n := range names {
			inc, err := in.file(n, d)
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
	// quiet keeps the file's bytes out of errors: an included file may
	// not be a config at all (see ParseFile).
	quiet bool
}

// fail returns a syntax error; args are the file's own bytes (a directive
// name, the lexer's message), which a quiet parser leaves out.
func (p *parser) fail(line int, format string, args ...any) error {
	if p.quiet {
		for i := range args {
			args[i] = "(not shown)"
		}
		if format == "%v" { // the lexer's message
			format, args = "a quoted word is not closed, or is followed by a character nginx refuses", nil
		}
		format = "not nginx configuration syntax: " + format + " (an included file's text is not quoted)"
	}
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
