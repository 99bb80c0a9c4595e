package httpparse

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestValid(t *testing.T) {
	tests := []struct {
		in                   string
		token, value, reason bool
	}{
		{"X-Foo", true, true, true},
		{"", false, true, true},
		{"a b", false, true, true},
		{"Forbidden\rSet-Cookie: sid=x", false, false, false},
		{"v\n", false, false, false},
		{"tab\there", false, true, true},
		{"caf\xc3\xa9", false, true, true},
		{"nul\x00", false, false, false},
		{"del\x7f", false, false, false},
		{"a:b", false, true, true},
	}
	for _, tc := range tests {
		got := []bool{ValidToken([]byte(tc.in)), ValidFieldValue([]byte(tc.in)), ValidReason([]byte(tc.in))}
		if d := cmp.Diff([]bool{tc.token, tc.value, tc.reason}, got); d != "" {
			t.Errorf("%q: token, value, reason (-want +got):\n%s", tc.in, d)
		}
	}
}

// FuzzValidFieldValue: a value ValidFieldValue accepts, written as a
// field, parses back as that one field with that value (less the spaces
// the parser trims at its ends).
func FuzzValidFieldValue(f *testing.F) {
	f.Add("text/html; charset=utf-8")
	f.Add("a\rb")
	f.Fuzz(func(t *testing.T, v string) {
		if !ValidFieldValue([]byte(v)) {
			return
		}
		buf := []byte("GET / HTTP/1.1\r\nHost: a\r\nX-V: " + v + "\r\n\r\n")
		var r Request
		if _, err := Parse(buf, &r, nil); err != nil {
			return // a value the parser refuses for other reasons (not UTF-8)
		}
		if len(r.Headers) != 2 || string(r.Headers[1].Name) != "X-V" {
			t.Fatalf("%q split into %d fields", v, len(r.Headers))
		}
	})
}
