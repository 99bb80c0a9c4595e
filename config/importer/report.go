package importer

import (
	"cmp"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/redirectd/redirectd/internal/plural"
)

// The kinds of notes, in the order the report names them.
const (
	// LeftOut: a construct the config does not hold; its requests are
	// answered as if it were absent.
	LeftOut = "left out"
	// Served: the source's server answers these requests itself (files,
	// content, other protocols); redirectd forwards or answers 404.
	Served = "served by the original server itself"
	// Caveat: translated, with a difference the note names.
	Caveat = "translated with a caveat"
	// Rewritten: translated as an equivalent written another way.
	Rewritten = "written as an equivalent"
	// Differs: the import's self-check found requests answered
	// differently.
	Differs = "answers that differ"
)

var kinds = []string{LeftOut, Served, Caveat, Rewritten, Differs}

// Note is one thing the import could not translate as it stands, or
// translated with a caveat, at a place of the source.
type Note struct {
	File string
	Line int
	// Kind groups the note in the report: one of the kinds above.
	Kind string
	Msg  string
}

func (n Note) String() string {
	if n.File == "" {
		return n.Msg
	}
	if n.Line == 0 {
		return fmt.Sprintf("%s: %s", n.File, n.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", n.File, n.Line, n.Msg)
}

// Report is what every import prints when it has written its config.
type Report struct {
	// Files are the files written, the config first ("stdout" when it
	// went there).
	Files []string
	// Dir, when not "", is the folder paths are written relative to.
	Dir string
	// Forms counts the rules written by the form of their source
	// ("exact", "location =", "map entry", ...); Rules is their sum.
	// Unit is what they count, "rule" when "" (the nginx import counts
	// "table"s).
	Forms map[string]int
	Unit  string
	Notes []Note
}

// Write writes the report: the files written and the rules of each form,
// how many notes of each kind, then each note once (the same message at
// the same place is one note however many uses gave it), by kind, in
// source order.
func (r *Report) Write(w io.Writer) {
	rel := func(p string) string {
		if r.Dir != "" {
			if q, err := filepath.Rel(r.Dir, p); err == nil && !strings.HasPrefix(q, "..") {
				return q
			}
		}
		return p
	}
	names := make([]string, len(r.Files))
	for i, p := range r.Files {
		names[i] = rel(p)
	}
	files := strings.Join(names, ", ")
	if len(names) > 8 {
		// A map split where its entries' options change (a real site's
		// map made 17 files): the first and last of each name say
		// where they are.
		files = fmt.Sprintf("%s and %d map files beside it (%s)", names[0], len(names)-1, mapRuns(names[1:]))
	}
	total := 0
	forms := make([]string, 0, len(r.Forms))
	for f, n := range r.Forms {
		forms = append(forms, f)
		total += n
	}
	slices.Sort(forms)
	unit := r.Unit
	if unit == "" {
		unit = "rule"
	}
	fmt.Fprintf(w, "wrote %s: %s\n", files, plural.Count(total, unit))
	for _, f := range forms {
		fmt.Fprintf(w, "  %6d  %s\n", r.Forms[f], f)
	}
	notes := UniqueNotes(r.Notes)
	if len(notes) == 0 {
		fmt.Fprintln(w, "everything was translated")
		return
	}
	byKind := map[string][]Note{}
	for _, n := range notes {
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
		// Files in the order the import read them, lines in order.
		order := map[string]int{}
		for _, n := range notes {
			if _, ok := order[n.File]; !ok {
				order[n.File] = len(order)
			}
		}
		slices.SortStableFunc(notes, func(a, b Note) int {
			return cmp.Or(cmp.Compare(order[a.File], order[b.File]), cmp.Compare(a.Line, b.Line))
		})
		fmt.Fprintf(w, "%s (%d):\n", k, len(notes))
		for _, n := range notes {
			n.File = rel(n.File)
			if k == LeftOut {
				// The heading says it: a note need not end so again.
				n.Msg = strings.TrimSuffix(strings.TrimSuffix(n.Msg, "; left out"), ", left out")
			}
			fmt.Fprintf(w, "  %s\n", n)
		}
	}
}

// UniqueNotes returns notes without repeats, in their order.
func UniqueNotes(notes []Note) []Note {
	seen := map[Note]bool{}
	var out []Note
	for _, n := range notes {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// mapRuns names map files written as NAME.map, NAME-2.map, ... by the
// first and last of each NAME, in the order the names first come: the
// 20 files of a real site, 17 of one map and 3 of another, are
// "new_uri.map to new_uri-17.map, no-redirect.map to no-redirect-3.map"
// rather than the first and last of the list, which named only one.
func mapRuns(names []string) string {
	type run struct {
		first, last string
		lo, hi      int
	}
	var runs []*run
	byStem := map[string]*run{}
	for _, n := range names {
		stem, num := mapStem(n)
		r := byStem[stem]
		if r == nil {
			r = &run{first: n, last: n, lo: num, hi: num}
			byStem[stem] = r
			runs = append(runs, r)
			continue
		}
		if num < r.lo {
			r.first, r.lo = n, num
		}
		if num > r.hi {
			r.last, r.hi = n, num
		}
	}
	parts := make([]string, len(runs))
	for i, r := range runs {
		parts[i] = r.first
		if r.last != r.first {
			parts[i] += " to " + r.last
		}
	}
	return strings.Join(parts, ", ")
}

// mapStem splits a map file's name into its name without the number
// the writer adds to make it unique and that number (1 for none):
// "dir/v-11.map" is "dir/v.map" and 11.
func mapStem(name string) (string, int) {
	ext := filepath.Ext(name)
	base := strings.TrimSuffix(name, ext)
	i := strings.LastIndexByte(base, '-')
	if i < 0 || i == len(base)-1 {
		return name, 1
	}
	n := 0
	for _, c := range base[i+1:] {
		if c < '0' || c > '9' || n > 1e6 {
			return name, 1
		}
		n = n*10 + int(c-'0')
	}
	return base[:i] + ext, n
}
