package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/config/geoip"
	"github.com/redirectd/redirectd/config/importer"
	"github.com/redirectd/redirectd/config/netlify"
	"github.com/redirectd/redirectd/config/vercel"
)

// hostedLoaders read the files of each hosted service that import knows.
var hostedLoaders = map[string]func(file string, data []byte, opt importer.Options) ([]importer.Candidate, []importer.Note, error){
	"netlify": netlify.Load,
	"vercel":  vercel.Load,
}

// hostedUsage says which files each service's import reads.
var hostedUsage = map[string]string{
	"netlify": "give _redirects and/or netlify.toml, in the order Netlify reads them (_redirects first)",
	"vercel":  "give vercel.json",
}

// importHosted translates the redirect rules of a hosted service into one
// config, written to stdout (or -o FILE), checks that it loads as `check`
// loads it, and prints the report to stderr: rule counts and every rule
// or construct not translated, with file:line.
func importHosted(kind string, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("import "+kind, stderr)
	out := fs.String("o", "", "write the config to `file` instead of stdout")
	force := fs.Bool("force", false, "replace the -o file when it exists")
	var opt importer.Options
	if kind == "netlify" {
		fs.StringVar(&opt.GeoIP, "geoip", "", "translate Country= conditions, reading the MaxMind country database `file` ([geoip] database)")
	}
	names, err := parseArgs(fs, args)
	if err != nil {
		return parseExit(err)
	}
	if err := refuseOverwrite(*out, *force); err != nil {
		fmt.Fprintf(stderr, "redirectd import %s: %v\n", kind, err)
		return 2
	}
	if opt.GeoIP != "" {
		// The config is read from wherever -o puts it: name the database
		// by its absolute path, and check now that it opens.
		abs, err := filepath.Abs(opt.GeoIP)
		if err == nil {
			_, err = geoip.Open(abs)
		}
		if err != nil {
			fmt.Fprintf(stderr, "redirectd import %s: -geoip: %v; give the path of a GeoLite2-Country.mmdb or GeoIP2-Country.mmdb\n", kind, err)
			return 1
		}
		opt.GeoIP = abs
	}
	if len(names) == 0 {
		fmt.Fprintf(stderr, "redirectd import %s: %s\n", kind, hostedUsage[kind])
		return 2
	}
	var cands []importer.Candidate
	var notes []importer.Note
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			fmt.Fprintf(stderr, "redirectd import %s: %v\n", kind, err)
			return 1
		}
		c, n, err := hostedLoaders[kind](name, data, opt)
		if err != nil {
			fmt.Fprintf(stderr, "redirectd import %s: %v\n", kind, err)
			return 1
		}
		cands, notes = append(cands, c...), append(notes, n...)
	}
	res := importer.Order(cands)
	res.Notes = append(notes, res.Notes...)
	var buf bytes.Buffer
	header := fmt.Sprintf("Imported from %s by redirectd import %s.\nEach rule names the line it comes from.", strings.Join(names, " "), kind)
	importer.WriteFileOrderTOML(&buf, header, opt.GeoIP, res.Rules)
	// What is written must load, as `redirectd check` loads it.
	if err := loadsAsWritten(buf.Bytes()); err != nil {
		return writtenDoesNotLoad(stderr, "import "+kind, err)
	}
	w, written := stdout, "stdout"
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			fmt.Fprintf(stderr, "redirectd import %s: %v\n", kind, err)
			return 1
		}
		defer f.Close()
		w, written = f, *out
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		fmt.Fprintf(stderr, "redirectd import %s: %v\n", kind, err)
		return 1
	}
	res.Report(written).Write(stderr)
	return 0
}

// loadsAsWritten loads a written config as `check` would, from a file,
// so that its [geoip] database (an absolute path) is opened as serve
// opens it.
func loadsAsWritten(data []byte) error {
	dir, err := os.MkdirTemp("", "redirectd-import")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, importer.ConfigName)
	if err := os.WriteFile(file, data, 0o600); err != nil {
		return err
	}
	_, err = config.Load(file)
	return err
}
