package nginx

// Writing a server as the location model: its tables and step text.

import (
	"fmt"
	"strings"

	"github.com/redirectd/redirectd/config/importer"
)

// stepText is steps as nginx's own text, one directive a line, blocks
// (if) indented.
func stepText(steps []*Directive) string {
	var b strings.Builder
	writeSteps(&b, steps, "")
	return b.String()
}

// writeSteps writes steps as stepText does, each line after indent.
func writeSteps(b *strings.Builder, steps []*Directive, indent string) {
	for _, d := range steps {
		// A map's key is the directive's name as the parser reads it:
		// quoted where it holds a space ("~^/a $" /b;).
		b.WriteString(indent + quoteArg(d.Name))
		for _, a := range d.Args {
			b.WriteString(" " + quoteArg(a))
		}
		if !d.IsBlock {
			b.WriteString(";\n")
			continue
		}
		b.WriteString(" {\n")
		writeSteps(b, d.Block, indent+"    ")
		b.WriteString(indent + "}\n")
	}
}

// quoteArg writes an argument so that nginx's tokenizer (and the model's)
// reads it back as it is: in double quotes, with '"' and '\' escaped,
// when it holds what would end or start a word.
func quoteArg(a string) string {
	plain := a != "" && !strings.ContainsAny(a, " \t\r\n;{}\"'") && a[0] != '#'
	for i := 0; plain && i < len(a); i++ {
		// nginx reads \", \', \\, \t, \r and \n as escapes, quoted or
		// not, and a final \ escapes what follows; \d and the like stay.
		plain = a[i] != '\\' || i+1 < len(a) && !strings.ContainsRune("\"'\\trn", rune(a[i+1]))
	}
	if plain {
		return a
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(a) + `"`
}

// maxInlineMap is the most lines of a map written in the config itself;
// a longer one goes to a file beside it, as nginx's included map files.
const maxInlineMap = 20

// writeStructural writes the structural servers' tables and the rule
// set's settings they need.
func writeStructural(b *strings.Builder, res *Result, mapFile func(mp *nmap, text string) (string, error)) error {
	if res.NginxURI {
		b.WriteString("\n# The location model matches nginx's $uri (decoded, dot segments resolved")
		if res.KeepSlashes {
			b.WriteString(", merge_slashes off")
		}
		b.WriteString(")\n[rules.defaults]\nuri = \"nginx\"\n")
		if res.KeepSlashes {
			b.WriteString("merge_slashes = false\n")
		}
	}
	if res.AbsoluteRedirect {
		b.WriteString("\n# nginx's absolute_redirect on (its default): a path Location is sent as http(s)://host[:port]/path\n[server]\nabsolute_redirect = true\n")
	}
	for _, mp := range allMaps(res.Structural) {
		fmt.Fprintf(b, "\n# %s: map %s %s\n[[location_map]]\nsource = %s\nvariable = %s\n", mp.d.Source(), commentSafe(mp.d.Args[0]), commentSafe(mp.d.Args[1]),
			importer.Quote(mp.d.Args[0]), importer.Quote(mp.d.Args[1]))
		text := stepText(mp.lines())
		if mapFile == nil || len(mp.lines()) <= maxInlineMap {
			fmt.Fprintf(b, "entries = %s\n", stepsString(text))
			continue
		}
		file, err := mapFile(mp, text)
		if err != nil {
			return err
		}
		fmt.Fprintf(b, "file = %s\n", importer.Quote(file))
	}
	for _, st := range res.Structural {
		hosts := make([]string, len(st.Hosts))
		for i, h := range st.Hosts {
			hosts[i] = importer.Quote(h)
		}
		hostList := "[" + strings.Join(hosts, ", ") + "]"
		if st.Hosts == nil {
			hostList = ""
		}
		scheme := ""
		if st.Scheme != "" {
			scheme = fmt.Sprintf("scheme = %q\n", st.Scheme)
		}
		if st.Default {
			// default_server takes one host: the first, in a table
			// of its own. A server on both kinds of port that is the
			// default of one only is two servers there, one per
			// scheme: the table says which is the default.
			defScheme, partial := scheme, st.DefaultScheme != ""
			if partial {
				defScheme = fmt.Sprintf("scheme = %q\n", st.DefaultScheme)
			}
			fmt.Fprintf(b, "\n# %s: %s, nginx's default server: it answers the hosts no server names\n[[server_rewrite]]\nhost = %s\n%sdefault_server = true\n", st.Server.Source(), serverLabel(st.Server), hosts[0], defScheme)
			if !partial {
				if len(st.Steps) > 0 {
					fmt.Fprintf(b, "steps = %s\n", stepsString(stepText(st.Steps)))
				}
				hosts = hosts[1:]
			}
		}
		if len(st.Steps) > 0 && (len(hosts) > 0 || st.Hosts == nil) {
			fmt.Fprintf(b, "\n# %s: %s, its rewrite phase\n[[server_rewrite]]\n", st.Server.Source(), serverLabel(st.Server))
			if hostList != "" {
				hostList := "[" + strings.Join(hosts, ", ") + "]"
				fmt.Fprintf(b, "hosts = %s\n", hostList)
			}
			fmt.Fprintf(b, "%ssteps = %s\n", scheme, stepsString(stepText(st.Steps)))
		}
		for _, l := range st.Locations {
			writeStructLoc(b, l, "location", hostList, scheme)
		}
	}
	return nil
}

// writeStructLoc writes location l as a table (nested ones as sub-tables).
func writeStructLoc(b *strings.Builder, l *StructLoc, table, hostList, scheme string) {
	fmt.Fprintf(b, "\n# %s: location %s\n[[%s]]\n", l.D.Source(), commentSafe(strings.Join(l.D.Args, " ")), table)
	if hostList != "" {
		fmt.Fprintf(b, "hosts = %s\n", hostList)
	}
	b.WriteString(scheme)
	fmt.Fprintf(b, "match = %q\npath = %s\n", l.Match, importer.Quote(l.Path))
	if len(l.Steps) > 0 {
		fmt.Fprintf(b, "steps = %s\n", stepsString(stepText(l.Steps)))
	}
	if l.Group != nil {
		fmt.Fprintf(b, "upstream = %s\n", importer.Quote(l.Group.Name))
		if l.HasURI {
			fmt.Fprintf(b, "upstream_uri = %s\n", importer.Quote(l.URI))
		}
		if l.Intercept {
			b.WriteString("intercept_errors = true\n")
		}
	}
	for _, n := range l.Locations {
		writeStructLoc(b, n, table+".location", "", "")
	}
}

// stepsString is steps text as a TOML string: a multi-line literal one
// where it can be, as a person would write it.
func stepsString(s string) string {
	if !strings.Contains(s, "'''") && commentSafe(strings.ReplaceAll(s, "\n", " ")) == strings.ReplaceAll(s, "\n", " ") && !strings.HasSuffix(s, "'") {
		return "'''\n" + s + "'''"
	}
	return importer.Quote(s)
}

// commentSafe is s with the control characters TOML refuses (all but
// tab) written as '?', for a comment or a literal string.
func commentSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\t' || r == 0x7f {
			return '?'
		}
		return r
	}, s)
}
