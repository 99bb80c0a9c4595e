package rewrite

import "strings"

// A map's regex keys are tried in order, as nginx tries them; a map of
// thousands (a site's moved pages, each "~^/old/page$") would cost a
// request thousands of regex runs. Most such keys are anchored and begin
// with a literal ("^/old/page"): those are filed by the first bytes of
// that literal, and a lookup tries only the keys filed under a prefix of
// the looked-up value, with the keys that have no such literal, merged
// back into file order. What matches, and which key wins, is what the
// plain walk gives (FuzzMapIndex).

// mapIndexBytes is how many bytes of a key's literal start file it.
const mapIndexBytes = 8

// minIndexedRegexes: a map with fewer regex keys is walked in order.
const minIndexedRegexes = 32

// regexIndex files a map's regex keys by their literal starts: sensitive
// ones against the value as it is, case-insensitive ones (~*) against
// the value in lower case. rest are the keys with no literal start. Every
// list holds positions in the map's regexes, ascending.
type regexIndex struct {
	sensitive, folded map[string][]int32
	rest              []int32
}

// buildRegexIndex files m's regex keys, given as written (without "~"
// or "~*"), when there are enough of them to pay.
func buildRegexIndex(exprs []string, ci []bool) *regexIndex {
	if len(exprs) < minIndexedRegexes {
		return nil
	}
	x := &regexIndex{sensitive: map[string][]int32{}, folded: map[string][]int32{}}
	for i, e := range exprs {
		lit := literalStart(e)
		if len(lit) > mapIndexBytes {
			lit = lit[:mapIndexBytes]
		}
		switch {
		case lit == "":
			x.rest = append(x.rest, int32(i))
		case ci[i]:
			lit = strings.ToLower(lit)
			x.folded[lit] = append(x.folded[lit], int32(i))
		default:
			x.sensitive[lit] = append(x.sensitive[lit], int32(i))
		}
	}
	return x
}

// literalStart is the literal text every match of the regex expr starts
// with, "" when it may start otherwise: expr anchored by "^", then
// ordinary bytes or escaped punctuation, up to the first other token; a
// byte a quantifier follows is not part of it (it may be absent or
// repeated), and an alternation anywhere makes it "" (it may not apply).
func literalStart(expr string) string {
	if !strings.HasPrefix(expr, "^") || strings.Contains(expr, "|") {
		return ""
	}
	var lit []byte
	for i := 1; i < len(expr); i++ {
		c := expr[i]
		switch {
		case c == '\\' && i+1 < len(expr) && isPunct(expr[i+1]):
			lit = append(lit, expr[i+1])
			i++
		case strings.IndexByte(`\.+*?()[]{}^$`, c) >= 0:
			if (c == '?' || c == '*' || c == '{') && len(lit) > 0 {
				lit = lit[:len(lit)-1]
			}
			return string(lit)
		default:
			lit = append(lit, c)
		}
		if c >= 0x80 {
			return string(lit[:len(lit)-1]) // a multi-byte character: a quantifier could follow it
		}
	}
	return string(lit)
}

// MapKeyLiteral is the literal start a map's regex key (as written,
// without "~" or "~*") is filed under ("" for none): a lookup tries the
// keys filed under a prefix of its value and those filed under none, so
// an importer can tell a map the index narrows from one it cannot.
func MapKeyLiteral(expr string) string { return literalStart(expr) }

// isPunct reports whether an escaped c stands for c itself.
func isPunct(c byte) bool {
	return c < 0x80 && !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9')
}

// candidates calls try on the positions of the keys that may match key
// (lower the same in lower case), in ascending order, until try reports
// true. It allocates nothing.
func (x *regexIndex) candidates(key, lower []byte, try func(int32) bool) {
	var lists [2*mapIndexBytes + 1][]int32
	n := 0
	for l := 1; l <= mapIndexBytes && l <= len(key); l++ {
		if s := x.sensitive[string(key[:l])]; len(s) > 0 {
			lists[n] = s
			n++
		}
		if s := x.folded[string(lower[:l])]; len(s) > 0 {
			lists[n] = s
			n++
		}
	}
	if len(x.rest) > 0 {
		lists[n] = x.rest
		n++
	}
	for {
		best := -1
		for i := range n {
			if len(lists[i]) > 0 && (best < 0 || lists[i][0] < lists[best][0]) {
				best = i
			}
		}
		if best < 0 {
			return
		}
		p := lists[best][0]
		lists[best] = lists[best][1:]
		if try(p) {
			return
		}
	}
}
