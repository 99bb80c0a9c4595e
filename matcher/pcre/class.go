package pcre

// byteSet is a set of bytes: nginx runs PCRE2 without UTF, so a class
// matches one byte, and bytes above 0x7F are only ever literals.
type byteSet [4]uint64

func (s *byteSet) add(b byte)      { s[b>>6] |= 1 << (b & 63) }
func (s *byteSet) has(b byte) bool { return s[b>>6]&(1<<(b&63)) != 0 }
func (s *byteSet) union(t *byteSet) {
	s[0], s[1], s[2], s[3] = s[0]|t[0], s[1]|t[1], s[2]|t[2], s[3]|t[3]
}
func (s *byteSet) negate() { s[0], s[1], s[2], s[3] = ^s[0], ^s[1], ^s[2], ^s[3] }
func (s *byteSet) addRange(lo, hi byte) {
	for c := int(lo); c <= int(hi); c++ {
		s.add(byte(c))
	}
}

// fold adds the other case of every ASCII letter in s: PCRE2's default
// tables (the C locale, which nginx uses) fold ASCII letters only.
func (s *byteSet) fold() {
	for c := byte('A'); c <= 'Z'; c++ {
		if s.has(c) || s.has(c+'a'-'A') {
			s.add(c)
			s.add(c + 'a' - 'A')
		}
	}
}

// single returns the byte when s holds exactly one.
func (s *byteSet) single() (byte, bool) {
	n, last := 0, 0
	for c := 0; c < 256; c++ {
		if s.has(byte(c)) {
			n, last = n+1, c
			if n > 1 {
				return 0, false
			}
		}
	}
	return byte(last), n == 1
}

// The classes of PCRE2's default (C locale) tables.
var (
	setDigit, setWord, setSpace, setH, setV, setNotNL, setAll byteSet
	posix                                                     = map[string]*byteSet{}
)

func init() {
	setDigit.addRange('0', '9')
	setWord.addRange('0', '9')
	setWord.addRange('A', 'Z')
	setWord.addRange('a', 'z')
	setWord.add('_')
	for _, c := range []byte{' ', '\t', '\n', '\v', '\f', '\r'} {
		setSpace.add(c) // \v is in \s since PCRE 8.34, as in Perl 5.18
	}
	for _, c := range []byte{'\t', ' ', 0xa0} {
		setH.add(c)
	}
	for _, c := range []byte{'\n', '\v', '\f', '\r', 0x85} {
		setV.add(c)
	}
	setAll.negate()
	setNotNL = setAll
	setNotNL[0] &^= 1 << '\n'
	mk := func(name string, f func(c byte) bool) {
		s := new(byteSet)
		for c := 0; c < 128; c++ {
			if f(byte(c)) {
				s.add(byte(c))
			}
		}
		posix[name] = s
	}
	isUpper := func(c byte) bool { return c >= 'A' && c <= 'Z' }
	isLower := func(c byte) bool { return c >= 'a' && c <= 'z' }
	isDigit := func(c byte) bool { return c >= '0' && c <= '9' }
	isPunct := func(c byte) bool { return c > ' ' && c < 0x7f && !isUpper(c) && !isLower(c) && !isDigit(c) }
	mk("alpha", func(c byte) bool { return isUpper(c) || isLower(c) })
	mk("alnum", func(c byte) bool { return isUpper(c) || isLower(c) || isDigit(c) })
	mk("digit", isDigit)
	mk("upper", isUpper)
	mk("lower", isLower)
	mk("punct", isPunct)
	mk("space", func(c byte) bool { return setSpace.has(c) })
	mk("blank", func(c byte) bool { return c == ' ' || c == '\t' })
	mk("cntrl", func(c byte) bool { return c < ' ' || c == 0x7f })
	mk("graph", func(c byte) bool { return c > ' ' && c < 0x7f })
	mk("print", func(c byte) bool { return c >= ' ' && c < 0x7f })
	mk("xdigit", func(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' })
	mk("word", func(c byte) bool { return setWord.has(c) })
	mk("ascii", func(c byte) bool { return true })
}

func isWordByte(c byte) bool { return setWord.has(c) }
