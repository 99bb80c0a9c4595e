package importer

import "iter"

// PatternMeta yields the index and byte of each character of the PCRE
// pattern p that stands outside escapes and character classes: the
// characters that can give the pattern its structure ('(', ')', '|',
// '^'). A backslash and the character after it are skipped, as is a
// class from its '[' to its ']', a ']' first in it ("[]a]", "[^]a]")
// being a member, as PCRE reads it.
func PatternMeta(p string) iter.Seq2[int, byte] {
	return func(yield func(int, byte) bool) {
		for i := 0; i < len(p); i++ {
			switch p[i] {
			case '\\':
				i++
			case '[':
				i++
				if i < len(p) && p[i] == '^' {
					i++
				}
				if i < len(p) && p[i] == ']' {
					i++
				}
				for i < len(p) && p[i] != ']' {
					if p[i] == '\\' {
						i++
					}
					i++
				}
			default:
				if !yield(i, p[i]) {
					return
				}
			}
		}
	}
}
