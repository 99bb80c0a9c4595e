package vercel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/redirectd/redirectd/config/importer"
)

// Redirect is one entry of vercel.json's redirects.
type Redirect struct {
	// Index is the entry's place in the array; Line the line it starts on.
	Index, Line int
	Source      string `json:"source"`
	Destination string `json:"destination"`
	// Permanent is nil when absent (true: 308).
	Permanent  *bool  `json:"permanent"`
	StatusCode int    `json:"statusCode"`
	Has        []Cond `json:"has"`
	Missing    []Cond `json:"missing"`
}

// Cond is one has or missing condition.
type Cond struct {
	Type  string  `json:"type"`
	Key   string  `json:"key"`
	Value *string `json:"value"`
}

// Text names the entry in notes and comments.
func (r *Redirect) Text() string {
	return fmt.Sprintf("redirects[%d] %s -> %s", r.Index, r.Source, r.Destination)
}

// Parse reads vercel.json: its redirects, each with the line it starts
// on, and notes on what else of the file bears on redirects and is not
// translated. An error is a file that is not a JSON object.
func Parse(file string, data []byte) ([]Redirect, []importer.Note, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		// %v, not %w: err is nil when the file is JSON but not an object.
		return nil, nil, fmt.Errorf("%s: not a JSON object (%v); vercel.json holds one", file, err)
	}
	var out []Redirect
	var notes []importer.Note
	note := func(line int, format string, args ...any) {
		notes = append(notes, importer.Note{File: file, Line: line, Kind: importer.LeftOut, Msg: fmt.Sprintf(format, args...)})
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, nil, fmt.Errorf("%s:%d: %w", file, lineAt(data, int(dec.InputOffset())), err)
		}
		key, _ := t.(string)
		line := lineAt(data, int(dec.InputOffset()))
		if key != "redirects" {
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				return nil, nil, fmt.Errorf("%s:%d: %s: %w", file, line, key, err)
			}
			if msg := otherKey(key, v); msg != "" {
				note(line, "%s", msg)
			}
			continue
		}
		if t, err := dec.Token(); err != nil || t != json.Delim('[') {
			return nil, nil, fmt.Errorf("%s:%d: redirects is not an array", file, line)
		}
		for i := 0; dec.More(); i++ {
			at := lineAt(data, int(dec.InputOffset()))
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return nil, nil, fmt.Errorf("%s:%d: redirects[%d]: %w", file, at, i, err)
			}
			r := Redirect{Index: i, Line: at}
			strict := json.NewDecoder(bytes.NewReader(raw))
			strict.DisallowUnknownFields()
			if err := strict.Decode(&r); err != nil {
				note(at, "redirects[%d]: %v; left out", i, err)
				continue
			}
			r.Index, r.Line = i, at
			out = append(out, r)
		}
		if _, err := dec.Token(); err != nil {
			return nil, nil, fmt.Errorf("%s: redirects: %w", file, err)
		}
	}
	sort.SliceStable(notes, func(i, j int) bool { return notes[i].Line < notes[j].Line })
	return out, notes, nil
}

// otherKey says what a top-level key other than redirects does that the
// import does not translate, or "" when it bears on no redirect.
func otherKey(key string, v json.RawMessage) string {
	switch key {
	case "trailingSlash":
		return fmt.Sprintf("trailingSlash: %s makes Vercel redirect (308) every path to its form with%s a trailing slash; not translated "+
			"(a regex rule can do it), left out", v, map[bool]string{true: "", false: "out"}[string(v) == "true"])
	case "cleanUrls":
		if string(v) == "true" {
			return "cleanUrls: true makes Vercel redirect /page.html and /page/index.html to /page; not translated (regex rules can do it), left out"
		}
	case "routes":
		return "routes (the legacy form, which can redirect too) are not read; write them as redirects, left out"
	case "rewrites":
		var list []json.RawMessage
		json.Unmarshal(v, &list)
		return fmt.Sprintf("rewrites (%d) serve another path's content without a redirect, which redirectd does not do; "+
			"their requests are misses, forwarded to [upstream] when one is set; left out", len(list))
	}
	return ""
}

// lineAt returns the line of the first byte at or after off that is not
// white space or a separator: where the next value starts.
func lineAt(data []byte, off int) int {
	for off < len(data) && strings.IndexByte(" \t\r\n,:", data[off]) >= 0 {
		off++
	}
	return 1 + bytes.Count(data[:min(off, len(data))], []byte("\n"))
}
