package apache

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/redirectd/redirectd/config/importer"
)

// Directive is one Apache directive or section: its name as written,
// its arguments (quotes removed) and, for a section such as
// <VirtualHost>, the directives inside it.
type Directive struct {
	Name    string
	Args    []string
	Block   []*Directive
	Section bool // <Name ...> ... </Name>
	File    string
	Line    int
}

// Is reports whether the directive is called name; Apache's names are
// compared without case.
func (d *Directive) Is(name string) bool { return strings.EqualFold(d.Name, name) }

// Source returns where the directive was written, as "file:line".
func (d *Directive) Source() string { return fmt.Sprintf("%s:%d", d.File, d.Line) }

// Error is a syntax error or an unreadable file, with its place.
type Error = importer.PlaceError

// What one ParseFile call may read: far above real configs, low enough
// that a config including itself through globs cannot exhaust memory.
const (
	maxReadBytes = 256 << 20
	maxIncludes  = 10_000
	maxDepth     = 32 // nested includes, as Apache's own bound of 128 is for recursion
	maxSections  = 64 // nested sections
)

// Parse reads one file's text (no includes followed).
func Parse(name string, data []byte) ([]*Directive, error) {
	p := &parser{file: name, lines: splitLines(string(data))}
	return p.block("", 0, 0)
}

type line struct {
	text string
	num  int
}

// splitLines joins continuation lines (a backslash at the end of a
// line, as ap_cfg_getline joins them) and drops comments and blank
// lines; each line keeps the number of its first physical line.
func splitLines(s string) []line {
	var out []line
	raw := strings.Split(s, "\n")
	for i := 0; i < len(raw); i++ {
		start := i
		text := strings.TrimRight(raw[i], "\r")
		for strings.HasSuffix(text, "\\") && i+1 < len(raw) {
			i++
			text = text[:len(text)-1] + strings.TrimRight(raw[i], "\r")
		}
		text = strings.TrimSpace(text)
		if text == "" || text[0] == '#' {
			continue
		}
		out = append(out, line{text, start + 1})
	}
	return out
}

type parser struct {
	file  string
	lines []line
	i     int
}

// block reads directives up to the end of the section named end ("" for
// the end of the file).
func (p *parser) block(end string, depth, open int) ([]*Directive, error) {
	if depth > maxSections {
		return nil, &Error{File: p.file, Line: open, Msg: "sections nested too deep"}
	}
	var dirs []*Directive
	for p.i < len(p.lines) {
		l := p.lines[p.i]
		p.i++
		if strings.HasPrefix(l.text, "</") {
			name := strings.TrimSpace(strings.TrimSuffix(l.text[2:], ">"))
			if end == "" || !strings.EqualFold(name, end) {
				return nil, &Error{File: p.file, Line: l.num, Msg: fmt.Sprintf("</%s> without its <%s>", name, name)}
			}
			return dirs, nil
		}
		if strings.HasPrefix(l.text, "<") {
			close := strings.LastIndexByte(l.text, '>')
			if close < 0 {
				return nil, &Error{File: p.file, Line: l.num, Msg: "a section's opening line lacks its '>'"}
			}
			words, err := words(l.text[1:close])
			if err != nil || len(words) == 0 {
				return nil, &Error{File: p.file, Line: l.num, Msg: "a section needs a name"}
			}
			d := &Directive{Name: words[0], Args: words[1:], Section: true, File: p.file, Line: l.num}
			if d.Block, err = p.block(d.Name, depth+1, l.num); err != nil {
				return nil, err
			}
			dirs = append(dirs, d)
			continue
		}
		name, rest, _ := strings.Cut(strings.ReplaceAll(l.text, "\t", " "), " ")
		var ws []string
		var err error
		if n := strings.ToLower(name); n == "rewriterule" || n == "rewritecond" {
			// mod_rewrite reads its own lines (parseargline): a
			// backslash keeps the next character in the word, a
			// space included ("^GET\ /index").
			ws, err = argLine(rest)
		} else {
			ws, err = words(rest)
		}
		if err != nil {
			return nil, &Error{File: p.file, Line: l.num, Msg: err.Error()}
		}
		dirs = append(dirs, &Directive{Name: name, Args: ws, File: p.file, Line: l.num})
	}
	if end != "" {
		return nil, &Error{File: p.file, Line: open, Msg: fmt.Sprintf("<%s> is not closed by </%s>", end, end)}
	}
	return dirs, nil
}

// words splits a line as ap_getword_conf does: on white space, a word
// in double or single quotes taken whole (to the end of the line where
// the quote is not closed), a backslash before the quote (or a
// backslash) inside it taken as that character. Outside quotes a
// backslash is kept, as Apache keeps it (regexes need it).
func words(s string) ([]string, error) {
	var out []string
	for {
		s = strings.TrimLeft(s, " \t")
		if s == "" {
			return out, nil
		}
		if q := s[0]; q == '"' || q == '\'' {
			var b strings.Builder
			i := 1
			for ; i < len(s) && s[i] != q; i++ {
				if s[i] == '\\' && i+1 < len(s) && (s[i+1] == q || s[i+1] == '\\') {
					i++
				}
				b.WriteByte(s[i])
			}
			// A quote left open takes the rest of the line, as
			// ap_getword_conf reads it (Drupal's .htaccess has
			// ErrorDocument 404 "The requested file ... unclosed).
			out = append(out, b.String())
			s = s[min(i+1, len(s)):]
			continue
		}
		end := strings.IndexAny(s, " \t")
		if end < 0 {
			end = len(s)
		}
		out = append(out, s[:end])
		s = s[end:]
	}
}

