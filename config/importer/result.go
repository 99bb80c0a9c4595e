package importer

import (
	"fmt"
	"io"
	"sort"

	"github.com/redirectd/redirectd/matcher"

	"github.com/redirectd/redirectd/internal/plural"
)

// Note is one thing the import could not translate as it stands, at a
// place of the source file.
type Note struct {
	File string
	Line int
	// Kind groups the note in the report: LeftOut, Caveat or Differs.
	Kind string
	Msg  string
}

// The kinds of notes, as the report names them.
const (
	LeftOut = "left out"
	Caveat  = "translated with a caveat"
	Differs = "answers that differ"
)

var kinds = []string{LeftOut, Caveat, Differs}

func (n Note) String() string {
	if n.File == "" {
		return n.Msg
	}
	if n.Line == 0 {
		return fmt.Sprintf("%s: %s", n.File, n.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", n.File, n.Line, n.Msg)
}

// Rule is one translated rule. Rule.File and Rule.Line are the source's
// file and line; Text is the source as written, for the comment above
// the rule in the config.
type Rule struct {
	matcher.Rule
	Text string
}

// Result is what an import translated and what it noted.
type Result struct {
	Rules []Rule
	Notes []Note
}

// Report writes what an import prints: the file written and its rules of
// each form, how many notes of each kind, then each note, by kind, in
// source order.
func (r *Result) Report(w io.Writer, written string) {
	counts := map[string]int{}
	for _, x := range r.Rules {
		counts[x.Kind.String()]++
	}
	forms := make([]string, 0, len(counts))
	for f := range counts {
		forms = append(forms, f)
	}
	sort.Strings(forms)
	fmt.Fprintf(w, "wrote %s: %s\n", written, plural.Count(len(r.Rules), "rule"))
	for _, f := range forms {
		fmt.Fprintf(w, "  %6d  %s\n", counts[f], f)
	}
	if len(r.Notes) == 0 {
		fmt.Fprintln(w, "everything was translated")
		return
	}
	byKind := map[string][]Note{}
	for _, n := range r.Notes {
		byKind[n.Kind] = append(byKind[n.Kind], n)
	}
	for _, k := range kinds {
		if n := len(byKind[k]); n > 0 {
			fmt.Fprintf(w, "  %6d  %s\n", n, k)
		}
	}
	for _, k := range kinds {
		notes := byKind[k]
		if len(notes) == 0 {
			continue
		}
		sort.SliceStable(notes, func(i, j int) bool { return notes[i].Line < notes[j].Line })
		fmt.Fprintf(w, "%s (%d):\n", k, len(notes))
		for _, n := range notes {
			fmt.Fprintf(w, "  %s\n", n)
		}
	}
}
