package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/redirectd/redirectd/engine/testport"
)

// TestImportApachePorts asks a real Apache and its import the same
// requests with Host headers naming no port, the scheme's default, the
// port each server listens on and others, and compares the Locations to
// a path whole, port included: Apache (UseCanonicalName Off, its
// default) writes the Host's name and port, none when it names none,
// whatever port it listens on, and so does the import's config
// (redirect_port = "host"). The differences config/apache/README.md
// gives are checked to be there and noted by the import: a ServerName
// with a port (Apache writes it for a Host without one) and
// UseCanonicalName On (Apache writes the ServerName whatever the Host).
func TestImportApachePorts(t *testing.T) {
	t.Parallel()
	bin := findApache(t)
	dir := t.TempDir()
	addr := testport.Free(t)
	_, port, _ := strings.Cut(addr, ":")
	vhost := func(names string) string {
		return "<VirtualHost *:" + port + ">\n  " + names + "\n  Redirect 301 /a /b\n  RewriteEngine On\n  RewriteRule ^/r$ /s [R=302,L]\n</VirtualHost>\n"
	}
	writeFiles(t, dir, map[string]string{
		"httpd.conf": apacheConf(dir, addr, vhost("ServerName off.test")+vhost("ServerName port.test:8443")+
			vhost("ServerName on.test\n  UseCanonicalName On")),
		"www/.htaccess": "RewriteEngine On\nRewriteRule ^h$ /hh [R=301,L]\n",
	})
	conf := filepath.Join(dir, "httpd.conf")
	out := filepath.Join(dir, "out")
	code, _, stderr := runCmd("import", "apache", "-o", out, "-htaccess", "/="+filepath.Join(dir, "www/.htaccess"), conf)
	t.Logf("import:\n%s", stderr)
	if code != 0 {
		t.Fatalf("import: exit %d", code)
	}
	for _, note := range []string{"ServerName port.test:8443: for a request whose Host names no port Apache writes this port", "UseCanonicalName On: Apache writes a Location to a path with the server's own name"} {
		if !strings.Contains(stderr, note) {
			t.Errorf("the import's report lacks %q", note)
		}
	}
	runApache(t, bin, dir, conf, addr)
	srv := serveImport(t, out)
	_, srvPort, _ := strings.Cut(srv, ":")
	// known says why the Locations for a Host differ, "" where they
	// agree.
	known := func(name, host string) string {
		_, hostPort, _ := strings.Cut(host, ":")
		switch {
		case name == "port.test" && hostPort == "":
			return "ServerName port.test:8443: Apache writes :8443 for a Host without a port"
		case name == "on.test" && hostPort != "" && hostPort != "80":
			return "UseCanonicalName On: Apache writes on.test, without the Host's port"
		}
		return ""
	}
	compared := 0
	for _, name := range []string{"off.test", "port.test", "on.test"} {
		for _, host := range []string{name, name + ":80", name + ":8080", name + ":" + port, name + ":" + srvPort, strings.ToUpper(name) + ".:08080"} {
			for _, p := range []string{"/a", "/a/x?q=1", "/r", "/h"} {
				// The same Host to both: a client behind a balancer
				// names the balancer's port, not the server's.
				as, al := answerAny(t, addr, host, p, "http://"+host+p)
				rs, rl := answerAny(t, srv, host, p, "http://"+host+p)
				if as < 300 || as > 399 {
					t.Fatalf("Host %s, %s: apache %d %q, not a redirect: the fixture does not exercise the import", host, p, as, al)
				}
				compared++
				differ := as != rs || al != rl
				if why := known(name, host); why != "" {
					if !differ {
						t.Errorf("Host %s, %s: the known difference (%s) is gone: take it out of the test and config/apache/README.md", host, p, why)
					}
					continue
				}
				if differ {
					t.Errorf("Host %s, %s: apache %d %q, redirectd %d %q", host, p, as, al, rs, rl)
				}
			}
		}
	}
	t.Logf("%d requests compared", compared)
}
