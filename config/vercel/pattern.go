package vercel

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// token is a piece of a source pattern: literal text, or a parameter
// (name "" with num set for an unnamed one) with its prefix, suffix,
// pattern and modifier ("", "?", "*", "+"), as path-to-regexp v6 parses
// them (https://github.com/pillarjs/path-to-regexp/tree/v6.2.1, parse).
type token struct {
	text                    string
	param                   bool
	name                    string
	num                     int
	prefix, suffix, pattern string
	modifier                string
}

// defaultPattern is path-to-regexp's pattern of a parameter with none:
// one segment ([^\/#\?]+?, the laziness moot once anchored).
const defaultPattern = `[^/#?]+`

type lexTok struct {
	kind  byte // c char, e escaped, n name, p pattern, m modifier, { }, $ end
	value string
}

// lex is path-to-regexp's lexer.
func lex(s string) ([]lexTok, error) {
	var out []lexTok
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '*' || c == '+' || c == '?':
			out = append(out, lexTok{'m', s[i : i+1]})
			i++
		case c == '\\':
			if i+1 == len(s) {
				return nil, fmt.Errorf("a '\\' ends the pattern")
			}
			out = append(out, lexTok{'e', s[i+1 : i+2]})
			i += 2
		case c == '{' || c == '}':
			out = append(out, lexTok{c, s[i : i+1]})
			i++
		case c == ':':
			j := i + 1
			for j < len(s) && (s[j] == '_' || s[j] >= '0' && s[j] <= '9' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z') {
				j++
			}
			if j == i+1 {
				return nil, fmt.Errorf("a ':' at %d has no parameter name after it", i)
			}
			out = append(out, lexTok{'n', s[i+1 : j]})
			i = j
		case c == '(':
			depth, j := 1, i+1
			if j < len(s) && s[j] == '?' {
				return nil, fmt.Errorf("a pattern cannot start with '?' at %d", j)
			}
			for ; j < len(s) && depth > 0; j++ {
				switch s[j] {
				case '\\':
					j++
				case ')':
					depth--
				case '(':
					depth++
					if j+1 >= len(s) || s[j+1] != '?' {
						return nil, fmt.Errorf("a capturing group inside the pattern at %d; use (?:...)", j)
					}
				}
			}
			if depth > 0 {
				return nil, fmt.Errorf("the '(' at %d is never closed", i)
			}
			if j-1 == i+1 {
				return nil, fmt.Errorf("the pattern at %d is empty", i)
			}
			out = append(out, lexTok{'p', s[i+1 : j-1]})
			i = j
		default:
			out = append(out, lexTok{'c', s[i : i+1]})
			i++
		}
	}
	return append(out, lexTok{'$', ""}), nil
}

// parse is path-to-regexp's parse with Vercel's options (delimiter "/",
// prefixes "./").
//
// It is long because it follows path-to-regexp's parse (v6, which
// Vercel uses) statement for statement, closures included, so that the
// two read side by side; a difference in what they accept is a
// difference in which rules Vercel matches.
func parse(s string) ([]token, error) {
	lt, err := lex(s)
	if err != nil {
		return nil, err
	}
	var out []token
	i, key := 0, 0
	try := func(kind byte) (string, bool) {
		if lt[i].kind == kind {
			i++
			return lt[i-1].value, true
		}
		return "", false
	}
	text := func() string {
		var b strings.Builder
		for {
			v, ok := try('c')
			if !ok {
				v, ok = try('e')
			}
			if !ok {
				return b.String()
			}
			b.WriteString(v)
		}
	}
	path := ""
	for i < len(lt) {
		char, hasChar := try('c')
		name, hasName := try('n')
		pattern, hasPattern := try('p')
		if hasName || hasPattern {
			prefix := char
			if prefix != "." && prefix != "/" {
				path += prefix
				prefix = ""
			}
			if path != "" {
				out = append(out, token{text: path})
				path = ""
			}
			t := token{param: true, name: name, prefix: prefix, pattern: pattern}
			if !hasName {
				t.num = key
				key++
			}
			if !hasPattern {
				t.pattern = defaultPattern
			}
			t.modifier, _ = try('m')
			out = append(out, t)
			continue
		}
		if hasChar {
			path += char
			continue
		}
		if v, ok := try('e'); ok {
			path += v
			continue
		}
		if path != "" {
			out = append(out, token{text: path})
			path = ""
		}
		if _, ok := try('{'); ok {
			t := token{param: true, prefix: text()}
			t.name, hasName = try('n')
			t.pattern, hasPattern = try('p')
			t.suffix = text()
			if _, ok := try('}'); !ok {
				return nil, fmt.Errorf("a '{' group is not closed by '}'")
			}
			if hasName && !hasPattern {
				t.pattern = defaultPattern
			}
			if !hasName && hasPattern {
				t.num = key
				key++
			}
			t.modifier, _ = try('m')
			out = append(out, t)
			continue
		}
		if _, ok := try('$'); !ok {
			return nil, fmt.Errorf("unexpected %q: a '*', '+' or '?' must follow a parameter, and '(' ')' '{' '}' need a '\\' to be literal", lt[i].value)
		}
	}
	return out, nil
}

