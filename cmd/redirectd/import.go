package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"

	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/config/importer"
	"github.com/redirectd/redirectd/internal/plural"
	"github.com/redirectd/redirectd/matcher"
)

// importCSV converts a bulk-redirect CSV into a redirectd config, written
// to stdout (or -o FILE).
func importCSV(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("import csv", stderr)
	out := fs.String("o", "", "write the config to `file` instead of stdout")
	force := fs.Bool("force", false, "replace the -o file when it exists")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return parseExit(err)
	}
	if !extraArgs(fs, pos, 1, "one CSV file", stderr) {
		return 2
	}
	if len(pos) == 0 {
		fmt.Fprintln(stderr, "redirectd import csv: give one CSV file")
		return 2
	}
	if err := refuseOverwrite(*out, *force); err != nil {
		fmt.Fprintf(stderr, "redirectd import csv: %v\n", err)
		return 2
	}
	name := pos[0]
	data, err := os.ReadFile(name)
	if err != nil {
		fmt.Fprintf(stderr, "redirectd import csv: %v\n", err)
		return 1
	}
	rules, bad := config.ReadCSV(name, data)
	// A bad row is left out with a note, as a [[map]] with invalid =
	// "skip" leaves out a bad entry: one typo in a file of thousands of
	// rows must not cost the others. So are rows the rules refuse
	// together (a duplicate source).
	rules, refused := compileKept(rules)
	bad = append(bad, refused...)
	res := &importer.Result{}
	for _, r := range rules {
		if err := importer.Writable(&r); err != nil {
			bad = append(bad, &config.Error{File: r.File, Line: r.Line, Msg: err.Error()})
			continue
		}
		res.Rules = append(res.Rules, importer.Rule{Rule: r, Text: r.From + " -> " + r.To})
	}
	sort.SliceStable(bad, func(i, j int) bool { return bad[i].Line < bad[j].Line })
	for _, e := range bad {
		res.Notes = append(res.Notes, importer.Note{File: e.File, Line: e.Line, Kind: importer.LeftOut, Msg: e.Msg + "; left out"})
	}
	if len(res.Rules) == 0 && len(res.Notes) > 0 {
		for _, n := range res.Notes {
			fmt.Fprintln(stderr, n)
		}
		fmt.Fprintf(stderr, "redirectd import csv: no row of %s could be read\n", name)
		return 1
	}
	header := fmt.Sprintf("Imported from %s by redirectd import csv.\nEach rule names the row it comes from.", name)
	if len(res.Notes) > 0 {
		header += fmt.Sprintf("\n%s left out:", plural.Count(len(res.Notes), "row", "rows"))
		for _, n := range res.Notes {
			header += "\n  " + n.String()
		}
	}
	var buf bytes.Buffer
	importer.WriteTOML(&buf, header, "", res.Rules)
	w, written := stdout, "stdout"
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			fmt.Fprintf(stderr, "redirectd import csv: %v\n", err)
			return 1
		}
		defer f.Close()
		w, written = f, *out
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		fmt.Fprintf(stderr, "redirectd import csv: %v\n", err)
		return 1
	}
	res.Report(written).Write(stderr)
	return 0
}

// compileKept compiles rules, leaving out each rule the Set refuses
// (a duplicate source, a Location with a control character), and returns
// the rules kept with one note per row left out. A row is left out whole:
// a row that became two rules (include_subdomains) loses both.
func compileKept(rules []matcher.Rule) ([]matcher.Rule, []*config.Error) {
	var notes []*config.Error
	for {
		_, err := matcher.Compile(rules)
		if err == nil {
			return rules, notes
		}
		refused := map[int]bool{}
		var errs []error
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			errs = j.Unwrap()
		} else {
			errs = []error{err}
		}
		for _, e := range errs {
			var re *matcher.RuleError
			if errors.As(e, &re) && re.Rule.Line > 0 && !refused[re.Rule.Line] {
				refused[re.Rule.Line] = true
				notes = append(notes, &config.Error{File: re.Rule.File, Line: re.Rule.Line, Msg: re.FieldError.Error()})
			}
		}
		if len(refused) == 0 {
			return nil, append(notes, &config.Error{Msg: err.Error()}) // not a row's fault
		}
		kept := rules[:0]
		for _, r := range rules {
			if !refused[r.Line] {
				kept = append(kept, r)
			}
		}
		rules = kept
	}
}

// refuseOverwrite returns an error when file exists and force is false:
// an import run again must not replace a config edited since by hand.
func refuseOverwrite(file string, force bool) error {
	if file == "" || force {
		return nil
	}
	if _, err := os.Stat(file); err == nil {
		return fmt.Errorf("%s exists: give -force to replace it, or another -o", file)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// writtenDoesNotLoad reports that the config the import cmd wrote does
// not load: the input was read, so the fault is the import's own. It
// returns the exit status, 1.
func writtenDoesNotLoad(stderr io.Writer, cmd string, err error) int {
	fmt.Fprintf(stderr, "redirectd %s: the written config does not load (a bug in the import; please report it):\n%v\n", cmd, err)
	return 1
}
