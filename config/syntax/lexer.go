// Package syntax splits nginx configuration text into words and the
// punctuation ; { }, exactly as nginx's own reader does
// (ngx_conf_read_token in src/core/ngx_conf_file.c). Both readers of nginx
// syntax use it: the [[map]] file reader in package config and the
// importer's parser in package nginx, so that they agree on every escape.
//
// The rules, as nginx has them:
//
//   - Words are separated by spaces, tabs, CR and LF. An unquoted word ends
//     at white space, ';' or '{' ('{' right after '$' is part of the word,
//     as in "${uri}"); '}', quotes and '#' inside a word are ordinary
//     bytes, so `a}` is one word.
//   - A word starting with " or ' runs to the same quote, across lines;
//     it must be followed by white space, ';', '{', ')' or the end.
//   - '#' where a word would start begins a comment to the end of the line.
//   - A backslash, quoted or not, makes the next byte part of the word
//     (so `a\ b` and `a\;b` are single words). When the word is read,
//     \" \' and \\ become the character, \t \r \n become tab, CR and LF,
//     and any other backslash is kept with the byte after it, so that
//     `"~^/GPT-3\).*$"` reaches the regex as `^/GPT-3\).*$`.
//
// A word without a backslash is a substring of the source: reading a
// million-line map allocates nothing per word.
package syntax

import (
	"fmt"
	"strings"
)

// Kind is what a Token is.
type Kind uint8

const (
	// Word is a word; its Text has escapes resolved and no quotes.
	Word Kind = iota
	// Semicolon ends a directive (or a map entry).
	Semicolon
	// Open is '{', which starts a block.
	Open
	// Close is '}' where a word would start: the end of a block.
	Close
	// EOF is the end of the input.
	EOF
)

// Token is one word or punctuation mark.
type Token struct {
	Kind Kind
	// Text is a Word's text: a substring of the source unless the word
	// held a backslash.
	Text string
	// Line is the line the token starts on, from 1.
	Line int
	// Quoted tells a word written in quotes from a bare one ("" is the
	// only way to write an empty word).
	Quoted bool
}

// Error is a syntax error, on the line where nginx would report it.
type Error struct {
	Line int
	Msg  string
	// Fatal is set when nothing after the error can be read as nginx
	// would (a quote not closed). Otherwise Next goes on from the byte
	// that caused it, for a reader that leaves bad entries out; nginx
	// itself stops at any error.
	Fatal bool
}

func (e *Error) Error() string { return e.Msg }

// Lexer reads tokens from a source text; the zero Lexer is not ready, use
// New.
type Lexer struct {
	src  string
	pos  int
	line int
}

// New returns a Lexer of src, starting on line 1. The tokens' texts alias
// src.
func New(src string) *Lexer { return &Lexer{src: src, line: 1} }

// NewAt is New for a src that starts on line line of its file (a piece
// of a map file read in pieces): tokens and errors, and the lines errors
// name in their messages, count from there.
func NewAt(src string, line int) *Lexer { return &Lexer{src: src, line: line} }

// Line is the line the Lexer has reached.
func (l *Lexer) Line() int { return l.line }

// Offset is the byte of the source the Lexer has reached: after the last
// token read, such as a ';'.
func (l *Lexer) Offset() int { return l.pos }

// Next returns the next token, or an *Error. After a Fatal error it
// returns EOF.
func (l *Lexer) Next() (Token, error) {
	for l.pos < len(l.src) {
		switch c := l.src[l.pos]; c {
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
			return Token{Kind: Semicolon, Line: l.line}, nil
		case '{':
			l.pos++
			return Token{Kind: Open, Line: l.line}, nil
		case '}':
			l.pos++
			return Token{Kind: Close, Line: l.line}, nil
		case '"', '\'':
			return l.quoted(c)
		default:
			// An unquoted word. It is read here, and as runs of plain
			// bytes (see special), because a map file is mostly such
			// words: reading BenchmarkLoadMap's file took 1.5x as long
			// with a switch per byte in a function of its own.
			src, start, i, esc, line := l.src, l.pos, l.pos, false, l.line
			for {
				for i < len(src) && !special[src[i]] {
					i++
				}
				if i == len(src) {
					break
				}
				if c := src[i]; c == '\\' {
					esc = true
					if i+1 < len(src) && src[i+1] == '\n' {
						l.line++
					}
					i = min(i+2, len(src))
				} else if c == '$' {
					// nginx keeps every '{' straight after a '$' in the word.
					for i++; i < len(src) && src[i] == '{'; i++ {
					}
				} else {
					break
				}
			}
			l.pos = i
			if esc {
				return Token{Kind: Word, Text: Unescape(src[start:i]), Line: line}, nil
			}
			return Token{Kind: Word, Text: src[start:i], Line: line}, nil
		}
	}
	return Token{Kind: EOF, Line: l.line}, nil
}

