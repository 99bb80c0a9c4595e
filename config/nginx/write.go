package nginx

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/redirectd/redirectd/config/importer"
)

// Write writes res into dir as redirectd.toml, with the entries of each
// long nginx map in a map file beside it. header is written
// as the config's first comment. It returns the paths it wrote.
func Write(dir string, res *Result, header string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("cannot create output folder: %w", err)
	}
	var b strings.Builder
	importer.WriteHeader(&b, header)
	written := []string{}
	mapNames := map[string]int{}
	if err := writeStructural(&b, res, locationMapFile(dir, mapNames, &written)); err != nil {
		return nil, err
	}
	writeListeners(&b, res, dir)
	path := filepath.Join(dir, importer.ConfigName)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return nil, fmt.Errorf("cannot write config: %w", err)
	}
	return append([]string{path}, written...), nil
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

// writeGroups writes the upstream groups.
func writeGroups(b *strings.Builder, res *Result, dir string) {
	for _, g := range res.Groups {
		comment := g.Origin.Source() + ": proxy_pass " + g.Origin.Args[0]
		importer.WriteUpstream(b, comment, importer.Upstream{Name: g.Name, Servers: g.Servers, Balance: g.Balance, HostHeader: g.HostHeader,
			TLSServerName: g.TLSServerName, CAFile: fromDir(dir, g.CAFile), ClientCertFile: fromDir(dir, g.ClientCert), ClientKeyFile: fromDir(dir, g.ClientKey), Commented: g.Unreadable, Limits: g.Limits})
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
