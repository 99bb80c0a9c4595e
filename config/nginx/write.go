package nginx

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/redirectd/redirectd/config/importer"
	"github.com/redirectd/redirectd/config/syntax"
	"github.com/redirectd/redirectd/internal/plural"
	"github.com/redirectd/redirectd/matcher"
)

// ConfigName is the file Write writes the config to.
const ConfigName = "redirectd.toml"

// Write writes res into dir as redirectd.toml, with the entries of each
// nginx map used at one place in map files beside it. header is written
// as the config's first comment. It returns the paths it wrote.
func Write(dir string, res *Result, header string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("cannot create output folder: %w", err)
	}
	var b strings.Builder
	writeHeader(&b, header)
	written := []string{}
	mapNames := map[string]int{}
	for i := 0; i < len(res.Rules); {
		r := &res.Rules[i]
		j := i + 1
		for r.Map != "" && j < len(res.Rules) && sameMap(r, &res.Rules[j]) {
			j++
		}
		if r.Form == FormServerEnd {
			if err := writeServerEnd(&b, dir, r, &written); err != nil {
				return nil, err
			}
			i = j
			continue
		}
		if r.Map == "" {
			writeRule(&b, r)
			i = j
			continue
		}
		file := mapFileName(r.Map, mapNames)
		var text strings.Builder
		name, use, _ := strings.Cut(r.Map, "@")
		if r.Form == FormLocationEnd {
			fmt.Fprintf(&text, "# Locations of the nginx server at %s that answer what their rules do not redirect themselves (404 or content): no redirect.\n", use[:strings.LastIndexByte(use, '/')])
		} else {
			fmt.Fprintf(&text, "# Entries of nginx map $%s (%s), used at %s.\n", name, res.Rules[i].Origin.Source(), use[:strings.LastIndexByte(use, '/')])
		}
		opts := r
		for _, x := range res.Rules[i:j] {
			key := x.From
			if x.Kind == matcher.Regex {
				key = "~" + key
				if x.CaseInsensitive {
					key = "~*" + x.From
				}
			}
			if opts.Pass && !x.Pass {
				opts = &x
			}
			fmt.Fprintf(&text, "%s %s;\n", syntax.Quote(key), syntax.Quote(x.To))
		}
		path := filepath.Join(dir, file)
		if err := os.WriteFile(path, []byte(text.String()), 0o644); err != nil {
			return nil, fmt.Errorf("cannot write map file: %w", err)
		}
		written = append(written, path)
		if r.Form == FormLocationEnd {
			importer.WriteMap(&b, "locations that nginx answers itself, from "+r.Origin.Source()+" on",
				importer.Map{File: file, Options: passOptions(r), Hosts: r.Hosts})
			i = j
			continue
		}
		m := importer.Map{File: file, Options: opts.options(), Hosts: opts.Hosts, KeyCase: r.Kind != matcher.Exact}
		// The map file's keys say exact or regex (~) themselves.
		m.Options.Kind = matcher.Exact
		if n := res.LeftOut[name]; n > 0 {
			// The import left out entries of this map (its report says
			// which and why): should the loader refuse one more, it
			// costs that entry, not the config.
			m.Skip = true
			m.SkipWhy = fmt.Sprintf("the import left out %s of nginx map $%s: see its report", plural.Count(n, "entry", "entries"), name)
		}
		importer.WriteMap(&b, fmt.Sprintf("%s of nginx map $%s, from %s", plural.Count(j-i, "entry", "entries"), name, r.Origin.Source()), m)
		i = j
	}
	if err := writeStructural(&b, res, locationMapFile(dir, mapNames, &written)); err != nil {
		return nil, err
	}
	writeListeners(&b, res, dir)
	path := filepath.Join(dir, ConfigName)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return nil, fmt.Errorf("cannot write config: %w", err)
	}
	return append([]string{path}, written...), nil
}

// writeHeader writes header as comment lines.
func writeHeader(b *strings.Builder, header string) {
	for _, line := range strings.Split(strings.TrimSpace(header), "\n") {
		b.WriteString("# " + line + "\n")
	}
}

// locationMapFile writes a [[location_map]]'s lines to a file of its
// own in dir and returns its name, added to written.
func locationMapFile(dir string, mapNames map[string]int, written *[]string) func(mp *nmap, text string) (string, error) {
	return func(mp *nmap, text string) (string, error) {
		file := mapFileName(mp.name, mapNames)
		path := filepath.Join(dir, file)
		if err := os.WriteFile(path, []byte(fmt.Sprintf("# Entries of nginx map $%s (%s).\n", mp.name, mp.d.Source())+text), 0o644); err != nil {
			return "", fmt.Errorf("cannot write map file: %w", err)
		}
		*written = append(*written, path)
		return file, nil
	}
}

// sameMap reports whether b can share a [[map]] with the group a starts:
// the same map use, kind and options (a "no redirect" entry has no status
// or query mode of its own).
func sameMap(a, b *Rule) bool {
	return a.Map == b.Map && a.Kind == b.Kind && (a.Pass || b.Pass || a.Status == b.Status && a.QueryString == b.QueryString) &&
		a.RequestURI == b.RequestURI && a.Scheme == b.Scheme && strings.Join(a.Hosts, ",") == strings.Join(b.Hosts, ",") &&
		(a.Pass || b.Pass || headersKey(a.Headers) == headersKey(b.Headers)) &&
		(a.Kind == matcher.Regex || a.CaseInsensitive == b.CaseInsensitive)
}