// argLine splits a RewriteRule's or RewriteCond's arguments as
// mod_rewrite's parseargline does: words separated by white space, a
// word in double or single quotes taken whole (its quotes dropped), and
// a backslash keeping the character after it in the word, both kept.
func argLine(s string) ([]string, error) {
	var out []string
	for {
		s = strings.TrimLeft(s, " \t")
		if s == "" {
			return out, nil
		}
		quote := byte(0)
		if s[0] == '"' || s[0] == '\'' {
			quote, s = s[0], s[1:]
		}
		i := 0
		for ; i < len(s); i++ {
			if s[i] == '\\' && i+1 < len(s) {
				i++
				continue
			}
			if quote != 0 && s[i] == quote || quote == 0 && (s[i] == ' ' || s[i] == '\t') {
				break
			}
		}
		if quote != 0 && i >= len(s) {
			return nil, fmt.Errorf("a quote is not closed")
		}
		out = append(out, s[:i])
		if quote != 0 {
			i++
			if len(out) == 1 && strings.TrimLeft(s[i:], " \t") == "" {
				// parseargline: after a quoted first argument the
				// second starts, empty at the end of the line (a
				// RewriteCond "! -f %{REQUEST_FILENAME}" is that
				// test string and an empty pattern).
				out = append(out, "")
			}
		}
		s = s[i:]
	}
}

// ParseFile reads an Apache configuration file, expanding Include and
// IncludeOptional in place. A relative glob is taken from the main
// file's folder (Apache takes it from ServerRoot, which a config copied
// off its host has in its own folder). Includes are read only from that
// folder and from the folders in allow, links resolved: the import often
// runs as root, and a config, or a link in conf-enabled/, could name
// /etc/shadow; an error about an included file names its file:line and
// never quotes its text.
func ParseFile(name string, allow ...string) ([]*Directive, error) {
	in := &includer{prefix: filepath.Dir(name)}
	for _, dir := range append([]string{filepath.Dir(name)}, allow...) {
		in.roots = append(in.roots, realPath(dir))
	}
	return in.file(name, nil, 0)
}

type includer struct {
	prefix   string
	roots    []string
	read     int
	includes int
	stack    []string
}

func realPath(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	return abs
}

func (in *includer) allowed(p string) bool {
	r := realPath(p)
	for _, root := range in.roots {
		if r == root || strings.HasPrefix(r, root+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

func (in *includer) file(name string, inc *Directive, depth int) ([]*Directive, error) {
	fail := func(msg string) error {
		if inc != nil {
			return &Error{File: inc.File, Line: inc.Line, Msg: msg}
		}
		return &Error{File: name, Line: 0, Msg: msg}
	}
	key := realPath(name)
	for _, s := range in.stack {
		if s == key {
			return nil, fail(fmt.Sprintf("%s includes itself", name))
		}
	}
	if depth > maxDepth {
		return nil, fail("includes nested too deep")
	}
	data, err := os.ReadFile(name)
	if err != nil {
		if inc != nil {
			return nil, fail(fmt.Sprintf("%s %s: cannot be read", inc.Name, name))
		}
		return nil, fail(err.Error())
	}
	if in.read += len(data); in.read > maxReadBytes {
		return nil, fail("the files included exceed 256 MiB")
	}
	dirs, err := Parse(name, data)
	if err != nil {
		if inc != nil {
			if e, ok := err.(*Error); ok {
				return nil, &Error{File: e.File, Line: e.Line, Msg: "syntax error in an included file"}
			}
		}
		return nil, err
	}
	in.stack = append(in.stack, key)
	defer func() { in.stack = in.stack[:len(in.stack)-1] }()
	return in.expand(dirs, depth)
}

// expand replaces each Include in dirs, sections' included, by the
// directives of the files it names.
func (in *includer) expand(dirs []*Directive, depth int) ([]*Directive, error) {
	var out []*Directive
	for _, d := range dirs {
		if d.Section {
			b, err := in.expand(d.Block, depth)
			if err != nil {
				return nil, err
			}
			d.Block = b
			out = append(out, d)
			continue
		}
		if !d.Is("Include") && !d.Is("IncludeOptional") {
			out = append(out, d)
			continue
		}
		if len(d.Args) != 1 {
			return nil, &Error{File: d.File, Line: d.Line, Msg: d.Name + " takes one file or glob"}
		}
		pat := d.Args[0]
		if !filepath.IsAbs(pat) {
			pat = filepath.Join(in.prefix, pat)
		}
		names, err := filepath.Glob(pat)
		if err != nil {
			return nil, &Error{File: d.File, Line: d.Line, Msg: fmt.Sprintf("%s %q: bad glob", d.Name, d.Args[0])}
		}
		sort.Strings(names)
		if len(names) == 0 && d.Is("Include") && !strings.ContainsAny(d.Args[0], "*?[") {
			return nil, &Error{File: d.File, Line: d.Line, Msg: fmt.Sprintf("Include %q: no such file", d.Args[0])}
		}
		for _, n := range names {
			if st, err := os.Stat(n); err != nil || st.IsDir() {
				continue
			}
			if !in.allowed(n) {
				return nil, &Error{File: d.File, Line: d.Line, Msg: fmt.Sprintf("%s %q: outside the folders the import reads (add -include-dir)", d.Name, d.Args[0])}
			}
			if in.includes++; in.includes > maxIncludes {
				return nil, &Error{File: d.File, Line: d.Line, Msg: "more than 10,000 files included"}
			}
			sub, err := in.file(n, d, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, sub...)
		}
	}
	return out, nil
}
