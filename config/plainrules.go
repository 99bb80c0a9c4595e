package config

import (
	"bytes"
	"strconv"
	"unicode/utf8"

	"github.com/BurntSushi/toml"
)

// Decoding [[rule]] tables is most of the time BurntSushi/toml takes on
// a rule set: its lexer hands each token over a channel and its metadata
// joins every key's path into a string, 7 us a rule, 80 ms of the 11,500
// reference rules' start-up. A rule table is almost always plain: a few
// `key = "string"`, `key = 'string'`, `key = 301` or `key = true` lines.
// decodeConfig reads those tables itself and gives the decoder the rest.
// It reads only what it can read exactly as the decoder does; anything
// else in any rule table (an inline table, an array, an escape other than
// \\ and \", a dotted or quoted key, a key twice, a date, a [rule.when]
// subtable) and every decoding error send the whole document through the
// decoder instead, so the result, errors included, is the decoder's
// (FuzzDecodeConfig compares the two).

// decodeConfig is toml.Decode of src into raw; headers are the offsets of
// src's top-level table headers (scanTOML). The MetaData returned lacks
// the keys of the rule tables read by hand, which are all known keys.
func decodeConfig(src []byte, headers []int, raw *rawConfig) (toml.MetaData, error) {
	rules, rest := plainRules(src, headers)
	if rules != nil {
		var fast rawConfig
		md, err := toml.Decode(string(rest), &fast)
		if err == nil && !definesRule(md) {
			fast.Rule = rules
			*raw = fast
			return md, nil
		}
	}
	return toml.Decode(string(src), raw)
}

// definesRule reports whether md has a key under rule: the rest of the
// document (a rule = [...] array, a [rule.when] table) adds to the rule
// tables, so they must be decoded together.
func definesRule(md toml.MetaData) bool {
	for _, k := range md.Keys() {
		if k[0] == "rule" {
			return true
		}
	}
	return false
}

// plainRules reads the [[rule]] tables of src when every one whose header
// is written `[[rule]]` is plain, and returns them with src less their
// lines (each emptied, so that lines keep their numbers); nil when there
// is none or one is not plain.
func plainRules(src []byte, headers []int) ([]rawRule, []byte) {
	rules := make([]rawRule, 0, len(headers))
	var spans [][2]int // the rule tables' [start, end) in src
	for i, h := range headers {
		start := lineStart(src, h)
		end := len(src)
		if i+1 < len(headers) {
			end = lineStart(src, headers[i+1])
		}
		if len(bytes.TrimLeft(src[start:h], " \t")) > 0 {
			return nil, nil // a header after other text on its line
		}
		body, ok := ruleHeader(src[h:end])
		if !ok {
			continue
		}
		r, ok := plainRule(body)
		if !ok {
			return nil, nil
		}
		rules = append(rules, r)
		spans = append(spans, [2]int{start, end})
	}
	if len(rules) == 0 {
		return nil, nil
	}
	rest := make([]byte, 0, len(src))
	at := 0
	for _, sp := range spans {
		rest = append(rest, src[at:sp[0]]...)
		for _, c := range src[sp[0]:sp[1]] {
			if c == '\n' {
				rest = append(rest, '\n')
			}
		}
		at = sp[1]
	}
	return rules, append(rest, src[at:]...)
}

// lineStart is the offset of the start of the line holding src[i].
func lineStart(src []byte, i int) int {
	return bytes.LastIndexByte(src[:i], '\n') + 1
}

// ruleHeader reports whether t (from a header's '[' to the next header's
// line) starts with the line `[[rule]]`, a comment allowed after it, and
// returns what follows that line.
func ruleHeader(t []byte) ([]byte, bool) {
	rest, ok := bytes.CutPrefix(t, []byte("[[rule]]"))
	if !ok {
		return nil, false
	}
	line, body := cutLine(rest)
	if !blankOrComment(line) {
		return nil, false
	}
	return body, true
}

// cutLine cuts the first line off b, without its "\n" or "\r\n" ending
// (a '\r' before no '\n' stays, for the caller to refuse).
func cutLine(b []byte) (line, rest []byte) {
	line, rest, found := bytes.Cut(b, []byte("\n"))
	if found {
		line = bytes.TrimSuffix(line, []byte("\r"))
	}
	return line, rest
}

