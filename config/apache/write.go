package apache

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/redirectd/redirectd/config/importer"
)

// ConfigName is the file Write writes in its folder.
const ConfigName = "redirectd.toml"

// TOML returns the config for res: nginx's $uri (Apache's decoded,
// slash-merged URL-path) for every rule, absolute Locations as Apache
// sends them, a [[server_rewrite]] per virtual host and a [[location]]
// per directory.
func (res *Result) TOML(header string) string {
	var b strings.Builder
	for _, l := range strings.Split(header, "\n") {
		b.WriteString("# " + l + "\n")
	}
	b.WriteString("\n# Apache matches the decoded URL-path, slashes merged: nginx's $uri\n[rules.defaults]\nuri = \"nginx\"\n")
	b.WriteString("\n# Apache sends absolute Locations\n[server]\nabsolute_redirect = true\n")
	for _, s := range res.Servers {
		hosts := make([]string, len(s.Hosts))
		for i, h := range s.Hosts {
			hosts[i] = importer.Quote(h)
		}
		if s.Default && len(hosts) > 0 {
			fmt.Fprintf(&b, "\n# %s: the first virtual host answers the hosts no other names\n[[server_rewrite]]\nhost = %s\ndefault_server = true\n", s.Source, hosts[0])
			if len(s.Steps) > 0 {
				fmt.Fprintf(&b, "steps = %s\n", steps(s.Steps))
			}
			hosts = hosts[1:]
			if len(hosts) == 0 {
				continue
			}
		}
		if len(s.Steps) == 0 && len(hosts) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n# %s\n[[server_rewrite]]\n", s.Source)
		if len(hosts) > 0 {
			fmt.Fprintf(&b, "hosts = [%s]\n", strings.Join(hosts, ", "))
		}
		fmt.Fprintf(&b, "steps = %s\n", steps(s.Steps))
	}
	// Directories apply whichever host maps to them: host-less
	// locations belong to every server.
	if len(res.Servers) > 0 {
		for _, l := range res.Servers[0].Locations {
			fmt.Fprintf(&b, "\n# %s: the directory %s\n[[location]]\nmatch = \"prefix\"\npath = %s\n", l.Source, l.Path, importer.Quote(l.Path))
			if len(l.Steps) > 0 {
				fmt.Fprintf(&b, "steps = %s\n", steps(l.Steps))
			}
		}
	}
	return b.String()
}

func steps(lines []string) string {
	var kept []string
	for _, l := range lines {
		if strings.TrimSpace(l) != "#action" {
			kept = append(kept, l)
		}
	}
	s := strings.Join(kept, "\n")
	if !strings.Contains(s, "'''") {
		return "'''\n" + s + "\n'''"
	}
	return importer.Quote(s)
}

// Write writes DIR/redirectd.toml and returns its path.
func Write(dir string, res *Result, header string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	name := filepath.Join(dir, ConfigName)
	return name, os.WriteFile(name, []byte(res.TOML(header)), 0o644)
}
