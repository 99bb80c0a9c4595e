package nginx

import (
	"fmt"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/redirectd/redirectd/config/importer"
	"github.com/redirectd/redirectd/internal/ascii"
)

// toRE2 rewrites a PCRE pattern (nginx's regex dialect) into Go's RE2
// syntax with the same matches, where one exists, and reports whether it
// changed anything. What it rewrites:
//
//   - \Z becomes \z. PCRE's \Z also matches before a final newline, as
//     PCRE's $ does; Go's $ (without (?m)) and \z do not, so \Z keeps the
//     meaning every translated $ already has. A path ends with a newline
//     only when the client sent %0A there.
//   - \N becomes [^\n], \h \H \v \V their PCRE classes (Go's \v is the
//     vertical tab alone), \e becomes \x1b.
//   - \ before a non-ASCII character is that character (PCRE reads it as
//     a literal; Go refuses the escape).
//   - (?#comment) is dropped; (?'name'...) becomes (?P<name>...).
//   - A possessive quantifier (a*+, [^/]++, \d?+, x{2,}+) becomes the
//     greedy one when that cannot change the match: the repeated item is
//     one character (class), and what follows it is the end of the
//     pattern, $, \z, or one character (class) that item cannot match. A
//     {n}+ never backtracks, so it always reads as {n}.
//   - An atomic group (?>...) becomes (?:...) when it holds literal
//     alternatives none of which is a prefix of another: then at most one
//     alternative matches at a place, and there is nothing to give back.
//
// Everything else PCRE has and RE2 lacks (backreferences, lookarounds,
// recursion, other possessive and atomic forms) is an error naming it.
func toRE2(src string, ci bool) (string, bool, error) {
	c := &pcreConv{src: src, ci: ci}
	if err := c.run(); err != nil {
		return "", false, err
	}
	return c.out.String(), c.changed, nil
}

type pcreConv struct {
	src     string
	ci      bool
	i       int
	out     strings.Builder
	changed bool
	depth   int    // open groups
	ngroups int    // capture groups opened so far, for telling \1 from octal
	atom    string // the last single-character item written, "" if the last item is not one
	err     error  // set by quantifier
}

const (
	pcreH = `\t \x{a0}\x{1680}\x{180e}\x{2000}-\x{200a}\x{202f}\x{205f}\x{3000}`
	pcreV = `\n-\r\x{85}\x{2028}\x{2029}`
)

func (c *pcreConv) run() error {
	for c.i < len(c.src) {
		ch := c.src[c.i]
		switch {
		case ch == '\\':
			if err := c.escape(false); err != nil {
				return err
			}
		case ch == '[':
			if err := c.class(); err != nil {
				return err
			}
		case ch == '(':
			if err := c.group(); err != nil {
				return err
			}
		case ch == ')':
			c.depth--
			c.emit(")", false)
		case ch == '*' || ch == '+' || ch == '?':
			c.quantifier(1)
		case ch == '{' && isRepeat(c.src[c.i:]) > 0:
			c.quantifier(isRepeat(c.src[c.i:]))
		case ch == '.':
			c.emit(".", true)
		case ch == '$' || ch == '^' || ch == '|':
			c.emit(string(ch), false)
		default:
			_, n := utf8.DecodeRuneInString(c.src[c.i:])
			c.emit(c.src[c.i:c.i+n], true)
			c.i += n - 1
		}
		if c.err != nil {
			return c.err
		}
		c.i++
	}
	return nil
}

// emit writes s; single marks it as one character (class) a following
// possessive quantifier may apply to.
func (c *pcreConv) emit(s string, single bool) {
	c.out.WriteString(s)
	c.atom = ""
	if single {
		c.atom = s
	}
}

