package main

import (
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/redirectd/redirectd/matcher"
)

// explain prints which rule answers a URL and what it answers.
func explain(args []string, stdout, stderr io.Writer) int {
	fs, file := newFlags("explain", stderr)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if !needConfig(*file, stderr, "explain") {
		return 2
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "redirectd explain: give one URL, such as http://example.com/old?x=1 or /old")
		return 2
	}
	host, path, query, err := splitURL(fs.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "redirectd explain: %v\n", err)
		return 2
	}
	cfg, err := loadConfig(*file)
	if err != nil {
		fmt.Fprintf(stderr, "%v\n", err)
		return 1
	}
	var m matcher.Match
	if !cfg.Set.Lookup([]byte(host), []byte(path), &m) {
		fmt.Fprintf(stdout, "no rule matches host %q path %q: the answer is 404\n", host, path)
		return 0
	}
	r := m.Rule()
	fmt.Fprintf(stdout, "rule:     %s (%s %q", r.Source(), r.Kind, r.From)
	if r.Host != "" {
		fmt.Fprintf(stdout, ", host %q", r.Host)
	}
	fmt.Fprintf(stdout, ")\nstatus:   %d\nlocation: %s\n", m.Status(), m.AppendLocation(nil, []byte(query)))
	return 0
}

// splitURL splits an absolute URL or an origin-form path into host, path
// and query, keeping the path as a client would send it.
func splitURL(raw string) (host, path, query string, err error) {
	if strings.HasPrefix(raw, "/") {
		path, query, _ = strings.Cut(raw, "?")
		return "", path, query, nil
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "", "", "", fmt.Errorf("cannot read %q as a URL; give http://host/path or /path", raw)
	}
	return u.Host, u.EscapedPath(), u.RawQuery, nil
}
