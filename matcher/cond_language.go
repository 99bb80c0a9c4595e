package matcher

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/redirectd/redirectd/internal/ascii"
)

// The when.language condition: the client's most preferred
// Accept-Language tag (highest q, first among equals, q=0 never) falls in
// one of the ranges listed by RFC 4647 basic filtering ("de" and "de-*"
// take "de" and "de-AT"; "*" any). The list is one condition. Answers
// carry Vary: Accept-Language.
var languageType = languageList.condType(checksOf[*languageCond], languageUnit{languageList})

var languageList = listUnit{key: "language", tag: "l", check: checkLanguage, form: languageRange,
	list: func(w *When) *[]string { return &w.Language },
	cond: func(ranges []string) condCheck { return &languageCond{ranges} }}

type languageUnit struct{ listUnit }

// languageCond is a compiled when.language: the ranges in lower case,
// "-*" cut off; "*" for any.
type languageCond struct{ ranges []string }

var acceptLanguage = []byte("accept-language")

func checkLanguage(l string) error {
	if !validRange(languageRange(l)) {
		return fmt.Errorf("%q is not a language range; write a tag such as \"de\", \"de-AT\", \"de-*\" or \"*\"", l)
	}
	return nil
}

// languageRange is the compiled form of a range as written.
func languageRange(l string) string { return strings.TrimSuffix(strings.ToLower(l), "-*") }

func (c *languageCond) holds(m *Match) bool {
	return langHolds(c.ranges, m.Req.Header(acceptLanguage))
}

func (languageUnit) got(_ *When, _ int, m *Match) string {
	if tag, ok := PreferredLanguage(m.Req.Header(acceptLanguage)); ok {
		return "the request prefers " + strconv.Quote(string(tag))
	}
	return "the request has no Accept-Language preference"
}

func (languageUnit) vary(*When) []string { return []string{"Accept-Language"} }

// validRange reports whether r (lower case, "-*" cut) is "*" or
// alphanumeric subtags of 1 to 8 characters joined by '-', the first
// alphabetic (RFC 4647 section 2.1).
func validRange(r string) bool {
	if r == "*" {
		return true
	}
	for i, sub := range strings.Split(r, "-") {
		if len(sub) < 1 || len(sub) > 8 {
			return false
		}
		for j := 0; j < len(sub); j++ {
			c := sub[j]
			if !(c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
				return false
			}
		}
	}
	return true
}

// langHolds reports whether the top preference of an Accept-Language
// value falls in one of ranges.
func langHolds(ranges []string, accept []byte) bool {
	tag, ok := PreferredLanguage(accept)
	if !ok {
		return false
	}
	for _, r := range ranges {
		if r == "*" || hasPrefixFold(tag, r) && (len(tag) == len(r) || tag[len(r)] == '-') {
			return true
		}
	}
	return false
}

func hasPrefixFold(s []byte, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		if ascii.Lower(s[i]) != prefix[i] {
			return false
		}
	}
	return true
}

// PreferredLanguage returns the tag of an Accept-Language value (RFC 9110
// section 12.5.4) with the highest weight, the first among equals, in
// place; ok is false when there is none with a weight above 0, or the
// top one is "*". Malformed elements are skipped, as clients send junk.
func PreferredLanguage(v []byte) (tag []byte, ok bool) {
	best := 0
	for len(v) > 0 {
		elem := v
		if i := bytes.IndexByte(v, ','); i >= 0 {
			elem, v = v[:i], v[i+1:]
		} else {
			v = nil
		}
		t, params := elem, []byte(nil)
		if i := bytes.IndexByte(elem, ';'); i >= 0 {
			t, params = elem[:i], elem[i+1:]
		}
		t = bytes.Trim(t, " \t")
		if len(t) == 0 || !validTag(t) {
			continue
		}
		q, good := parseQ(params)
		if !good || q <= best {
			continue
		}
		best, tag = q, t
	}
	if best == 0 || len(tag) == 1 && tag[0] == '*' {
		return nil, false
	}
	return tag, true
}

// validTag accepts "*" or subtags of 1 to 8 letters and digits joined by '-'.
func validTag(t []byte) bool {
	if len(t) == 1 && t[0] == '*' {
		return true
	}
	n := 0
	for i := 0; i <= len(t); i++ {
		if i == len(t) || t[i] == '-' {
			if n < 1 || n > 8 {
				return false
			}
			n = 0
			continue
		}
		c := t[i] | 0x20
		if !(c >= 'a' && c <= 'z' || t[i] >= '0' && t[i] <= '9') {
			return false
		}
		n++
	}
	return true
}

// parseQ reads the weight from an element's parameters as thousandths:
// 1000 when absent; good is false for a malformed weight (RFC 9110
// section 12.4.2: "0" to "1" with up to three decimals).
func parseQ(params []byte) (q int, good bool) {
	q = 1000
	for len(params) > 0 {
		p := params
		if i := bytes.IndexByte(params, ';'); i >= 0 {
			p, params = params[:i], params[i+1:]
		} else {
			params = nil
		}
		p = bytes.Trim(p, " \t")
		if len(p) < 2 || p[0]|0x20 != 'q' || p[1] != '=' {
			continue
		}
		w := p[2:]
		if len(w) == 0 || len(w) > 5 || w[0] != '0' && w[0] != '1' {
			return 0, false
		}
		q = int(w[0]-'0') * 1000
		if len(w) > 1 {
			if w[1] != '.' {
				return 0, false
			}
			scale := 100
			for _, c := range w[2:] {
				if c < '0' || c > '9' {
					return 0, false
				}
				q += int(c-'0') * scale
				scale /= 10
			}
		}
		if q > 1000 {
			return 0, false
		}
	}
	return q, true
}
