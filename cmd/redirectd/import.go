package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"

	"github.com/BurntSushi/toml"
	"github.com/redirectd/redirectd/config"
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
	sort.SliceStable(bad, func(i, j int) bool { return bad[i].Line < bad[j].Line })
	notes := make([]string, len(bad))
	for i, e := range bad {
		notes[i] = fmt.Sprintf("%s:%d: left out: %s", e.File, e.Line, e.Msg)
	}
	if len(rules) == 0 && len(notes) > 0 {
		for _, n := range notes {
			fmt.Fprintln(stderr, n)
		}
		fmt.Fprintf(stderr, "redirectd import csv: no row of %s could be read\n", name)
		return 1
	}
	w := stdout
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			fmt.Fprintf(stderr, "redirectd import csv: %v\n", err)
			return 1
		}
		defer f.Close()
		w = f
	}
	fmt.Fprintf(w, "# Imported from %s by redirectd import csv.\n", name)
	if len(notes) > 0 {
		fmt.Fprintf(w, "# %s left out:\n", plural.Count(len(notes), "row"))
		for _, n := range notes {
			fmt.Fprintf(w, "#   %s\n", n)
		}
	}
	fmt.Fprintln(w)
	if err := toml.NewEncoder(w).Encode(tomlRules(rules)); err != nil {
		fmt.Fprintf(stderr, "redirectd import csv: %v\n", err)
		return 1
	}
	var exact, prefix int
	for _, r := range rules {
		if r.Kind == matcher.Prefix {
			prefix++
		} else {
			exact++
		}
	}
	fmt.Fprintf(stderr, "%s: wrote %s (%d exact, %d prefix)", name, plural.Count(len(rules), "rule"), exact, prefix)
	if len(notes) > 0 {
		fmt.Fprintf(stderr, "; %s left out:", plural.Count(len(notes), "row"))
	}
	fmt.Fprintln(stderr)
	for _, n := range notes {
		fmt.Fprintf(stderr, "  %s\n", n)
	}
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

// ruleTable is one [[rule]] as import writes it.
type ruleTable struct {
	Match         string `toml:"match,omitempty"`
	From          string `toml:"from"`
	To            string `toml:"to"`
	Status        int    `toml:"status"`
	Host          string `toml:"host,omitempty"`
	TrailingSlash string `toml:"trailing_slash,omitempty"`
	QueryString   string `toml:"query_string,omitempty"`
}

func tomlRules(rules []matcher.Rule) any {
	out := struct {
		Rule []ruleTable `toml:"rule"`
	}{}
	for _, r := range rules {
		t := ruleTable{From: r.From, To: r.To, Status: r.Status, Host: r.Host}
		if r.Kind != matcher.Exact {
			t.Match = r.Kind.String()
		}
		if r.TrailingSlash {
			t.TrailingSlash = "ignore"
		}
		switch r.QueryString {
		case matcher.QueryDrop:
			t.QueryString = "drop"
		case matcher.QueryReplace:
			t.QueryString = "replace"
		}
		out.Rule = append(out.Rule, t)
	}
	return out
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
