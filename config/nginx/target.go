package nginx

import (
	"fmt"
	"strings"
)

// partKind is what one piece of a return URL, rewrite replacement or map
// value is.
type partKind uint8

const (
	partLit     partKind = iota
	partCapture          // $1..$9 or a named group, from the last regex matched
	partVar              // $name: a request variable or a map's variable
)

// part is one piece of a target: literal text, a capture or a variable.
type part struct {
	kind partKind
	text string // the literal, the group number or name, the variable name
}

// parseTarget splits an nginx value at its variables: "$name", "${name}"
// and "$1" to "$9" (one digit, as nginx reads them: "$10" is $1 then "0").
func parseTarget(s string) ([]part, error) {
	var parts []part
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			parts = append(parts, part{kind: partLit, text: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(s); i++ {
		if s[i] != '$' {
			lit.WriteByte(s[i])
			continue
		}
		rest := s[i+1:]
		var name string
		switch {
		case rest == "":
			return nil, fmt.Errorf("%q ends with a lone '$'", s)
		case rest[0] >= '1' && rest[0] <= '9':
			name = rest[:1]
			i++
		case rest[0] == '{':
			end := strings.IndexByte(rest, '}')
			if end < 2 {
				return nil, fmt.Errorf("%q has an unclosed or empty ${...}", s)
			}
			name = rest[1:end]
			i += end + 1
		default:
			n := 0
			for n < len(rest) && isVarByte(rest[n]) {
				n++
			}
			if n == 0 {
				return nil, fmt.Errorf("%q has a '$' not followed by a variable name", s)
			}
			name = rest[:n]
			i += n
		}
		flush()
		if isCaptureName(name) {
			parts = append(parts, part{kind: partCapture, text: name})
		} else {
			parts = append(parts, part{kind: partVar, text: name})
		}
	}
	flush()
	return parts, nil
}

func isVarByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// isCaptureName reports whether a variable is a numbered capture.
func isCaptureName(name string) bool {
	return len(name) == 1 && name[0] >= '1' && name[0] <= '9'
}

func hasVar(parts []part, name string) bool {
	for _, p := range parts {
		if p.kind == partVar && p.text == name {
			return true
		}
	}
	return false
}