func mapFileName(group string, used map[string]int) string {
	name := strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return -1
	}, strings.Split(group, "@")[0])
	used[name]++
	if n := used[name]; n > 1 {
		return fmt.Sprintf("%s-%d.map", name, n)
	}
	return name + ".map"
}

func writeRule(b *strings.Builder, r *Rule) {
	importer.WriteRule(b, fmt.Sprintf("%s (%s)", r.Origin.Source(), r.Form), r.options(), r.Hosts)
}

// options is what the rule's [[rule]] or [[map]] table says.
func (r *Rule) options() matcher.Rule {
	x := matcher.Rule{Kind: r.Kind, From: r.From, To: r.To, Status: r.Status, CaseInsensitive: r.CaseInsensitive,
		QueryString: r.QueryString, RequestURI: r.RequestURI, Pass: r.Pass, Headers: r.Headers}
	if r.Pass {
		x.To, x.Status = "", 0
	}
	if r.Scheme != "" {
		x.When = &matcher.When{Scheme: r.Scheme}
	}
	return x
}

// passOptions are those of a map of "no redirect" entries for r's hosts
// and scheme.
func passOptions(r *Rule) matcher.Rule {
	x := matcher.Rule{Pass: true}
	if r.Scheme != "" {
		x.When = &matcher.When{Scheme: r.Scheme}
	}
	return x
}

// serverEndName is the map file of the no-redirect catch-all that ends a
// server's hosts (FormServerEnd): a [[rule]] cannot say "no redirect", a
// map entry of "" can, so every server's end is a [[map]] of this file
// with the server's hosts.
const serverEndName = "server-end.map"

func writeServerEnd(b *strings.Builder, dir string, r *Rule, written *[]string) error {
	path := filepath.Join(dir, serverEndName)
	if !slices.Contains(*written, path) {
		text := "# Every path, no redirect: the end of an nginx server's rules, so that a\n" +
			"# request they do not redirect is answered 404 or forwarded, as nginx\n" +
			"# answers it from that server, and not by another server's rules.\n~^ \"\";\n"
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			return fmt.Errorf("cannot write map file: %w", err)
		}
		*written = append(*written, path)
	}
	importer.WriteMap(b, r.Origin.Source()+": the end of this server's rules; other paths are not redirected",
		importer.Map{File: serverEndName, Options: passOptions(r), Hosts: r.Hosts})
	return nil
}

// writeListeners writes nginx's TLS port as [tls], with its certificates,
// and names its plain port; the [server] table is left to the operator,
// who may merge it with settings of their own.
func writeListeners(b *strings.Builder, res *Result, dir string) {
	writeGroups(b, res, dir)
	if res.Listen[1] == "" {
		return
	}
	if res.Listen[0] != "" {
		fmt.Fprintf(b, "\n# nginx's plain port; redirectd's is [server] listen (default %q):\n# [server]\n# listen = %s\n", "127.0.0.1:8080", importer.Quote(res.Listen[0]))
	}
	// A certificate that cannot be read would fail check and serve:
	// the whole table is then a comment, for the host that has the files.
	t := importer.TLS{Listen: res.Listen[1], Commented: len(res.Certificates) == 0} // [tls] with no certificate is refused
	for _, c := range res.Certificates {
		t.Commented = t.Commented || c.Missing
		t.Certificates = append(t.Certificates, importer.Certificate{Cert: fromDir(dir, c.Cert), Key: fromDir(dir, c.Key), Comment: c.Origin.Source()})
	}
	importer.WriteTLS(b, "nginx's TLS port", t)
}

// writeGroups writes the upstream groups, the default one first, and the
// routes that send each server's hosts and locations to theirs.
func writeGroups(b *strings.Builder, res *Result, dir string) {
	for _, g := range res.Groups {
		comment := g.Origin.Source() + ": proxy_pass " + g.Origin.Args[0]
		if g.Name == "default" {
			comment += "; the default server's location /, so every request no route sends elsewhere, and that no rule redirects, goes here"
		}
		importer.WriteUpstream(b, comment, importer.Upstream{Name: g.Name, Servers: g.Servers, Balance: g.Balance, HostHeader: g.HostHeader,
			TLSServerName: g.TLSServerName, CAFile: fromDir(dir, g.CAFile), ClientCertFile: fromDir(dir, g.ClientCert), ClientKeyFile: fromDir(dir, g.ClientKey), Commented: g.Unreadable, Limits: g.Limits})
	}
	for _, r := range res.Routes {
		importer.WriteRoute(b, r.Origin.Source()+": location "+strings.Join(r.Origin.Args, " "), r.Host, r.Prefix, r.Group.Name)
	}
}

// fromDir is a file the import read at path p (absolute, or relative to
// the current folder) as the config written into dir names it: redirectd
// reads a relative path from the config's folder, so `import nginx -o out
// conf/nginx.conf` writes conf/cert.pem as ../conf/cert.pem. An absolute
// path stays as nginx's config wrote it.
func fromDir(dir, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return abs
	}
	if r, err := filepath.Rel(absDir, abs); err == nil {
		return r
	}
	return abs
}
