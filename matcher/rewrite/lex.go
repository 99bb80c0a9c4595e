package rewrite

import (
	"fmt"
	"strings"
)

// token is one word of the step text: a bare or quoted word, or one of
// the punctuation bytes ';', '{' and '}' (punct set, word holding it).
type token struct {
	word   string
	punct  bool
	quoted bool
	line   int
}

// lex splits src as nginx's ngx_conf_read_token does: words end at
// white space, ';', '{' and '}' unless quoted; '#' starts a comment at a
// word's start; inside quotes a backslash escapes '"', '\” and '\\'
// (dropped), "\n", "\r" and "\t" are control bytes, and any other
// backslash stays. Lines count from firstLine.
func lex(src string, firstLine int) ([]token, error) {
	var toks []token
	line := firstLine
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\n':
			line++
			i++
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case c == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == ';' || c == '{' || c == '}':
			toks = append(toks, token{word: src[i : i+1], punct: true, line: line})
			i++
		case c == '"' || c == '\'':
			w, n, err := lexQuoted(src[i:])
			if err != nil {
				return nil, errAt(line, "%v", err)
			}
			toks = append(toks, token{word: w, quoted: true, line: line})
			line += strings.Count(src[i:i+n], "\n")
			i += n
		default:
			j := i
			for j < len(src) && !strings.ContainsRune(" \t\r\n;{}", rune(src[j])) {
				j++
			}
			toks = append(toks, token{word: src[i:j], line: line})
			i = j
		}
	}
	return toks, nil
}

// lexQuoted reads the quoted word at the start of s, returning its value
// and the bytes it took, quotes included.
func lexQuoted(s string) (string, int, error) {
	q := s[0]
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == q:
			return b.String(), i + 1, nil
		case c == '\\' && i+1 < len(s):
			i++
			switch s[i] {
			case '"', '\'', '\\':
				b.WriteByte(s[i])
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte('\\')
				b.WriteByte(s[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, fmt.Errorf("unterminated %c quote", q)
}
