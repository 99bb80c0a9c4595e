package apache

import (
	"fmt"
	"strconv"
	"strings"
)

// maxIntDigits is how many significant digits the regex of an integer
// comparison reads: up to 999,999,999 Apache's atoi is exact; a longer
// number wraps (strtol's long cut to int), which the regex does not
// follow: it takes such a value as outside every range.
const maxIntDigits = 9

// intCompare writes RewriteCond's -lt, -le, -gt, -ge, -eq and -ne as a
// regex of the strings whose atoi (C's: leading white space, a sign,
// the longest run of digits, 0 without one) is in the range; negated
// says the test is the regex's negation (-ne). ok is false where p is
// not an integer comparison.
func intCompare(p string) (re string, negated, ok bool, err error) {
	if len(p) < 4 || p[0] != '-' {
		return "", false, false, nil
	}
	op, val := p[1:3], p[3:]
	n, inRange := atoi(val)
	if !inRange {
		return "", false, true, fmt.Errorf("the comparison %q: %q is beyond what Apache's atoi reads exactly", p, val)
	}
	const top = 999999999
	lo, hi := -top, top
	switch op {
	case "lt":
		hi = n - 1
	case "le":
		hi = n
	case "gt":
		lo = n + 1
	case "ge":
		lo = n
	case "eq":
		lo, hi = n, n
	case "ne":
		lo, hi, negated = n, n, true
	default:
		return "", false, false, nil
	}
	return intRangeRegex(lo, hi), negated, true, nil
}

// atoi reads s as C's atoi does, and whether the value is one the
// regex can say (at most maxIntDigits significant digits).
func atoi(s string) (int, bool) {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	end := 0
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		end++
	}
	digits := strings.TrimLeft(s[:end], "0")
	if len(digits) > maxIntDigits {
		return 0, false
	}
	v := 0
	if digits != "" {
		v, _ = strconv.Atoi(digits)
	}
	if neg {
		v = -v
	}
	return v, true
}

// intRangeRegex is the regex of the strings whose atoi lies in
// [lo, hi] (each within ±999,999,999).
func intRangeRegex(lo, hi int) string {
	const ws = `[ \t\n\v\f\r]*`
	const rest = `(?:[^0-9][\s\S]*)?`
	var alts []string
	// A sign or digits: the value is the digits'.
	if pos := digitsIn(max(lo, 0), hi); pos != "" {
		alts = append(alts, `\+?`+pos+rest)
	}
	if neg := digitsIn(max(-hi, 0), -lo); neg != "" {
		alts = append(alts, `-`+neg+rest)
	}
	if lo <= 0 && hi >= 0 {
		// No digits after the sign, or no number at all: 0.
		alts = append(alts, `[-+]`+rest, `(?:[^-+0-9 \t\n\v\f\r][\s\S]*)?`)
	}
	if len(alts) == 0 {
		return `[^\s\S]`
	}
	return "^" + ws + "(?:" + strings.Join(alts, "|") + ")$"
}

// digitsIn is a regex of the runs of digits (one or more, leading zeros
// allowed) whose value lies in [lo, hi], lo >= 0; "" when none.
func digitsIn(lo, hi int) string {
	if lo > hi {
		return ""
	}
	var alts []string
	if lo == 0 {
		alts = append(alts, "0+")
		lo = 1
	}
	var sig []string
	for l, p := 1, 1; l <= maxIntDigits && lo <= hi; l, p = l+1, p*10 {
		a, b := max(lo, p), min(hi, p*10-1)
		if a <= b {
			sig = append(sig, sameLength(strconv.Itoa(a), strconv.Itoa(b)))
		}
	}
	if len(sig) > 0 {
		alts = append(alts, "0*(?:"+strings.Join(sig, "|")+")")
	}
	if len(alts) == 0 {
		return ""
	}
	return "(?:" + strings.Join(alts, "|") + ")"
}

// sameLength is a regex of the decimal strings from a to b, both of one
// length.
func sameLength(a, b string) string {
	switch {
	case a == b:
		return a
	case strings.Trim(a[1:], "0") == "" && strings.Trim(b[1:], "9") == "":
		return digitClass(a[0], b[0]) + repeatDigit(len(a)-1)
	case a[0] == b[0]:
		return a[:1] + "(?:" + sameLength(a[1:], b[1:]) + ")"
	}
	alts := []string{a[:1] + "(?:" + sameLength(a[1:], strings.Repeat("9", len(a)-1)) + ")"}
	if a[0]+1 <= b[0]-1 {
		alts = append(alts, digitClass(a[0]+1, b[0]-1)+repeatDigit(len(a)-1))
	}
	alts = append(alts, b[:1]+"(?:"+sameLength(strings.Repeat("0", len(b)-1), b[1:])+")")
	return strings.Join(alts, "|")
}

func digitClass(a, b byte) string {
	if a == b {
		return string(a)
	}
	return "[" + string(a) + "-" + string(b) + "]"
}

func repeatDigit(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("[0-9]{%d}", n)
}
