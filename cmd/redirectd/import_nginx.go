package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/config/importer"
	"github.com/redirectd/redirectd/config/nginx"
	"github.com/redirectd/redirectd/internal/plural"
)

// importNginx translates nginx configs into DIR/redirectd.toml and map
// files, then loads the result as check would. It prints the rule counts
// and every directive it could not translate to stderr.
func importNginx(args []string, _, stderr io.Writer) int {
	flags := newFlags("import nginx", stderr)
	out := flags.String("o", ".", "write redirectd.toml and its map files into `dir`")
	force := flags.Bool("force", false, "replace the files of an earlier import in the -o dir")
	// Every server is written as the location model; the flag that
	// could ask for flat rules instead stays, so that a script passing
	// -locations all still runs, and auto says what became of it.
	locations := flags.String("locations", "all", "`all`, the only choice: every server is written as [[server_rewrite]] and [[location]] tables")
	var allow []string
	flags.Func("include-dir", "also follow includes into `dir` (repeatable); by default only the folder of each file named is read", func(dir string) error {
		allow = append(allow, dir)
		return nil
	})
	names, err := parseArgs(flags, args)
	if err != nil {
		return parseExit(err)
	}
	if *locations != "all" {
		fmt.Fprintf(stderr, "redirectd import nginx: -locations %s is gone: every server is written as the location model ([[server_rewrite]] and [[location]] tables), the flat rules are no more\n", *locations)
		return 2
	}
	if len(names) == 0 {
		fmt.Fprintln(stderr, "redirectd import nginx: give the nginx config file(s), such as /etc/nginx/nginx.conf")
		return 2
	}
	target := filepath.Join(*out, importer.ConfigName)
	if err := refuseOverwrite(target, *force); err != nil {
		fmt.Fprintf(stderr, "redirectd import nginx: %v\n", err)
		return 2
	}
	dirs, err := parseNginxFiles(names, allow, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "redirectd import nginx: %v\n", err)
		return 1
	}
	res := nginx.Translate(dirs)
	header := fmt.Sprintf("Imported from %s by redirectd import nginx.\nEach rule names the nginx directive it comes from.", strings.Join(names, " "))
	written, err := nginx.Write(*out, res, header)
	if err != nil {
		fmt.Fprintf(stderr, "redirectd import nginx: %v\n", err)
		return 1
	}
	// What was written must load, as `redirectd check` loads it.
	cfg, err := config.Load(target)
	if err != nil {
		return writtenDoesNotLoad(stderr, "import nginx", err)
	}
	// The self-check again, as the loaded text says the servers.
	res.Notes = append(res.Notes, res.CheckLoaded(cfg.Locations)...)
	res.Report(written, "").Write(stderr)
	if len(res.Paths) > 0 {
		fmt.Fprintln(stderr, "how each server was translated:")
		for _, p := range res.Paths {
			fmt.Fprintln(stderr, "  "+p)
		}
	}
	if n := res.Blocking(); n > 0 {
		// The files are written, for the operator to finish; a script
		// that imports and deploys stops here.
		fmt.Fprintf(stderr, "redirectd import nginx: %s above (%q, %q) decide a redirect or a forward: the config is written, but does not answer every request as nginx does; fix those first\n",
			plural.Count(n, "note"), importer.LeftOut, importer.Differs)
		return 1
	}
	return 0
}

// parseNginxFiles parses the files named, each once: a file that another
// one named includes (nginx.conf and its sites-enabled/site.conf, both
// given) is read where it is included and skipped as an argument, as is a
// file named twice. Reading it twice made every server, map and note of it
// twice over, and the report listed each untranslated construct twice.
func parseNginxFiles(names, allow []string, stderr io.Writer) ([]*nginx.Directive, error) {
	type parsed struct {
		name  string
		dirs  []*nginx.Directive
		files map[string]bool
	}
	var all []parsed
	for _, name := range names {
		d, err := nginx.ParseFile(name, allow...)
		if err != nil {
			return nil, err
		}
		files := map[string]bool{}
		collectFiles(d, files)
		all = append(all, parsed{name, d, files})
	}
	var dirs []*nginx.Directive
	for i, p := range all {
		abs, _ := filepath.Abs(p.name)
		dup := ""
		for j, q := range all {
			if j == i || !q.files[abs] {
				continue
			}
			// Another file that includes this one, or this file named
			// earlier.
			if qabs, _ := filepath.Abs(q.name); qabs != abs || j < i {
				dup = q.name
				break
			}
		}
		if dup != "" {
			fmt.Fprintf(stderr, "redirectd import nginx: %s is read through %s; not read again\n", p.name, dup)
			continue
		}
		dirs = append(dirs, p.dirs...)
	}
	return dirs, nil
}

// collectFiles adds the absolute path of every file a directive comes from.
func collectFiles(dirs []*nginx.Directive, files map[string]bool) {
	for _, d := range dirs {
		if abs, err := filepath.Abs(d.File); err == nil {
			files[abs] = true
		}
		collectFiles(d.Block, files)
	}
}
