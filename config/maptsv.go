package config

import (
	"bytes"
	"fmt"
	"unsafe"

	"github.com/redirectd/redirectd/matcher"
)

// mapFormat reads [[map]] format: "nginx" (the default: nginx's map
// syntax, `from to;`) or "tsv" (a line per entry, from TAB to, as
// documentation sites keep their redirects: MDN's _redirects.txt).
func (e *entry) mapFormat(v any) scanner {
	if v == nil {
		return scanMapFile
	}
	switch s := e.str("format", v, false); s {
	case "nginx":
		return scanMapFile
	case "tsv":
		return scanTSV
	default:
		e.fail("format", "%q is not a choice; use \"nginx\" (`from to;` entries, as in nginx's map block) or \"tsv\" (a line per entry: from, a tab, to)", s)
	}
	return scanMapFile
}

// scanTSV is scanMapFile for tab-separated map files: each line is
// `from<TAB>to`, taken as written (no quotes, no escapes: a key may hold
// '#', ';', spaces and quotes, as MDN's do). Blank lines and lines
// starting with '#' (no path does) are skipped, a line may end in CRLF,
// and a line with other than two fields, or an empty one, is an error
// naming its line. A piece ends after its last whole line.
func scanTSV(name string, data []byte, final bool, line int, tmpl matcher.Rule, out *mapOut) (end, lines int, more bool) {
	for end < len(data) {
		nl := bytes.IndexByte(data[end:], '\n')
		if nl < 0 && !final {
			return end, lines, true
		}
		next := len(data)
		if nl >= 0 {
			next = end + nl + 1
		}
		text := bytes.TrimSuffix(bytes.TrimSuffix(data[end:next], []byte("\n")), []byte("\r"))
		at := line + lines
		end, lines = next, lines+1
		if len(bytes.TrimSpace(text)) == 0 || text[0] == '#' {
			continue
		}
		from, to, ok := bytes.Cut(text, []byte("\t"))
		switch {
		case !ok || bytes.IndexByte(to, '\t') >= 0:
			*out.Item = mapItem{err: &Error{File: name, Line: at, Msg: fmt.Sprintf(
				"an entry of a tab-separated map is `from<TAB>to`; this line has %d fields", bytes.Count(text, []byte("\t"))+1)}}
		case len(from) == 0 || len(to) == 0:
			*out.Item = mapItem{err: &Error{File: name, Line: at, Msg: "an entry of a tab-separated map needs both a from and a to; one is empty"}}
		default:
			r := tmpl
			// As scanMapFile's words, these alias the piece read for
			// this load; the Set copies what it keeps.
			r.From, r.To = unsafe.String(unsafe.SliceData(from), len(from)), unsafe.String(unsafe.SliceData(to), len(to))
			r.File, r.Line = name, at
			*out.Item = mapItem{r: r}
		}
		if !out.Emit() {
			return end, lines, false
		}
	}
	return end, lines, !final
}
