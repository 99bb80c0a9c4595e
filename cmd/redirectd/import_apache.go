package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/config/apache"
	"github.com/redirectd/redirectd/config/importer"
)

// importApache translates Apache server configs and .htaccess files into
// DIR/redirectd.toml, loads it as check would and prints the report; it
// exits 1 when a directive that decides a redirect is left out.
func importApache(args []string, _, stderr io.Writer) int {
	flags := newFlags("import apache", stderr)
	out := flags.String("o", ".", "write redirectd.toml into `dir`")
	force := flags.Bool("force", false, "replace the redirectd.toml of an earlier import in the -o dir")
	var allow []string
	flags.Func("include-dir", "also follow Include into `dir` (repeatable); by default only the folder of each file named is read", func(dir string) error {
		allow = append(allow, dir)
		return nil
	})
	var hts []apache.HTAccess
	flags.Func("htaccess", "a .htaccess file and the URL path of its directory, `URLDIR=FILE` (repeatable)", func(v string) error {
		dir, file, ok := strings.Cut(v, "=")
		if !ok || !strings.HasPrefix(dir, "/") || file == "" {
			return fmt.Errorf("want URLDIR=FILE, such as /=/var/www/html/.htaccess")
		}
		hts = append(hts, apache.HTAccess{Dir: dir, File: file})
		return nil
	})
	var trees []string
	flags.Func("htaccess-tree", "read every .htaccess under `dir`, the DocumentRoot: dir/blog/.htaccess applies to /blog (repeatable)", func(dir string) error {
		trees = append(trees, dir)
		return nil
	})
	names, err := parseArgs(flags, args)
	if err != nil {
		return parseExit(err)
	}
	for _, dir := range trees {
		found, err := apache.FindHTAccess(dir)
		if err != nil {
			fmt.Fprintf(stderr, "redirectd import apache: %v\n", err)
			return 1
		}
		hts = append(hts, found...)
	}
	if len(names) == 0 && len(hts) == 0 {
		fmt.Fprintln(stderr, "redirectd import apache: give the Apache config file(s), such as /etc/apache2/apache2.conf, -htaccess /=FILE or -htaccess-tree DOCROOT")
		return 2
	}
	target := filepath.Join(*out, importer.ConfigName)
	if err := refuseOverwrite(target, *force); err != nil {
		fmt.Fprintf(stderr, "redirectd import apache: %v\n", err)
		return 2
	}
	var conf []*apache.Directive
	for _, n := range names {
		d, err := apache.ParseFile(n, allow...)
		if err != nil {
			fmt.Fprintf(stderr, "redirectd import apache: %v\n", err)
			return 1
		}
		conf = append(conf, d...)
	}
	for i, h := range hts {
		// A .htaccess includes nothing: it is read alone.
		d, err := apache.ParseFile(h.File, h.File)
		if err != nil {
			fmt.Fprintf(stderr, "redirectd import apache: %v\n", err)
			return 1
		}
		hts[i].Dirs = d
	}
	res := apache.Translate(conf, hts)
	all := append(append([]string{}, names...), hts2names(hts)...)
	written, err := apache.Write(*out, res, fmt.Sprintf("Imported from %s by redirectd import apache.\nEach step names the Apache directive it comes from.", strings.Join(all, " ")))
	if err != nil {
		fmt.Fprintf(stderr, "redirectd import apache: %v\n", err)
		return 1
	}
	cfg, err := config.Load(written)
	if err != nil {
		return writtenDoesNotLoad(stderr, "import apache", err)
	}
	return reportApache(res, cfg, written, stderr)
}

// reportApache runs the self-check on the config as loaded, prints the
// report and returns the exit status: 1 where a directive that decides
// a redirect is left out or an answer differs from the model of
// Apache's.
func reportApache(res *apache.Result, cfg *config.Config, written string, stderr io.Writer) int {
	st := res.SelfCheck(cfg.Locations)
	(&importer.Report{Files: []string{written}, Forms: res.Forms, Notes: res.Notes}).Write(stderr)
	fmt.Fprintf(stderr, "self-check: %d requests made from the rules, %d answered by the model of Apache and compared, %d differ\n", st.Asked, st.Compared, st.Differ)
	code := 0
	if res.LeftOut() {
		fmt.Fprintln(stderr, "redirectd import apache: directives that decide a redirect were left out (listed above)")
		code = 1
	}
	if res.Differs() {
		fmt.Fprintln(stderr, "redirectd import apache: the written config answers some requests otherwise than Apache (listed above)")
		code = 1
	}
	return code
}

func hts2names(hts []apache.HTAccess) []string {
	var out []string
	for _, h := range hts {
		out = append(out, h.Dir+"="+h.File)
	}
	return out
}
