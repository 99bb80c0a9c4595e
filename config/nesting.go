package config

import "fmt"

// MaxNesting is the deepest a TOML document may nest tables, arrays and
// dotted keys. The TOML decoder and the conversion of rules to Go values
// recurse once per level, and a stack overflow is a fatal error that no
// recover catches: a 4 MB rule set of nested arrays from a shared source
// would end the process, and again after every restart. The deepest
// redirectd key is a few levels down (`[[rule]]`, `when.unless.header`);
// 64 leaves room for any hand-written document.
const MaxNesting = 64

// CheckNesting reports, before the document is decoded, a TOML text that
// nests deeper than MaxNesting, naming file and the line where it goes too
// deep. It reads only what nesting needs (brackets, braces, dots in keys,
// table headers, strings and comments to skip them), and counts every
// level the decoder could build, so its count is never below the depth of
// what toml.Decode returns (FuzzCheckNesting holds it to that).
func CheckNesting(file string, src []byte) error {
	_, err := scanTOML(file, src)
	return err
}

// scanTOML is CheckNesting that also returns where each top-level table
// header starts (the offset of its first '['), as the decoder will see
// them: not inside a string, a comment, an array or an inline table.
func scanTOML(file string, src []byte) ([]int, error) {
	s := nestScan{src: src, line: 1, keyMode: true}
	err := s.run(file)
	return s.headers, err
}

// nestScan walks a TOML text, tracking the open arrays and inline tables
// (one level each), the dots of the key being read at each of them (one
// level each), and the segments of the last table header.
type nestScan struct {
	src     []byte
	i, line int
	keyMode bool    // reading a key, not a value
	header  int     // levels the last [table] or [[array]] header opened
	stack   []level // the open arrays and inline tables
	dots    int     // dots in the current key at top level
	sum     int     // the dots of every open level's key
	headers []int   // offsets of the top-level table headers
}

// level is an open array or inline table.
type level struct {
	dots  int  // dots in the key being read in it
	table bool // an inline table, whose commas start keys
}

func (s *nestScan) depth() int { return s.header + len(s.stack) + s.sum + s.dots }

func (s *nestScan) run(file string) error {
	for s.i < len(s.src) {
		c := s.src[s.i]
		switch {
		case c == '\n':
			s.line++
			s.i++
			if len(s.stack) == 0 {
				s.keyMode, s.dots = true, 0
			}
			continue
		case c == '#':
			s.skipComment()
			continue
		case c == '"' || c == '\'':
			s.skipString(c)
			continue
		case c == '[' && s.keyMode && len(s.stack) == 0:
			s.headers = append(s.headers, s.i)
			s.readHeader()
		case c == '[' || c == '{':
			s.stack = append(s.stack, level{table: c == '{'})
			s.keyMode = c == '{'
		case c == ']' || c == '}':
			if n := len(s.stack); n > 0 {
				s.sum -= s.stack[n-1].dots
				s.stack = s.stack[:n-1]
			}
			s.keyMode = false
		case c == ',' && len(s.stack) > 0:
			// In an inline table a comma starts the next key; in an
			// array the next value.
			top := &s.stack[len(s.stack)-1]
			s.sum -= top.dots
			top.dots = 0
			s.keyMode = top.table
		case c == '=' && s.keyMode:
			s.keyMode = false
		case c == '.' && s.keyMode:
			if n := len(s.stack); n > 0 {
				s.stack[n-1].dots++
				s.sum++
			} else {
				s.dots++
			}
		}
		s.i++
		if s.depth() > MaxNesting {
			return &Error{File: file, Line: s.line, Msg: fmt.Sprintf("nests deeper than %d tables, arrays or dotted keys; redirectd reads no deeper (a document this deep is not a rule set)", MaxNesting)}
		}
	}
	return nil
}

// readHeader reads a [table] or [[array]] header to its end and counts its
// levels: one per segment, one more for an array of tables.
func (s *nestScan) readHeader() {
	levels := 1
	if s.i+1 < len(s.src) && s.src[s.i+1] == '[' {
		levels++
		s.i++
	}
	for s.i++; s.i < len(s.src); s.i++ {
		c := s.src[s.i]
		if c == '"' || c == '\'' {
			s.skipString(c)
			s.i--
			continue
		}
		if c == '.' {
			levels++
		}
		if c == ']' || c == '\n' {
			break
		}
	}
	s.header, s.dots = levels, 0
	for s.i < len(s.src) && s.src[s.i] == ']' {
		s.i++
	}
	s.i-- // run's s.i++ steps past the header
	s.keyMode = false
}

func (s *nestScan) skipComment() {
	for s.i < len(s.src) && s.src[s.i] != '\n' {
		s.i++
	}
}

// skipString steps past a basic or literal string, single- or multi-line.
// A single-line string ends at a line end too, where the decoder stops
// with an error.
func (s *nestScan) skipString(q byte) {
	multi := s.i+2 < len(s.src) && s.src[s.i+1] == q && s.src[s.i+2] == q
	if multi {
		s.i += 3
	} else {
		s.i++
	}
	for s.i < len(s.src) {
		c := s.src[s.i]
		switch {
		case c == '\\' && q == '"':
			if s.i+1 < len(s.src) && s.src[s.i+1] == '\n' {
				s.line++
			}
			s.i += 2
			continue
		case c == '\n':
			if !multi {
				return // run counts the line
			}
			s.line++
		case c == q:
			if !multi {
				s.i++
				return
			}
			if s.i+2 < len(s.src) && s.src[s.i+1] == q && s.src[s.i+2] == q {
				s.i += 3
				// Up to two more quotes belong to the string.
				for k := 0; k < 2 && s.i < len(s.src) && s.src[s.i] == q; k++ {
					s.i++
				}
				return
			}
		}
		s.i++
	}
}
