package main

import (
	"bufio"
	"fmt"
	"os/exec"
	"slices"
	"strings"

	"github.com/redirectd/redirectd/benchmarks/rules"
	"github.com/redirectd/redirectd/matcher"
)

// haproxy serves exact rules from a map_str (a tree), prefix rules from
// map_beg (longest prefix, a tree) and regex rules from map_regm (file
// order, the value takes the groups as \1), each read once into a variable
// by `http-request set-var` and answered by `http-request redirect`.
type haproxy struct{}

func (haproxy) Name() string    { return "haproxy" }
func (haproxy) Package() string { return "haproxy" }
func (haproxy) Program() string { return "haproxy" }

func (haproxy) Version() string {
	out, _ := exec.Command("haproxy", "-v").Output()
	first, _, _ := strings.Cut(string(out), "\n") // HAProxy version 2.6.12-1+deb12u4 2026/10/17 - https://haproxy.org/
	if f := strings.Fields(strings.TrimPrefix(first, "HAProxy version ")); len(f) > 0 {
		return f[0]
	}
	return "unknown"
}

func (haproxy) Configure(in Instance) ([]string, []string, error) {
	if in.Sitemap > 0 {
		return haproxySitemap(in)
	}
	exact, prefix, regex := byKind(in.Spec)
	if err := writeFile(join(in.Dir, "exact.map"), func(w *bufio.Writer) error {
		for _, r := range exact {
			fmt.Fprintf(w, "%s %s\n", r.From, r.To)
		}
		return nil
	}); err != nil {
		return nil, nil, err
	}
	order, err := haproxyPrefixMaps(in.Dir, prefix)
	if err != nil {
		return nil, nil, err
	}
	if err := writeFile(join(in.Dir, "regex.map"), func(w *bufio.Writer) error {
		for _, r := range regex {
			fmt.Fprintf(w, "%s %s\n", r.From, strings.NewReplacer("$1", `\1`, "$2", `\2`).Replace(r.To))
		}
		return nil
	}); err != nil {
		return nil, nil, err
	}

	path := join(in.Dir, "haproxy.cfg")
	err = writeFile(path, func(w *bufio.Writer) error {
		fmt.Fprintf(w, "global\n  nbthread %d\n  maxconn 5000\n", in.CPUs)
		if in.AccessLog != "" {
			w.WriteString("  log stdout format raw local0\n") // the harness sends stdout to the log file
		}
		w.WriteString("defaults\n  mode http\n  timeout connect 5s\n  timeout client 30s\n  timeout server 30s\n  timeout http-keep-alive 30s\n")
		if in.AccessLog != "" {
			w.WriteString("  log global\n  option httplog\n")
		}
		fmt.Fprintf(w, "frontend fe\n  bind 127.0.0.1:%d\n", in.Port)
		if in.TLS != nil {
			// Defaults otherwise: session tickets on, a 20,000-entry
			// session cache. ALPN h2 first, as redirectd and nginx offer
			// it (the h2-* scenarios; wrk offers no ALPN and gets 1.1).
			fmt.Fprintf(w, "  bind %s ssl crt %s ssl-min-ver TLSv1.2 alpn h2,http/1.1\n", tlsListen(in), in.TLS.Combined)
		}
		fmt.Fprintf(w, "  http-request set-var(txn.to) path,map_str(%s)\n", join(in.Dir, "exact.map"))
		w.WriteString("  http-request redirect location %[var(txn.to)] code 301 if { var(txn.to) -m found }\n")
		for _, d := range order {
			fmt.Fprintf(w, "  http-request set-var(txn.p%d) path,map_beg(%s)\n", d, join(in.Dir, fmt.Sprintf("prefix-%d.map", d)))
			fmt.Fprintf(w, "  http-request redirect location %%[var(txn.p%d)]%%[path,field(%d,/,0)] code 302 if { var(txn.p%d) -m found }\n", d, d+2, d)
		}
		if len(regex) > 0 { // the proxy scenario has none: no empty lookup
			fmt.Fprintf(w, "  http-request set-var(txn.rx) path,map_regm(%s)\n", join(in.Dir, "regex.map"))
			w.WriteString("  http-request redirect location %[var(txn.rx)] code 308 if { var(txn.rx) -m found }\n")
		}
		if in.Origin != "" {
			fmt.Fprintf(w, "  default_backend origin\nbackend origin\n  http-reuse always\n  server o %s\n", in.Origin)
		} else {
			w.WriteString("  http-request return status 404 content-type text/plain string \"not found\"\n")
		}
		return nil
	})
	return []string{"haproxy", "-db", "-f", path}, nil, err
}

// haproxyPrefixMaps writes the prefix rules into dir, one map per depth,
// and returns the depths, deepest first.
//
// HAProxy 2.6 cannot cut a prefix of a length known only at run time
// (bytes() takes constants), so prefix rules are grouped by how many
// path segments they hold, one map per depth, and the rest of the path
// is field(depth+2,/,0). Deeper prefixes are longer and are tried first.
func haproxyPrefixMaps(dir string, prefix []matcher.Rule) ([]int, error) {
	depths := map[int][]string{}
	for _, r := range prefix {
		if !strings.HasSuffix(r.From, "/") {
			return nil, fmt.Errorf("haproxy config: prefix rule %q does not end in /; only whole path segments can be cut", r.From)
		}
		d := strings.Count(r.From, "/") - 1
		depths[d] = append(depths[d], fmt.Sprintf("%s %s\n", r.From, r.To))
	}
	var order []int
	for d, lines := range depths {
		order = append(order, d)
		if err := writeFile(join(dir, fmt.Sprintf("prefix-%d.map", d)), func(w *bufio.Writer) error {
			for _, l := range lines {
				w.WriteString(l)
			}
			return nil
		}); err != nil {
			return nil, err
		}
	}
	slices.Sort(order)
	slices.Reverse(order)
	return order, nil
}

// haproxySitemap serves the sitemap corpus from one map_regm, tried in file
// order, first match wins. map_regm, not map_reg: only map_regm fills \1
// (the corpus's $1), and map_reg answers a path it has seen from its LRU
// cache (tune.pattern.cache-size), which would time the cache in every
// one-path scenario. ~* keys become (?i) regexes.
func haproxySitemap(in Instance) ([]string, []string, error) {
	file := join(in.Dir, "sitemap.map")
	if err := writeFile(file, func(w *bufio.Writer) error {
		for _, e := range rules.Sitemap(in.Sitemap) {
			fmt.Fprintf(w, "%s %s\n", e.Regex(), strings.ReplaceAll(e.Target, "$1", `\1`))
		}
		return nil
	}); err != nil {
		return nil, nil, err
	}
	path := join(in.Dir, "haproxy.cfg")
	err := writeFile(path, func(w *bufio.Writer) error {
		fmt.Fprintf(w, "global\n  nbthread %d\n  maxconn 5000\n", in.CPUs)
		w.WriteString("defaults\n  mode http\n  timeout connect 5s\n  timeout client 30s\n  timeout server 30s\n  timeout http-keep-alive 30s\n")
		fmt.Fprintf(w, "frontend fe\n  bind 127.0.0.1:%d\n", in.Port)
		fmt.Fprintf(w, "  http-request set-var(txn.to) path,map_regm(%s)\n", file)
		w.WriteString("  http-request redirect location %[var(txn.to)] code 301 if { var(txn.to) -m found }\n")
		w.WriteString("  http-request return status 404 content-type text/plain string \"not found\"\n")
		return nil
	})
	return []string{"haproxy", "-db", "-f", path}, nil, err
}
