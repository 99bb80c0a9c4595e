// Package importertest runs an importer as `redirectd import` does and
// compares what it writes with golden files, for the importers' tests
// (netlify, vercel).
package importertest

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/redirectd/redirectd/config/importer"
	"github.com/redirectd/redirectd/matcher"
)

// LoadFunc is an importer's Load (netlify.Load, vercel.Load).
type LoadFunc func(file string, data []byte, opt importer.Options) ([]importer.Candidate, []importer.Note, error)

// Import runs load on dir/name as the command named tool does, with the
// file named as in the folder so that the output does not depend on the
// path, and returns the config written and the report.
func Import(t testing.TB, tool string, load LoadFunc, dir, name string, opt importer.Options) (cfg, report []byte) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	cands, notes, err := load(name, data, opt)
	if err != nil {
		t.Fatal(err)
	}
	res := importer.Order(cands)
	res.Notes = append(notes, res.Notes...)
	var out, rep bytes.Buffer
	if err := importer.WriteFileOrderTOML(&out, "Imported from "+name+" by redirectd import "+tool+".", opt.GeoIP, res.Rules); err != nil {
		t.Fatal(err)
	}
	res.Report(importer.ConfigName).Write(&rep)
	return out.Bytes(), rep.Bytes()
}

// CheckWhen orders cands as the import does and checks what it wrote: one
// rule with the conditions want, or, when want is nil and note is given,
// no rule and a "left out" note. note, when given, is in the notes.
func CheckWhen(t testing.TB, cands []importer.Candidate, notes []importer.Note, want *matcher.When, note string) {
	t.Helper()
	res := importer.Order(cands)
	var got *matcher.When
	if len(res.Rules) == 1 {
		got = res.Rules[0].When
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("when (-want +got):\n%s", d)
	}
	text := ""
	for _, n := range append(notes, res.Notes...) {
		text += n.String() + "\n"
	}
	if note != "" && !strings.Contains(text, note) {
		t.Errorf("the notes lack %q:\n%s", note, text)
	}
	switch leftOut := want == nil && note != ""; {
	case leftOut && !strings.Contains(text, "left out"):
		t.Errorf("left out without a note:\n%s", text)
	case !leftOut && len(res.Rules) != 1:
		t.Errorf("%d rules written, want 1; notes:\n%s", len(res.Rules), text)
	}
}
