package apache

import (
	"strings"

	"github.com/redirectd/redirectd/config/importer"
)

// noteCanonicalNames notes where Apache's Location to a path would not
// take the request's Host name and port, which the import's config does
// (redirect_port = "host", as Apache's default UseCanonicalName Off):
// UseCanonicalName On or DNS, which write the ServerName (or the
// address's DNS name) whatever the Host, and a ServerName with a port,
// which Apache writes when the Host names none, where redirectd writes
// none (the scheme's default). config/apache/README.md says why.
func (t *translator) noteCanonicalNames(dirs []*Directive) {
	for _, d := range dirs {
		switch {
		case d.Section:
			t.noteCanonicalNames(d.Block)
		case d.Is("UseCanonicalName") && len(d.Args) == 1 && !strings.EqualFold(d.Args[0], "off"):
			t.note(d, importer.Caveat, "UseCanonicalName %s: Apache writes a Location to a path with the server's own name and port whatever the request's Host; redirectd writes the Host's name and port (redirect_port = \"host\", Apache's UseCanonicalName Off), the same only for requests naming the server's own", d.Args[0])
		case d.Is("ServerName") && len(d.Args) == 1 && hasPort(d.Args[0]):
			t.note(d, importer.Caveat, "ServerName %s: for a request whose Host names no port Apache writes this port in a Location to a path; redirectd writes none (the scheme's default) and, for a Host with a port, that port, as Apache does", d.Args[0])
		}
	}
}

// hasPort reports whether a ServerName ("[scheme://]name[:port]") names
// a port.
func hasPort(name string) bool {
	if _, rest, ok := strings.Cut(name, "://"); ok {
		name = rest
	}
	_, port, ok := strings.Cut(name, ":")
	return ok && port != ""
}
