package nginx

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"

	"github.com/redirectd/redirectd/matcher"
)

// nginxRegex is a PCRE regex from the nginx config, read as Go (RE2) syntax.
type nginxRegex struct {
	src  string // RE2 syntax: as written in nginx, or toRE2's rewrite
	pcre string // as written in nginx
	ci   bool   // ~* (or a case-insensitive rewrite: nginx has none)
	re   pathRegex
	// literal is the text every match starts with when the regex is
	// anchored with ^, else "".
	literal string
	// prefixOnly: the regex is ^literal, perhaps followed by .* or (.*),
	// and $ after them, so it matches exactly the paths starting with
	// literal.
	prefixOnly bool
	anchored   bool
}

// pathRegex is what the import runs of a regex: one RE2 accepts as the
// location model runs it (patternRegex: PCRE's reading where RE2's
// differs), a PCRE one (pcreRegex) for what RE2 cannot express, or a
// *regexp.Regexp of toRE2's rewrite when matcher refuses it as written.
type pathRegex interface {
	FindStringSubmatch(s string) []string
	SubexpNames() []string
	MatchString(s string) bool
	String() string
}

// compileRegex reads an nginx (PCRE) regex as Go syntax, through toRE2;
// one RE2 cannot express (lookarounds, backreferences, atomic groups) is
// kept as written, which the matcher runs on matcher/pcre.
func compileRegex(src string, ci bool) (*nginxRegex, error) {
	pcre := src
	src, _, err := toRE2(pcre, ci)
	if err != nil {
		return compilePCRE(pcre, ci, err)
	}
	full := src
	if ci {
		full = "(?i)" + src
	}
	re, err := regexp.Compile(full)
	if err != nil {
		return nil, fmt.Errorf("regex %q is not RE2 syntax, which redirectd uses (%w)", pcre, err)
	}
	x := &nginxRegex{src: src, pcre: pcre, ci: ci, re: re}
	written := pcre
	if ci {
		written = "(?i)" + pcre // as package rewrite compiles it
	}
	if p, err := matcher.CompilePattern(written); err == nil {
		x.re = patternRegex{p, full}
	}
	tree, err := syntax.Parse(full, syntax.Perl)
	if err != nil {
		return nil, err
	}
	tree = tree.Simplify()
	x.literal, x.prefixOnly, x.anchored = literalOf(tree, ci)
	return x, nil
}

// literalOf reads the literal an anchored tree starts with (lower-cased
// when it folds case) and whether nothing else constrains the match. In a
// regex that keeps case (ci false), the literal ends where a piece that
// folds case begins: RE2 reads [Cc] as a case-folded c, so ^/[Cc]ompet
// starts with "/", not "/compet", which "/Compet" does not start with.
func literalOf(re *syntax.Regexp, ci bool) (lit string, prefixOnly, anchored bool) {
	subs := []*syntax.Regexp{re}
	if re.Op == syntax.OpConcat {
		subs = re.Sub
	}
	if len(subs) == 0 || subs[0].Op != syntax.OpBeginText {
		return "", false, false
	}
	var b strings.Builder
	i := 1
	for ; i < len(subs) && subs[i].Op == syntax.OpLiteral; i++ {
		s := string(subs[i].Rune)
		if subs[i].Flags&syntax.FoldCase != 0 {
			if !ci {
				break
			}
			s = strings.ToLower(s)
		}
		b.WriteString(s)
	}
	rest := subs[i:]
	// .*$ and (.*)$ end where the path ends, which holds no raw newline.
	prefixOnly = len(rest) == 0 || len(rest) == 1 && isAnyString(rest[0]) ||
		len(rest) == 2 && isAnyString(rest[0]) && rest[1].Op == syntax.OpEndText
	return b.String(), prefixOnly, true
}

// isAnyString reports whether re is .* or (.*) (with s or not).
func isAnyString(re *syntax.Regexp) bool {
	if re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	return re.Op == syntax.OpStar && (re.Sub[0].Op == syntax.OpAnyChar || re.Sub[0].Op == syntax.OpAnyCharNotNL)
}

// isMatchAll reports whether a regex matches every path: "^", "^/",
// "^(.*)$" and the like.
func isMatchAll(r *nginxRegex) bool {
	if !r.anchored {
		return r.re.MatchString("") && r.re.MatchString("/") && strings.Trim(r.src, "()^$.*") == ""
	}
	if r.src == "^(.*)$" || r.src == "^.*$" || r.src == "^/(.*)$" || r.src == "^/.*$" {
		return true // every path but one holding a newline (%0A)
	}
	return r.prefixOnly && (r.literal == "" || r.literal == "/")
}

// sample returns a string re matches, built from its syntax tree (the
// first choice of every alternative, one repetition of +), or "" when the
// result does not match after all.
func (r *nginxRegex) sample() string {
	tree, err := syntax.Parse(r.re.String(), syntax.Perl)
	if err != nil {
		return ""
	}
	var b strings.Builder
	writeSample(&b, tree.Simplify())
	s := b.String()
	if !strings.HasPrefix(s, "/") {
		s = "/" + s
	}
	if !r.re.MatchString(s) {
		return ""
	}
	return s
}

func writeSample(b *strings.Builder, re *syntax.Regexp) {
	switch re.Op {
	case syntax.OpLiteral:
		b.WriteString(string(re.Rune))
	case syntax.OpCharClass:
		if len(re.Rune) > 0 {
			c := re.Rune[0]
			// Prefer a letter or digit within the class, as paths hold.
			for i := 0; i+1 < len(re.Rune); i += 2 {
				for _, want := range []rune{'a', '0', 'A'} {
					if re.Rune[i] <= want && want <= re.Rune[i+1] {
						c = want
					}
				}
			}
			if unicode.IsPrint(c) && c < 0x80 && c != ' ' {
				b.WriteRune(c)
			} else {
				b.WriteByte('x')
			}
		}
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte('x')
	case syntax.OpCapture, syntax.OpPlus:
		writeSample(b, re.Sub[0])
	case syntax.OpRepeat:
		for i := 0; i < re.Min; i++ {
			writeSample(b, re.Sub[0])
		}
	case syntax.OpConcat:
		for _, s := range re.Sub {
			writeSample(b, s)
		}
	case syntax.OpAlternate:
		writeSample(b, re.Sub[0])
	}
}
