package apache

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/redirectd/redirectd/config/importer"
)

// TOML returns the config for res: nginx's $uri (Apache's decoded,
// slash-merged URL-path) for every rule, absolute Locations as Apache
// sends them, a [[server_rewrite]] per virtual host and a [[location]]
// per directory.
func (res *Result) TOML(header string) string {
	var b strings.Builder
	importer.WriteHeader(&b, header)
	b.WriteString("\n# Apache matches the decoded URL-path, slashes merged: nginx's $uri\n[rules.defaults]\nuri = \"nginx\"\n")
	b.WriteString("\n# Apache sends absolute Locations, with the Host's name and port (UseCanonicalName Off)\n[server]\nabsolute_redirect = true\nredirect_port = \"host\"\n")
	for _, m := range res.Maps {
		if m.Function != "" {
			fmt.Fprintf(&b, "\n# %s: %s\n[[location_map]]\nvariable = %s\nsource = %s\nfunction = %s\n",
				m.Source, m.funcWhat(), importer.Quote(m.Variable), importer.Quote("$"+m.Key), importer.Quote(m.Function))
			continue
		}
		fmt.Fprintf(&b, "\n# %s: RewriteMap %s; each value is the key, a tab, then Apache's value\n[[location_map]]\nvariable = %s\nsource = %s\n",
			m.Source, commentSafe(m.Name), importer.Quote(m.Variable), importer.Quote("$"+m.Key))
		if m.File != "" {
			fmt.Fprintf(&b, "file = %s\n", importer.Quote(m.File))
		} else {
			fmt.Fprintf(&b, "entries = %s\n", mapEntries(m.Entries))
		}
	}
	defaultHost := ""
	for _, s := range res.Servers {
		hosts := s.Hosts
		// One default server: the plain port's first virtual host's
		// name (the TLS port's first one is noted where it differs).
		if s.Default && len(hosts) > 0 && defaultHost != "" {
			if s.Hosts[0] != defaultHost {
				fmt.Fprintf(&b, "\n# %s: Apache's default for its port too; redirectd has one default server, %s\n", s.Source, defaultHost)
			}
		} else if s.Default && len(hosts) > 0 {
			defaultHost = s.Hosts[0]
			fmt.Fprintf(&b, "\n# %s: the first virtual host answers the hosts no other names\n[[server_rewrite]]\nhost = %s\ndefault_server = true\n", s.Source, importer.Quote(hosts[0]))
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
		writeHosts(&b, hosts)
		fmt.Fprintf(&b, "steps = %s\n", steps(s.Steps))
	}
	for _, f := range res.Fallbacks {
		fmt.Fprintf(&b, "\n# %s: ErrorDocument %d %s, Apache's 302 where the site answers %d\n[[rule]]\nmatch = \"regex\"\nfrom = '^'\nto = %s\nstatus = 302\nquery_string = \"replace\"\nfallback = true\nfallback_status = [%d]\n",
			f.Source, f.Code, commentSafe(f.To), f.Code, importer.Quote(f.To), f.Code)
		if len(f.Hosts) > 0 {
			fmt.Fprintf(&b, "host = [%s]\n", strings.Join(quoteAll(f.Hosts), ", "))
		}
	}
	writeProxies(&b, res)
	writeForwards(&b, res)
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
	if !strings.Contains(s, "'''") && !hasControl(s) {
		return "'''\n" + s + "\n'''"
	}
	return importer.Quote(s)
}

// mapEntries writes a map's entries as a TOML string.
func mapEntries(s string) string {
	if !strings.Contains(s, "'''") && !strings.HasSuffix(s, "'") && !hasControl(s) {
		return "'''\n" + s + "'''"
	}
	return importer.Quote(s)
}

// funcWhat says what a map of a function is, for its comment: its
// RewriteMap, or, for one the import adds (no RewriteMap names it),
// what needs it.
func (m *LocMap) funcWhat() string {
	if m.Made != "" {
		return commentSafe(m.Made)
	}
	return "RewriteMap " + commentSafe(m.Name) + " int:" + m.Function
}

// maxInlineMap is the most lines a map has inside the config; a longer
// one goes to a file of its own beside it.
const maxInlineMap = 20

// Write writes DIR/redirectd.toml, and a file per long RewriteMap, and
// returns the config's path.
func Write(dir string, res *Result, header string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	for _, m := range res.Maps {
		if m.Function != "" || strings.Count(m.Entries, "\n") <= maxInlineMap {
			continue
		}
		m.File = "rewritemap-" + varSafe(m.Name) + ".map"
		if err := os.WriteFile(filepath.Join(dir, m.File), []byte(m.Entries), 0o644); err != nil {
			return "", err
		}
	}
	name := filepath.Join(dir, importer.ConfigName)
	return name, os.WriteFile(name, []byte(res.TOML(header)), 0o644)
}

// quoteAll quotes each host name as a TOML string.
func quoteAll(hosts []string) []string {
	q := make([]string, len(hosts))
	for i, h := range hosts {
		q[i] = importer.Quote(h)
	}
	return q
}

// writeHosts writes a table's hosts key, none for no hosts.
func writeHosts(b *strings.Builder, hosts []string) {
	if len(hosts) > 0 {
		fmt.Fprintf(b, "hosts = [%s]\n", strings.Join(quoteAll(hosts), ", "))
	}
}

// hasControl reports whether s holds a control character a TOML
// literal string cannot: any but tab and newline.
func hasControl(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' && c != '\t' && c != '\n' || c == 0x7f {
			return true
		}
	}
	return false
}