// Pair reads what Next would read as two unquoted words without
// escapes and a ';' (`/a /b;`, the common map entry), after any white
// space, and returns the words and the line of the first. Anything else
// (a quote, a comment, an escape, a '$', a brace, a word or the ';' on a
// later line, the end of the source) leaves the Lexer as it was, with ok
// false, for Next to read. One call in place of three to Next: reading a
// million-entry map went from 7 % of the CPU to its first answer to
// about 3 % of it.
func (l *Lexer) Pair() (a, b string, line int, ok bool) {
	src, i, line := l.src, l.pos, l.line
	for i < len(src) && pairSpace[src[i]] {
		if src[i] == '\n' {
			line++
		}
		i++
	}
	if i == len(src) || pairNotFirst[src[i]] {
		return "", "", 0, false
	}
	start := i
	for i < len(src) && !special[src[i]] {
		i++
	}
	if i == len(src) || src[i] != ' ' && src[i] != '\t' {
		return "", "", 0, false
	}
	a = src[start:i]
	for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	if i == len(src) || pairNotFirst[src[i]] {
		return "", "", 0, false
	}
	start = i
	for i < len(src) && !special[src[i]] {
		i++
	}
	b = src[start:i]
	for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	if i == len(src) || src[i] != ';' {
		return "", "", 0, false
	}
	l.pos, l.line = i+1, line
	return a, b, line, true
}

// pairSpace is the white space Pair skips before an entry, and
// pairNotFirst the bytes it leaves to Next at the start of a word: those
// that start no unquoted word (quotes, '#', braces, ';', white space) and
// those that special marks.
var pairSpace = [256]bool{' ': true, '\t': true, '\r': true, '\n': true}

var pairNotFirst = func() (t [256]bool) {
	t = special
	for _, c := range "\"'#{};" {
		t[c] = true
	}
	return t
}()

// special marks the bytes an unquoted word must look at: those that may
// end it, the backslash and the '$' of "${".
var special = [256]bool{' ': true, '\t': true, '\r': true, '\n': true, ';': true, '{': true, '\\': true, '$': true}

// quoted reads a word in quotes, which may span lines. It looks for the
// closing quote with strings.IndexByte, as a hand-written map quotes
// every word.
func (l *Lexer) quoted(q byte) (Token, error) {
	src, line, start := l.src, l.line, l.pos+1
	i, esc := start, false
	for {
		j := strings.IndexByte(src[i:], q)
		if j < 0 {
			l.pos = len(src)
			return Token{}, &Error{Line: line, Msg: fmt.Sprintf("quoted word not closed: no %c after the one on this line", q), Fatal: true}
		}
		k := strings.IndexByte(src[i:i+j], '\\')
		if k < 0 {
			i += j
			break
		}
		// The byte after a backslash never closes the word.
		esc = true
		if i += k + 2; i >= len(src) {
			l.pos = len(src)
			return Token{}, &Error{Line: line, Msg: fmt.Sprintf("quoted word not closed: no %c after the one on this line", q), Fatal: true}
		}
	}
	text := src[start:i]
	l.line += strings.Count(text, "\n")
	l.pos = i + 1
	if esc {
		text = Unescape(text)
	}
	if l.pos < len(src) && !afterQuote[src[l.pos]] {
		msg := fmt.Sprintf("unexpected %q after a quoted word; put a space after the closing quote", src[l.pos])
		if l.line != line {
			msg += fmt.Sprintf(" (the word was opened on line %d)", line)
		}
		return Token{}, &Error{Line: l.line, Msg: msg}
	}
	return Token{Kind: Word, Text: text, Line: line, Quoted: true}, nil
}

// afterQuote marks the bytes that may follow a closing quote: nginx takes
// ')' too, for `if ($a != "")`, and reads it as a word of its own.
var afterQuote = [256]bool{' ': true, '\t': true, '\r': true, '\n': true, ';': true, '{': true, ')': true}

// Unescape resolves backslash escapes as nginx's reader does, quoted or
// not: \" \' \\ become the character, \t \r \n tab, CR and LF, and any
// other backslash is kept with the byte after it (`\d` stays `\d`). The
// pairs are taken from the left, so `\\d` is `\d`.
func Unescape(s string) string {
	i := strings.IndexByte(s, '\\')
	if i < 0 {
		return s
	}
	b := make([]byte, 0, len(s))
	b = append(b, s[:i]...)
	for ; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b = append(b, c)
			continue
		}
		switch e := s[i+1]; e {
		case '"', '\'', '\\':
			b = append(b, e)
			i++
		case 't':
			b = append(b, '\t')
			i++
		case 'r':
			b = append(b, '\r')
			i++
		case 'n':
			b = append(b, '\n')
			i++
		default:
			b = append(b, c, e)
			i++
		}
	}
	return string(b)
}
