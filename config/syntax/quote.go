package syntax

import "strings"

// Quote writes s as one word that Lexer reads back as s: bare when it
// holds nothing that would end or change it, else in double quotes. Only
// a '"' and a backslash before a byte the reader would resolve (" ' \ t r
// n, or the end) are escaped, so a regex such as ^/a\.b$ stays as
// written. An empty s is `""` (a map's no-redirect value).
func Quote(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			b.WriteString(`\"`)
		case c == '\\' && (i+1 == len(s) || strings.IndexByte("\"'\\trn", s[i+1]) >= 0):
			b.WriteString(`\\`)
		default:
			b.WriteByte(c)
		}
	}
	if s != "" && !strings.ContainsAny(s, " \t\r\n;#\"'{}") {
		return b.String()
	}
	return `"` + b.String() + `"`
}
