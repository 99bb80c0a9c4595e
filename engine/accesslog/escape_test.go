package accesslog

import (
	"encoding/json"
	"strconv"
	"testing"
	"unicode/utf8"
)

// TestDecodeRune compares the hand-written decoder with unicode/utf8 on
// every one- and two-byte input and on every lead and second byte followed
// by the continuation bytes at the edges of the valid ranges.
func TestDecodeRune(t *testing.T) {
	edges := []byte{0x00, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xff}
	check := func(s []byte) {
		r, n := decodeRune(s)
		wr, wn := utf8.DecodeRune(s)
		if r != wr || n != wn {
			t.Fatalf("decodeRune(%q) = %U, %d; want %U, %d", s, r, n, wr, wn)
		}
		if r2, n2 := decodeRune(string(s)); r2 != r || n2 != n {
			t.Fatalf("decodeRune(string %q) = %U, %d; want %U, %d", s, r2, n2, r, n)
		}
	}
	for c0 := range 256 {
		check([]byte{byte(c0)})
		for c1 := range 256 {
			check([]byte{byte(c0), byte(c1)})
			for _, c2 := range edges {
				check([]byte{byte(c0), byte(c1), c2})
				for _, c3 := range edges {
					check([]byte{byte(c0), byte(c1), c2, c3})
				}
			}
		}
	}
}

// FuzzEscape checks the escaping invariants on any input: a combined field
// is printable ASCII without a bare quote and unescapes to the input; a JSON
// string is valid UTF-8 JSON, on one line, decoding to what encoding/json
// would have written.
func FuzzEscape(f *testing.F) {
	for _, s := range []string{"", "/a\"b\\c\r\n", "\x00\x1b[31m\x7f", "caf\xc3\xa9\xff\xed\xa0\x80", "\xe2\x80\xa8\xc2\x9b\xf4\x90\x80\x80"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, s []byte) {
		c := appendCombinedField(nil, s)
		var back []byte
		for i := 0; i < len(c); i++ {
			switch b := c[i]; {
			case b < 0x20 || b >= 0x7f || b == '"':
				t.Fatalf("combined field %q holds byte %#x", c, b)
			case b == '\\':
				v, err := strconv.ParseUint(string(c[i+2:i+4]), 16, 8)
				if c[i+1] != 'x' || err != nil {
					t.Fatalf("combined field %q: bad escape at %d", c, i)
				}
				back = append(back, byte(v))
				i += 3
			default:
				back = append(back, b)
			}
		}
		if len(s) == 0 {
			back = nil // "-"
		}
		if string(back) != string(s) {
			t.Fatalf("combined field %q unescapes to %q, want %q", c, back, s)
		}

		j := appendJSONString(nil, s)
		if !utf8.Valid(j) {
			t.Fatalf("JSON string %q is not valid UTF-8", j)
		}
		for _, b := range j {
			if b < 0x20 || b == 0x7f {
				t.Fatalf("JSON string %q holds byte %#x", j, b)
			}
		}
		var got string
		if err := json.Unmarshal(j, &got); err != nil {
			t.Fatalf("JSON string %q: %v", j, err)
		}
		want, _ := json.Marshal(string(s))
		var w string
		_ = json.Unmarshal(want, &w)
		if got != w {
			t.Fatalf("JSON string %q decodes to %q, want %q", j, got, w)
		}
	})
}
