package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/config/nginx"
)

// importNginx translates nginx configs into DIR/redirectd.toml and map
// files, then loads the result as check would. It prints the rule counts
// and every directive it could not translate to stderr.
func importNginx(args []string, stderr io.Writer) int {
	flags, _ := newFlags("import nginx", stderr)
	out := flags.String("o", ".", "write redirectd.toml and its map files into `dir`")
	if err := flags.Parse(args); err != nil {
		return 2
	}
	if flags.NArg() == 0 {
		fmt.Fprintln(stderr, "redirectd import nginx: give the nginx config file(s), such as /etc/nginx/nginx.conf")
		return 2
	}
	target := filepath.Join(*out, nginx.ConfigName)
	if *out == "." {
		if _, err := os.Stat(target); err == nil {
			fmt.Fprintf(stderr, "redirectd import nginx: %s exists; give -o DIR for the output, or remove it\n", target)
			return 2
		} else if !errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(stderr, "redirectd import nginx: %v\n", err)
			return 1
		}
	}
	var dirs []*nginx.Directive
	for _, name := range flags.Args() {
		d, err := nginx.ParseFile(name)
		if err != nil {
			fmt.Fprintf(stderr, "redirectd import nginx: %v\n", err)
			return 1
		}
		dirs = append(dirs, d...)
	}
	res := nginx.Translate(dirs)
	header := fmt.Sprintf("Imported from %s by redirectd import nginx.\nEach rule names the nginx directive it comes from.", strings.Join(flags.Args(), " "))
	written, err := nginx.Write(*out, res, header)
	if err != nil {
		fmt.Fprintf(stderr, "redirectd import nginx: %v\n", err)
		return 1
	}
	// What was written must load, as `redirectd check` loads it.
	if _, err := config.Load(target); err != nil {
		fmt.Fprintf(stderr, "redirectd import nginx: the written config does not load (a bug in the import; please report it):\n%v\n", err)
		return 1
	}
	printImportSummary(stderr, res, written)
	return 0
}

func printImportSummary(w io.Writer, res *nginx.Result, written []string) {
	counts := res.Counts()
	forms := make([]string, 0, len(counts))
	for f := range counts {
		forms = append(forms, f)
	}
	sort.Strings(forms)
	fmt.Fprintf(w, "wrote %s: %d rules\n", strings.Join(written, ", "), len(res.Rules))
	for _, f := range forms {
		fmt.Fprintf(w, "  %6d  %s\n", counts[f], f)
	}
	if len(res.Notes) == 0 {
		fmt.Fprintln(w, "everything was translated")
		return
	}
	fmt.Fprintf(w, "not translated, or not exactly (%d):\n", len(res.Notes))
	for _, n := range res.Notes {
		fmt.Fprintf(w, "  %s\n", n)
	}
}