// blankOrComment reports whether line (without its ending) holds only
// spaces, tabs and a comment.
func blankOrComment(line []byte) bool {
	line = bytes.TrimLeft(line, " \t")
	if len(line) == 0 {
		return true
	}
	return line[0] == '#' && plainText(line[1:])
}

// plainText reports whether s is valid UTF-8 without the control
// characters TOML refuses in comments and strings (all but tab).
func plainText(s []byte) bool {
	for _, c := range s {
		if c < 0x20 && c != '\t' || c == 0x7f {
			return false
		}
	}
	return utf8.Valid(s)
}

// plainRule reads the lines of one rule table's body, each blank, a
// comment, or a known key set to a plain value.
func plainRule(body []byte) (rawRule, bool) {
	var r rawRule
	for len(body) > 0 {
		var line []byte
		line, body = cutLine(body)
		if blankOrComment(line) {
			continue
		}
		key, value, ok := bytes.Cut(bytes.TrimLeft(line, " \t"), []byte("="))
		if !ok {
			return r, false
		}
		field := ruleField(&r, string(bytes.TrimRight(key, " \t")))
		if field == nil || *field != nil {
			return r, false // unknown, dotted, quoted, or set twice
		}
		v, ok := plainValue(bytes.TrimLeft(value, " \t"))
		if !ok {
			return r, false
		}
		*field = v
	}
	return r, true
}

// ruleField is the field of r that key sets, for the keys whose values
// a rule table holds as plain values; nil for any other.
func ruleField(r *rawRule, key string) *any {
	switch key {
	case "match":
		return &r.Match
	case "from":
		return &r.From
	case "to":
		return &r.To
	case "status":
		return &r.Status
	case "host":
		return &r.Host
	case "query":
		return &r.Query
	case "request_uri":
		return &r.RequestURI
	case "case_insensitive":
		return &r.CaseInsensitive
	case "trailing_slash":
		return &r.TrailingSlash
	case "query_string":
		return &r.QueryString
	case "path":
		return &r.Path
	case "mode":
		return &r.Mode
	case "fallback":
		return &r.Fallback
	}
	return nil
}

// plainValue reads a value and what may follow it on its line (spaces,
// a comment), as the decoder types it: a one-line basic string without
// escapes but \\ and \", a one-line literal string, a decimal integer
// without sign, underscores or leading zeros, true or false.
func plainValue(s []byte) (any, bool) {
	var v any
	var n int
	switch {
	case len(s) == 0:
		return nil, false
	case s[0] == '\'':
		end := bytes.IndexByte(s[1:], '\'')
		if end < 0 || !plainText(s[1:1+end]) {
			return nil, false
		}
		v, n = string(s[1:1+end]), end+2
	case s[0] == '"':
		str, k, ok := basicString(s)
		if !ok {
			return nil, false
		}
		v, n = str, k
	case bytes.HasPrefix(s, []byte("true")):
		v, n = true, 4
	case bytes.HasPrefix(s, []byte("false")):
		v, n = false, 5
	case s[0] >= '0' && s[0] <= '9':
		for n < len(s) && s[n] >= '0' && s[n] <= '9' {
			n++
		}
		if n > 18 || s[0] == '0' && n > 1 {
			return nil, false // leading zero; or near int64's end: the decoder decides
		}
		i, err := strconv.ParseInt(string(s[:n]), 10, 64)
		if err != nil {
			return nil, false
		}
		v = i
	default:
		return nil, false
	}
	after := s[n:]
	if len(after) > 0 && after[0] != ' ' && after[0] != '\t' && after[0] != '#' {
		return nil, false // 301x, "a"b, true1
	}
	if !blankOrComment(after) {
		return nil, false
	}
	return v, true
}

// basicString reads the "..." string at the start of s, with \\ and \"
// its only escapes, and returns it and its length in s.
func basicString(s []byte) (string, int, bool) {
	var b []byte
	plain := true // no escape: the string is s[1:i]
	for i := 1; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			if plain {
				b = s[1:i]
			}
			if !plainText(b) {
				return "", 0, false
			}
			return string(b), i + 1, true
		case '\\':
			if i+1 >= len(s) || s[i+1] != '\\' && s[i+1] != '"' {
				return "", 0, false
			}
			if plain {
				b, plain = append([]byte(nil), s[1:i]...), false
			}
			b = append(b, s[i+1])
			i++
		default:
			if !plain {
				b = append(b, c)
			}
		}
	}
	return "", 0, false
}
