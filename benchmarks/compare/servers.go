package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/redirectd/redirectd/benchmarks/rules"
	"github.com/redirectd/redirectd/matcher"
)

// Instance is one server process to configure: where its files go, the
// rules, its port, and what differs between the scenarios.
type Instance struct {
	Dir    string // a directory of its own, created by the caller
	Spec   rules.Spec
	Port   int
	CPUs   int    // worker processes, threads or GOMAXPROCS
	Origin string // host:port misses are forwarded to; "" answers 404
	// AccessLog is a file to log every request to; "" turns logging off.
	AccessLog string
	// Sitemap, when not 0, replaces the rules with the first Sitemap keys
	// of the sitemap corpus (rules.Sitemap), configured as the site does.
	Sitemap int
	// TLS, when set, adds an HTTPS listener on TLSPort (chosen by launch)
	// with this certificate, serving the same rules as Port.
	TLS     *TLSFiles
	TLSPort int
	// Model: redirectd's config in nginx's model (modelTables); only
	// redirectd is started with it.
	Model bool
}

// ready is the request whose first correct answer marks the server as
// started: the last exact rule, or the sitemap's first key.
func (in Instance) ready() Req {
	if in.Sitemap > 0 {
		e := rules.SitemapFirst()
		return Req{Path: e.Path, Raw: simpleRequest(e.Path, false), Want: Want{Status: 301, Location: e.Location}}
	}
	hit := exactHit(in.Spec)
	return Req{Path: hit, Raw: simpleRequest(hit, false), Want: expect(in.Spec, hit)}
}

// errNoSitemap is returned by Configure for a server not measured on the
// sitemap corpus; the harness shows it as skipped.
var errNoSitemap = errors.New("not run on the sitemap corpus")

// sitemapFile is the name of the corpus's map file in an instance's
// directory, the site's include file.
const sitemapFile = "move.conf"

// writeSitemap writes the first n keys of the corpus into dir as nginx's
// include file (the site's own form), which redirectd reads as it is.
func writeSitemap(dir string, n int) error {
	return writeFile(join(dir, sitemapFile), func(w *bufio.Writer) error { return rules.WriteSitemapMap(w, n) })
}

// Server is one of the compared servers. Configure writes its config for
// in (in the form it serves fastest) and returns the command that starts it
// in the foreground and the environment it needs beyond the harness's own.
type Server interface {
	Name() string
	Package() string // the Debian package; "" for redirectd, which is built
	Program() string
	Version() string
	Configure(in Instance) (argv, env []string, err error)
}

// writeFile writes a generated file through a buffer; fill writes into it.
func writeFile(path string, fill func(w *bufio.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if err := fill(w); err != nil {
		f.Close()
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	return f.Close()
}

// byKind splits the generated rules into exact, prefix and regex.
func byKind(s rules.Spec) (exact, prefix, regex []matcher.Rule) {
	for _, r := range rules.Rules(s) {
		switch r.Kind {
		case matcher.Exact:
			exact = append(exact, r)
		case matcher.Prefix:
			prefix = append(prefix, r)
		default:
			regex = append(regex, r)
		}
	}
	return exact, prefix, regex
}

// allServers lists the servers in the order they run.
func allServers(redirectdBin string) []Server {
	return []Server{
		&redirectd{name: "redirectd", bin: redirectdBin},
		nginx{}, haproxy{}, caddy{},
	}
}

func mkdirs(dirs ...string) error {
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	return nil
}

func join(dir, name string) string { return filepath.Join(dir, name) }
