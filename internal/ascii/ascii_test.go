package ascii

import (
	"bytes"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// TestBytes checks every byte against the definitions written out the
// long way, as the packages that now call this one wrote them.
func TestBytes(t *testing.T) {
	for i := 0; i < 256; i++ {
		c := byte(i)
		letter := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		digit := '0' <= c && c <= '9'
		tchar := letter || digit || c != 0 && strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
		// RFC 9110 says it the other way too: a visible character that is
		// not a delimiter.
		vchar := c > ' ' && c < 0x7f && strings.IndexByte("\"(),/:;<=>?@[\\]{}", c) < 0
		if got := TokenChar(c); got != tchar || got != vchar {
			t.Errorf("TokenChar(%#x) = %v, want %v (and %v)", c, got, tchar, vchar)
		}
		hex := digit || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
		if got := IsHex(c); got != hex {
			t.Errorf("IsHex(%#x) = %v, want %v", c, got, hex)
		}
		val := -1
		if hex {
			val = strings.IndexByte("0123456789abcdef", byte(unicode.ToLower(rune(c))))
		}
		if got := Unhex(c); got != val {
			t.Errorf("Unhex(%#x) = %d, want %d", c, got, val)
		}
		lower := c
		if c < 0x80 {
			lower = byte(unicode.ToLower(rune(c)))
		}
		if got := Lower(c); got != lower {
			t.Errorf("Lower(%#x) = %#x, want %#x", c, got, lower)
		}
		if got, want := IsVisible(c), c < 0x80 && unicode.IsGraphic(rune(c)) && c != ' '; got != want {
			t.Errorf("IsVisible(%#x) = %v, want %v", c, got, want)
		}
		ctl := c < 0x80 && unicode.IsControl(rune(c))
		if got := IsControl(c); got != ctl {
			t.Errorf("IsControl(%#x) = %v, want %v", c, got, ctl)
		}
	}
}

func TestIsControlRune(t *testing.T) {
	var got []bool
	for _, r := range []rune{'\t', '\n', 0x7f, ' ', 0x85, 0x17f, 0x100a, utf8.RuneError} {
		got = append(got, IsControl(r))
	}
	// A rune is compared whole: U+017F is not DEL, though its low byte is.
	want := []bool{true, true, true, false, false, false, false, false}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("IsControl of runes: -want +got\n%s", diff)
	}
}

func TestIsToken(t *testing.T) {
	for _, tt := range []struct {
		s    string
		want bool
	}{
		{"", false},
		{"X-Device", true},
		{"!#$%&'*+-.^_`|~09azAZ", true},
		{"Accept Language", false},
		{"name:", false},
		{"caf\u00e9", false},
		{"a\x00", false},
		{"a\x7f", false},
		{"(comment)", false},
	} {
		got := []bool{IsToken(tt.s), IsToken([]byte(tt.s))}
		if diff := cmp.Diff([]bool{tt.want, tt.want}, got); diff != "" {
			t.Errorf("IsToken(%q) as string, []byte: -want +got\n%s", tt.s, diff)
		}
	}
}

func TestEqualFold(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{"", "", true},
		{"Host", "host", true},
		{"X-FORWARDED-FOR", "x-forwarded-for", true},
		{"x-forwarded-for", "X-Forwarded-For", true},
		{"host", "hosts", false},
		{"hosT", "host ", false},
		{"a-b", "a_b", false},
		// '@' and '`' are 0x20 apart like a letter's cases, but are not
		// letters.
		{"@", "`", false},
		// No Unicode folding: no header name holds such a byte.
		{"\u00c9", "\u00e9", false},
	} {
		got := []bool{EqualFold([]byte(tt.a), tt.b), EqualFold([]byte(tt.a), []byte(tt.b))}
		if diff := cmp.Diff([]bool{tt.want, tt.want}, got); diff != "" {
			t.Errorf("EqualFold(%q, %q) with string, []byte: -want +got\n%s", tt.a, tt.b, diff)
		}
		if tt.want != bytes.EqualFold([]byte(tt.a), []byte(tt.b)) && tt.a < "\x80" {
			t.Errorf("EqualFold(%q, %q) = %v disagrees with bytes.EqualFold on ASCII", tt.a, tt.b, tt.want)
		}
	}
}

func TestAppendLower(t *testing.T) {
	for _, tt := range []struct{ dst, s, want string }{
		{"", "", ""},
		{"", "Example.COM", "example.com"},
		{"http://", "WWW.Example.org", "http://www.example.org"},
		// Only ASCII letters change: nginx's ngx_hash_strlow keeps the
		// bytes of "\u00c9".
		{"", "/CAF\u00c9", "/caf\u00c9"},
		{"", "[2001:DB8::1]", "[2001:db8::1]"},
	} {
		got := []string{
			string(AppendLower([]byte(tt.dst), tt.s)),
			string(AppendLower([]byte(tt.dst), []byte(tt.s))),
		}
		if diff := cmp.Diff([]string{tt.want, tt.want}, got); diff != "" {
			t.Errorf("AppendLower(%q, %q) with string, []byte: -want +got\n%s", tt.dst, tt.s, diff)
		}
	}
}

func TestIndexControl(t *testing.T) {
	for _, tt := range []struct {
		s    string
		want int
	}{
		{"", -1},
		{"https://example.com/a b", -1},
		{"/a\r\nSet-Cookie: x", 2},
		{"\tx", 0},
		{"x\x7f", 1},
		// The bytes of a UTF-8 sequence are never controls, even those
		// of U+0080..U+009F, which are C1 controls as runes.
		{"caf\u00e9\u0085", -1},
		{"caf\u00e9\x00", 5},
	} {
		got := []int{IndexControl(tt.s), IndexControl([]byte(tt.s))}
		if diff := cmp.Diff([]int{tt.want, tt.want}, got); diff != "" {
			t.Errorf("IndexControl(%q) with string, []byte: -want +got\n%s", tt.s, diff)
		}
	}
}

func TestAllocs(t *testing.T) {
	dst := make([]byte, 0, 64)
	name := []byte("X-Forwarded-For")
	if n := testing.AllocsPerRun(100, func() {
		dst = AppendLower(dst[:0], name)
		if !EqualFold(name, "x-forwarded-for") || !IsToken(name) || IndexControl(name) >= 0 {
			t.Fatal("wrong answer")
		}
	}); n != 0 {
		t.Errorf("AppendLower, EqualFold, IsToken, IndexControl: %v allocations, want 0", n)
	}
}
