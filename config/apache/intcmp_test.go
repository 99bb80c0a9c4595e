package apache

import (
	"fmt"
	"regexp"
	"testing"
)

// cAtoi is C's atoi of s for the values the regexes read (at most 9
// significant digits), written as the C library reads: white space, a
// sign, the digits up to the first other byte.
func cAtoi(s string) (v int, exact bool) {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] >= '\t' && s[i] <= '\r') {
		i++
	}
	sign := 1
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		if s[i] == '-' {
			sign = -1
		}
		i++
	}
	sig := 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		if v > 0 || s[i] != '0' {
			sig++
		}
		v = v*10 + int(s[i]-'0')
		if sig > 9 {
			return 0, false
		}
	}
	return sign * v, true
}

// TestIntCompare checks each comparison's regex against C's atoi on
// values around the bounds, with signs, white space, leading zeros and
// trailing text.
func TestIntCompare(t *testing.T) {
	var inputs []string
	for _, n := range []int{0, 1, 5, 9, 10, 11, 99, 100, 101, 199, 200, 999, 1000, 12345, 999999998, 999999999} {
		for _, f := range []string{"%d", "-%d", "+%d", " %d", "\t-%d", "00%d", "-00%d", "%dx", "%d5", "%d 7", "%d.5"} {
			inputs = append(inputs, fmt.Sprintf(f, n))
		}
	}
	inputs = append(inputs, "", " ", "x", "-", "+", "- 5", "-x", "+-3", " x9", "\n12", "1e3", "0x1f", "1000000000", "-1234567890")
	ops := map[string]func(a, b int) bool{
		"lt": func(a, b int) bool { return a < b }, "le": func(a, b int) bool { return a <= b },
		"gt": func(a, b int) bool { return a > b }, "ge": func(a, b int) bool { return a >= b },
		"eq": func(a, b int) bool { return a == b }, "ne": func(a, b int) bool { return a != b },
	}
	for _, n := range []string{"0", "1", "10", "-1", "-10", "100", "199", "200", "12345", "007", " 5", "-999999999", "999999999", "x"} {
		for op, f := range ops {
			re, neg, ok, err := intCompare("-" + op + n)
			if !ok || err != nil {
				t.Fatalf("-%s%s: %v %v", op, n, ok, err)
			}
			rx := regexp.MustCompile(re)
			want, _ := cAtoi(n)
			for _, in := range inputs {
				v, exact := cAtoi(in)
				if !exact {
					continue
				}
				if got := rx.MatchString(in) != neg; got != f(v, want) {
					t.Errorf("%q -%s%s: %v, want %v (regex %s)", in, op, n, got, !got, re)
				}
			}
		}
	}
	if _, _, ok, err := intCompare("-lt1234567890"); !ok || err == nil {
		t.Errorf("-lt1234567890: %v %v, want an error", ok, err)
	}
	for _, p := range []string{"-f", "-lt", "-foo", "<5", "-xy5"} {
		if _, _, ok, _ := intCompare(p); ok {
			t.Errorf("%s: read as an integer comparison", p)
		}
	}
}
