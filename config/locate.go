package config

import (
	"bytes"
	"slices"
	"strings"
)

// locator finds the line of a table or key in TOML source. BurntSushi/toml
// reports no position for decoded keys (and the wrong one for entries of an
// array of tables), so the source is scanned for table headers once, and
// for a key's line only when an error needs it. The scan understands
// comments and multi-line strings well enough for configuration files; a
// key it cannot place is reported at its table's header instead.
type locator struct {
	lines  [][]byte         // the source, split into lines
	tables map[string][]int // table name -> header line of each entry (1-based)
}

func newLocator(src []byte) *locator {
	loc := &locator{lines: bytes.SplitAfter(src, []byte("\n")), tables: make(map[string][]int)}
	inMulti := ""
	for i, text := range loc.lines {
		s := bytes.TrimSpace(text)
		if inMulti != "" {
			if bytes.Count(s, []byte(inMulti))%2 == 1 {
				inMulti = ""
			}
			continue
		}
		if len(s) > 0 && s[0] == '[' {
			if name, ok := headerName(s); ok {
				loc.tables[name] = append(loc.tables[name], i+1)
			}
			continue
		}
		if bytes.IndexByte(s, '=') > 0 {
			for _, q := range []string{`"""`, `'''`} {
				if bytes.Count(s, []byte(q))%2 == 1 {
					inMulti = q
				}
			}
		}
	}
	return loc
}

// headerName returns the name of a [name] or [[name]] header line.
func headerName(s []byte) (string, bool) {
	open, close := "[", "]"
	if bytes.HasPrefix(s, []byte("[[")) {
		open, close = "[[", "]]"
	}
	end := bytes.Index(s, []byte(close))
	if end < len(open) {
		return "", false
	}
	return unquoteKey(strings.TrimSpace(string(s[len(open):end]))), true
}

func unquoteKey(k string) string {
	if len(k) >= 2 && (k[0] == '"' || k[0] == '\'') && k[len(k)-1] == k[0] {
		return k[1 : len(k)-1]
	}
	return k
}

// header returns the header line of the i-th entry (0-based) of table
// name, or 0.
func (l *locator) header(name string, i int) int {
	if t := l.tables[name]; i < len(t) {
		return t[i]
	}
	return 0
}

// entry returns the index (0-based) of the entry of table name whose
// header is on line header, or -1: the inverse of header.
func (l *locator) entry(name string, header int) int {
	if header == 0 {
		return -1
	}
	return slices.Index(l.tables[name], header)
}

// line returns the line of key in the i-th entry of table name, falling
// back to the entry's header line, or 0.
func (l *locator) line(name string, i int, key string) int {
	return l.keyLine(l.header(name, i), key)
}

// keyLine returns the line of key in the table whose header is on line
// header (0: the top-level table), or header when key is not found there.
func (l *locator) keyLine(header int, key string) int {
	if key == "" {
		return header
	}
	for i := header; i < len(l.lines); i++ {
		s := bytes.TrimSpace(l.lines[i])
		if len(s) > 0 && s[0] == '[' {
			break
		}
		if eq := bytes.IndexByte(s, '='); eq > 0 && unquoteKey(string(bytes.TrimSpace(s[:eq]))) == key {
			return i + 1
		}
	}
	return header
}
