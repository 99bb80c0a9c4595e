package nginx

import (
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/redirectd/redirectd/internal/plural"
)

// noteKinds is the order of the report's sections.
var noteKinds = []string{NoteLeftOut, NoteServed, NoteCaveat, NoteRewritten, NoteDiffers}

// Report writes what `import nginx` prints: the files written and the
// rules of each form, how many notes of each kind, then each note once,
// by kind, in the order found. Paths are written relative to dir when
// they lie in it (dir "" keeps them as they are).
func (r *Result) Report(w io.Writer, written []string, dir string) {
	rel := func(p string) string {
		if dir != "" {
			if q, err := filepath.Rel(dir, p); err == nil && !strings.HasPrefix(q, "..") {
				return q
			}
		}
		return p
	}
	names := make([]string, len(written))
	for i, p := range written {
		names[i] = rel(p)
	}
	counts := r.Counts()
	forms := make([]string, 0, len(counts))
	for f := range counts {
		forms = append(forms, f)
	}
	sort.Strings(forms)
	files := strings.Join(names, ", ")
	if len(names) > 8 {
		// A map split where its entries' options change (a real site's
		// map made 17 files): the first and last say where they are.
		files = fmt.Sprintf("%s and %d map files beside it (%s to %s)", names[0], len(names)-1, names[1], names[len(names)-1])
	}
	fmt.Fprintf(w, "wrote %s: %s\n", files, plural.Count(len(r.Rules), "rule", "rules"))
	for _, f := range forms {
		fmt.Fprintf(w, "  %6d  %s\n", counts[f], f)
	}
	notes := r.UniqueNotes()
	if len(notes) == 0 {
		fmt.Fprintln(w, "everything was translated")
		return
	}
	byKind := map[string][]Note{}
	for _, n := range notes {
		byKind[n.Kind] = append(byKind[n.Kind], n)
	}
	for _, k := range noteKinds {
		if n := len(byKind[k]); n > 0 {
			fmt.Fprintf(w, "  %6d  %s\n", n, k)
		}
	}
	for _, k := range noteKinds {
		if len(byKind[k]) == 0 {
			continue
		}
		fmt.Fprintf(w, "%s (%d):\n", k, len(byKind[k]))
		for _, n := range byKind[k] {
			n.File = rel(n.File)
			fmt.Fprintf(w, "  %s\n", n)
		}
	}
}

// UniqueNotes returns the notes without repeats: the same message at the
// same place is one note, however many servers or map uses gave it.
func (r *Result) UniqueNotes() []Note {
	seen := map[Note]bool{}
	var out []Note
	for _, n := range r.Notes {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}