// escape reads the escape at c.i (a backslash), leaving c.i on its last byte.
func (c *pcreConv) escape(inClass bool) error {
	if c.i+1 >= len(c.src) {
		return fmt.Errorf("ends with a lone backslash")
	}
	r, n := utf8.DecodeRuneInString(c.src[c.i+1:])
	c.i += n
	if r >= utf8.RuneSelf {
		// PCRE reads \é as é; Go refuses the escape.
		c.changed = true
		c.emit(string(r), true)
		return nil
	}
	switch r {
	case 'Z':
		if inClass {
			return fmt.Errorf(`\Z inside a character class`)
		}
		c.changed = true
		c.emit(`\z`, false)
	case 'z', 'A', 'b', 'B':
		if inClass {
			return fmt.Errorf(`\%c inside a character class`, r)
		}
		c.emit(`\`+string(r), false)
	case 'N':
		if inClass {
			return fmt.Errorf(`\N inside a character class`)
		}
		c.changed = true
		c.emit(`[^\n]`, true)
	case 'h', 'v':
		c.spaceClass(r, inClass, false)
	case 'H', 'V':
		if inClass {
			return fmt.Errorf(`\%c inside a character class`, r)
		}
		c.spaceClass(r, inClass, true)
	case 'e':
		c.changed = true
		c.emit(`\x1b`, true)
	case 'G', 'K', 'R', 'X', 'C', 'g', 'k', 'c', 'o':
		return fmt.Errorf(`\%c has no RE2 equivalent`, r)
	case 'Q':
		c.quoted()
	case 'x', 'p', 'P':
		c.withOperand(r == 'x')
	default:
		if r >= '1' && r <= '9' {
			return fmt.Errorf(`backreference \%c has no RE2 equivalent`, r)
		}
		c.emit(`\`+string(r), true)
	}
	return nil
}

// spaceClass writes PCRE's \h or \v (r; \H, \V negated): inside a class
// its ranges, outside a class of its own.
func (c *pcreConv) spaceClass(r rune, inClass, neg bool) {
	c.changed = true
	ranges := pcreH
	if r|0x20 == 'v' {
		ranges = pcreV
	}
	switch {
	case inClass:
		c.out.WriteString(ranges)
	case neg:
		c.emit("[^"+ranges+"]", true)
	default:
		c.emit("["+ranges+"]", true)
	}
}

// quoted copies a \Q...\E run, c.i on its Q, whole: Go reads it the same
// way.
func (c *pcreConv) quoted() {
	end := strings.Index(c.src[c.i:], `\E`)
	if end < 0 {
		end = len(c.src) - c.i
	}
	lit := c.src[c.i-1 : min(c.i+end+2, len(c.src))]
	c.i += min(end+1, len(c.src)-c.i-1)
	c.emit(`\`+lit[1:], false)
}

// withOperand copies an escape that takes an operand, c.i on its letter:
// \x (hex, true) with {...} or up to two hex digits, \p and \P with {...}
// or one letter.
func (c *pcreConv) withOperand(hex bool) {
	j := c.i + 1
	switch {
	case j < len(c.src) && c.src[j] == '{':
		if k := strings.IndexByte(c.src[j:], '}'); k > 0 {
			j += k + 1
		}
	case hex:
		for k := 0; k < 2 && j < len(c.src) && ascii.IsHex(c.src[j]); k++ {
			j++
		}
	case j < len(c.src):
		j++
	}
	c.emit(`\`+c.src[c.i:j], true)
	c.i = j - 1
}

// class copies a bracket expression, rewriting the escapes inside it.
func (c *pcreConv) class() error {
	var b strings.Builder
	b.WriteByte('[')
	c.i++
	if c.i < len(c.src) && c.src[c.i] == '^' {
		b.WriteByte('^')
		c.i++
	}
	first := true
	for ; c.i < len(c.src); c.i++ {
		ch := c.src[c.i]
		switch {
		case ch == ']' && !first:
			b.WriteByte(']')
			c.emit(b.String(), true)
			return nil
		case ch == '\\':
			// escape writes to c.out; collect it through a scratch builder.
			saved := c.out
			c.out = strings.Builder{}
			err := c.escape(true)
			b.WriteString(c.out.String())
			c.out = saved
			if err != nil {
				return err
			}
		case ch == '[' && strings.HasPrefix(c.src[c.i:], "[:"):
			end := strings.Index(c.src[c.i+2:], ":]")
			if end < 0 {
				b.WriteByte(ch)
				break
			}
			b.WriteString(c.src[c.i : c.i+end+4])
			c.i += end + 3
		default:
			b.WriteByte(ch)
		}
		first = false
	}
	return fmt.Errorf("unterminated [ ] class")
}

// group reads the opening of a group at c.i.
func (c *pcreConv) group() error {
	rest := c.src[c.i:]
	c.depth++
	switch {
	case !strings.HasPrefix(rest, "(?") && !strings.HasPrefix(rest, "(*"):
		c.ngroups++
		c.emit("(", false)
	case strings.HasPrefix(rest, "(?#"):
		end := strings.IndexByte(rest, ')')
		if end < 0 {
			return fmt.Errorf("unterminated (?# comment")
		}
		c.changed = true
		c.depth--
		c.i += end
	case strings.HasPrefix(rest, "(?'"):
		end := strings.IndexByte(rest[3:], '\'')
		if end < 0 {
			return fmt.Errorf("unterminated (?'name'")
		}
		c.changed = true
		c.ngroups++
		c.emit("(?P<"+rest[3:3+end]+">", false)
		c.i += 3 + end
	case strings.HasPrefix(rest, "(?>"):
		return c.atomic()
	case strings.HasPrefix(rest, "(?<") && !strings.HasPrefix(rest, "(?<=") && !strings.HasPrefix(rest, "(?<!"),
		strings.HasPrefix(rest, "(?P<"):
		c.ngroups++
		c.emit("(", false)
	default:
		for _, f := range []struct{ p, what string }{
			{"(?=", "lookahead"}, {"(?!", "negative lookahead"}, {"(?<=", "lookbehind"}, {"(?<!", "negative lookbehind"},
			{"(?|", "branch reset group"}, {"(?R", "recursion"}, {"(?&", "recursion"}, {"(?P=", "backreference"},
			{"(?P>", "recursion"}, {"(?(", "conditional group"}, {"(*", "verb"},
		} {
			if strings.HasPrefix(rest, f.p) {
				return fmt.Errorf("%s %s... has no RE2 equivalent", f.what, f.p)
			}
		}
		if len(rest) > 2 && (rest[2] >= '0' && rest[2] <= '9' || rest[2] == '+' || rest[2] == '-' && len(rest) > 3 && rest[3] >= '0' && rest[3] <= '9') {
			return fmt.Errorf("recursion %s has no RE2 equivalent", rest[:3])
		}
		c.emit("(", false) // flags such as (?i) or (?:, which Go reads
	}
	return nil
}

// atomic reads (?>...) at c.i.
func (c *pcreConv) atomic() error {
	body, ok := groupBody(c.src[c.i+3:])
	if !ok {
		return fmt.Errorf("unterminated (?> group")
	}
	alts := strings.Split(body, "|")
	for i, a := range alts {
		lit, ok := plainLiteral(a)
		if !ok {
			return fmt.Errorf("atomic group (?>%s) has no RE2 equivalent (only literal alternatives are translated)", body)
		}
		if c.ci {
			lit = strings.ToLower(lit)
		}
		alts[i] = lit
	}
	for i, a := range alts {
		for j, b := range alts {
			if i != j && strings.HasPrefix(b, a) {
				return fmt.Errorf("atomic group (?>%s) has no RE2 equivalent (%q is a prefix of %q, so the group can give back what RE2 would try)", body, a, b)
			}
		}
	}
	c.changed = true
	c.depth--
	c.emit("(?:"+body+")", false)
	c.i += 3 + len(body)
	return nil
}

// groupBody returns s up to the ')' closing a group opened before s.
func groupBody(s string) (string, bool) {
	depth := 0
	for i, c := range importer.PatternMeta(s) {
		switch c {
		case '(':
			depth++
		case ')':
			if depth == 0 {
				return s[:i], true
			}
			depth--
		}
	}
	return "", false
}

// plainLiteral returns the text a pattern without metacharacters matches
// (escaped punctuation allowed).
func plainLiteral(s string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == '\\' && i+1 < len(s) && s[i+1] < utf8.RuneSelf && !isAlnum(s[i+1]):
			i++
			b.WriteByte(s[i])
		case strings.IndexByte(`\.[](){}*+?^$|`, ch) >= 0:
			return "", false
		default:
			b.WriteByte(ch)
		}
	}
	return b.String(), true
}

func isAlnum(b byte) bool {
	return b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// isRepeat returns the length of a {n}, {n,} or {n,m} quantifier at the
// start of s, or 0 when s does not start with one (PCRE then reads the
// brace as a literal, as Go does).
func isRepeat(s string) int {
	end := strings.IndexByte(s, '}')
	if end < 2 {
		return 0
	}
	lo, hi, _ := strings.Cut(s[1:end], ",")
	if lo == "" || strings.Trim(lo, "0123456789") != "" || strings.Trim(hi, "0123456789") != "" {
		return 0
	}
	return end + 1
}

// quantifier copies a quantifier of n bytes at c.i and a lazy '?' after
// it; a possessive '+' after it is dropped where that keeps the matches.
func (c *pcreConv) quantifier(n int) {
	q := c.src[c.i : c.i+n]
	atom := c.atom
	c.out.WriteString(q)
	c.i += n - 1
	c.atom = ""
	next := c.i + 1
	if next >= len(c.src) || (c.src[next] != '+' && c.src[next] != '?') {
		return
	}
	if c.src[next] == '?' {
		c.out.WriteByte('?')
		c.i++
		return
	}
	// A possessive quantifier.
	c.i++
	c.changed = true
	if strings.HasPrefix(q, "{") && !strings.Contains(q, ",") {
		return // {n}+ is {n}
	}
	if atom == "" || !c.possessiveSafe(atom, c.src[c.i+1:]) {
		c.err = fmt.Errorf("possessive quantifier %s+ has no RE2 equivalent here (only a one-character item followed by the end or by a character it cannot match is translated)", q)
	}
}

// possessiveSafe reports whether atom (one character or class, RE2
// syntax) repeated possessively matches as the greedy repetition does,
// given the pattern rest that follows: greedy repetition gives characters
// back only when what follows could then match one of them.
func (c *pcreConv) possessiveSafe(atom, rest string) bool {
	switch {
	case rest == "", strings.HasPrefix(rest, "$"), strings.HasPrefix(rest, `\z`), strings.HasPrefix(rest, `\Z`):
		return true
	case strings.HasPrefix(rest, "|"):
		return c.depth == 0
	}
	next, n := nextAtom(rest)
	if next == "" {
		return false
	}
	if after := rest[n:]; after != "" && (after[0] == '*' || after[0] == '?' || strings.HasPrefix(after, "{0")) {
		return false // the next item may match nothing: what follows it counts too
	}
	conv, _, err := toRE2(next, false)
	if err != nil {
		return false
	}
	a, ok1 := charSet(atom, c.ci)
	b, ok2 := charSet(conv, c.ci)
	return ok1 && ok2 && !overlaps(a, b)
}

// nextAtom returns the one-character item rest starts with and its
// length, or "" when rest starts with something else (a group, an anchor).
func nextAtom(rest string) (string, int) {
	switch rest[0] {
	case '\\':
		if len(rest) < 2 {
			return "", 0
		}
		_, n := utf8.DecodeRuneInString(rest[1:])
		return rest[:1+n], 1 + n
	case '[':
		i := 1
		if i < len(rest) && rest[i] == '^' {
			i++
		}
		for i++; i < len(rest); i++ {
			switch rest[i] {
			case '\\':
				i++
			case ']':
				return rest[:i+1], i + 1
			}
		}
		return "", 0
	case '(', ')', '|', '^', '$', '*', '+', '?', '{':
		return "", 0
	}
	_, n := utf8.DecodeRuneInString(rest)
	return rest[:n], n
}

// charSet returns the characters a one-character RE2 item matches, as
// sorted inclusive ranges.
func charSet(atom string, ci bool) ([]rune, bool) {
	flags := syntax.Perl
	if ci {
		flags |= syntax.FoldCase
	}
	re, err := syntax.Parse(atom, flags)
	if err != nil {
		return nil, false
	}
	switch re.Op {
	case syntax.OpLiteral:
		if len(re.Rune) != 1 {
			return nil, false
		}
		r := re.Rune[0]
		set := []rune{r, r}
		if re.Flags&syntax.FoldCase != 0 {
			for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
				set = append(set, f, f)
			}
		}
		return set, true
	case syntax.OpCharClass:
		return re.Rune, true
	case syntax.OpAnyCharNotNL:
		return []rune{0, '\n' - 1, '\n' + 1, unicode.MaxRune}, true
	case syntax.OpAnyChar:
		return []rune{0, unicode.MaxRune}, true
	}
	return nil, false
}

func overlaps(a, b []rune) bool {
	for i := 0; i+1 < len(a); i += 2 {
		for j := 0; j+1 < len(b); j += 2 {
			if a[i] <= b[j+1] && b[j] <= a[i+1] {
				return true
			}
		}
	}
	return false
}
