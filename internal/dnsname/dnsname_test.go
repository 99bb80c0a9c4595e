package dnsname

import (
	"strings"
	"testing"
)

func TestValid(t *testing.T) {
	for name, want := range map[string]bool{
		"example.com":                        true,
		"a.wild.example":                     true,
		"xn--caf-dma.example":                true,
		"1.example":                          true,
		"a-b.example":                        true,
		strings.Repeat("a", 63) + ".example": true,
		strings.Repeat("a", 64) + ".example": false,
		strings.Repeat("a.", 126) + "ab":     false, // 254 bytes
		"":                                   false,
		"localhost":                          false,
		"x..wild.example":                    false,
		".wild.example":                      false,
		"wild.example.":                      false,
		"-1.wild.example":                    false,
		"a-.wild.example":                    false,
		"a_2.wild.example":                   false,
		"A.example":                          false, // callers lower-case
		"a b.example":                        false,
		"*.example":                          false,
		"a.example\x00":                      false,
		"caf\xc3\xa9.example":                false,
	} {
		if got := Valid(name); got != want {
			t.Errorf("Valid(%q) = %v, want %v", name, got, want)
		}
	}
}

func FuzzValid(f *testing.F) {
	f.Add("a.example")
	f.Add("-a..b_")
	f.Fuzz(func(t *testing.T, name string) {
		if !Valid(name) {
			return
		}
		for _, l := range strings.Split(name, ".") {
			if l == "" || len(l) > 63 || strings.HasPrefix(l, "-") || strings.HasSuffix(l, "-") || strings.Trim(l, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" {
				t.Fatalf("Valid(%q) with label %q", name, l)
			}
		}
	})
}