// regex is path-to-regexp's tokensToRegexp with Vercel's options (strict,
// sensitive, end): one capturing group per parameter, in order, named
// after a named parameter.
func regex(tokens []token) string {
	var b strings.Builder
	b.WriteString("^")
	for _, t := range tokens {
		if !t.param {
			b.WriteString(regexp.QuoteMeta(t.text))
			continue
		}
		prefix, suffix := regexp.QuoteMeta(t.prefix), regexp.QuoteMeta(t.suffix)
		open := "("
		if t.name != "" {
			open = "(?P<" + t.name + ">"
		}
		switch {
		case t.pattern == "":
			fmt.Fprintf(&b, "(?:%s%s)%s", prefix, suffix, t.modifier)
		case (prefix != "" || suffix != "") && (t.modifier == "+" || t.modifier == "*"):
			mod := map[string]string{"*": "?", "+": ""}[t.modifier]
			fmt.Fprintf(&b, "(?:%s%s(?:%s)(?:%s%s(?:%s))*)%s)%s", prefix, open, t.pattern, suffix, prefix, t.pattern, suffix, mod)
		case prefix != "" || suffix != "":
			fmt.Fprintf(&b, "(?:%s%s%s)%s)%s", prefix, open, t.pattern, suffix, t.modifier)
		case t.modifier == "+" || t.modifier == "*":
			fmt.Fprintf(&b, "%s(?:%s)%s)", open, t.pattern, t.modifier)
		default:
			fmt.Fprintf(&b, "%s%s)%s", open, t.pattern, t.modifier)
		}
	}
	b.WriteString("$")
	return b.String()
}

// literal returns the path of a pattern with no parameter.
func literal(tokens []token) (string, bool) {
	switch {
	case len(tokens) == 0:
		return "", false
	case len(tokens) == 1 && !tokens[0].param:
		return tokens[0].text, true
	}
	return "", false
}

// groups returns the group number of each parameter: names and the
// numbers of unnamed ones, as a destination refers to them.
func groups(tokens []token) map[string]int {
	g := map[string]int{}
	n := 0
	for _, t := range tokens {
		if !t.param || t.pattern == "" {
			continue
		}
		n++
		if t.name != "" {
			g[t.name] = n
		} else {
			g[strconv.Itoa(t.num)] = n
		}
	}
	return g
}

// samples returns paths for the order check: each parameter filled with
// a value its pattern takes (two segments for * and +), and with every
// optional one left out; only those the whole pattern matches are kept.
func samples(tokens []token, re *regexp.Regexp) []string {
	var out []string
	for _, skip := range []bool{false, true} {
		var b strings.Builder
		for k, t := range tokens {
			switch {
			case !t.param:
				b.WriteString(t.text)
			case skip && (t.modifier == "?" || t.modifier == "*"):
			case t.modifier == "*" || t.modifier == "+":
				v := fill(t.pattern, k)
				b.WriteString(t.prefix + v + t.suffix + t.prefix + v + t.suffix)
			default:
				b.WriteString(t.prefix + fill(t.pattern, k) + t.suffix)
			}
		}
		if s := b.String(); re.MatchString(s) && (len(out) == 0 || out[0] != s) {
			out = append(out, s)
		}
	}
	return out
}

// fill returns a value that pattern takes whole, if one of a few does.
func fill(pattern string, k int) string {
	re, err := regexp.Compile("^(?:" + pattern + ")$")
	for _, v := range []string{fmt.Sprintf("x%d", k), fmt.Sprint(k + 1), "x", "x/y", "x.html", ""} {
		if err == nil && re.MatchString(v) {
			return v
		}
	}
	return fmt.Sprintf("x%d", k)
}
