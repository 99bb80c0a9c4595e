package main

import (
	"fmt"
	"strings"
	"testing"
)

// apacheLocationSections are a main server's <Location> and
// <LocationMatch> sections holding Redirects of each form: a path's, a
// regex's, the section's own target, a status alone; nested and
// overlapping with a .htaccess's Redirects.
const apacheLocationSections = `<Location /old>
    Redirect 301 /old/a /new-a
    RedirectMatch 302 ^/old/(b.*)$ /new/$1
</Location>
<Location /gone>
    Redirect gone
</Location>
<Location /moved>
    Redirect permanent https://example.test/elsewhere
</Location>
<Location /moved/q/>
    Redirect 307 /with?query=1
</Location>
<LocationMatch "^/match/[0-9]+$">
    Redirect 302 /match /m
</LocationMatch>
<Location /old/x>
    Redirect 302 /old/x/y /deeper
    Redirect 302 /old/a /from-x
</Location>
<Location ~ "\.pdf$">
    Redirect seeother /docs/ /pdf/
</Location>
`

// TestImportApacheLocation asks a real Apache and the import the
// sections' paths, with a .htaccess at the DocumentRoot whose Redirects
// they come before, and without one.
func TestImportApacheLocation(t *testing.T) {
	paths := []string{"/old/a", "/old/a/z?k=v", "/old/b1", "/old/c", "/older/a", "/old", "/gone", "/gone/x", "/gonex", "/moved", "/moved/x?q=1",
		"/moved/q/r?a=b", "/moved/q", "/match/12", "/match/ab", "/match/12/x", "/old/x/y", "/old/x/y/z", "/old/x/a", "/OLD/a",
		"/docs/a.pdf", "/docs/a.pdf/x", "/docs/b.html", "/old//a", "/old/./a", "/sub/c", "/sub/old"}
	for _, tc := range []struct{ name, htaccess string }{
		{"with a .htaccess", "Redirect 301 /old/c /htaccess-c\nRedirect 301 /old/a /htaccess-a\nRewriteEngine On\nRewriteRule ^gone/x$ /rewritten-gone [R=302,L]\n"},
		{"without", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := func(dir, addr string) map[string]string {
				f := map[string]string{"httpd.conf": apacheConf(dir, addr, apacheLocationSections), "www/sub/.htaccess": "Redirect 302 /sub/c /sub-c\n"}
				if tc.htaccess != "" {
					f["www/.htaccess"] = tc.htaccess
				}
				return f
			}
			ht := []string{"/sub=www/sub/.htaccess"}
			if tc.htaccess != "" {
				ht = append(ht, "/=www/.htaccess")
			}
			apacheRoundTripReport(t, files, ht, []string{"example.test"}, paths, nil, false, 3)
		})
	}
}

// TestImportApacheLocationVirtualHost: a virtual host's own <Location>
// sections, tried before the main server's it inherits, against a real
// Apache.
func TestImportApacheLocationVirtualHost(t *testing.T) {
	files := func(dir, addr string) map[string]string {
		_, port, _ := strings.Cut(addr, ":")
		server := apacheLocationSections + fmt.Sprintf(`<VirtualHost *:%[1]s>
  ServerName vh.test
  Redirect 301 /plain /vh-plain
  <Location /old>
    Redirect 302 /old/a /vh-a
  </Location>
  <Location /vh-only>
    Redirect 308 https://vh.test/elsewhere
  </Location>
</VirtualHost>
<VirtualHost *:%[1]s>
  ServerName other.test
</VirtualHost>
`, port)
		return map[string]string{"httpd.conf": apacheConf(dir, addr, server), "www/index.html": "home\n"}
	}
	paths := []string{"/old/a", "/old/b1", "/old/c", "/vh-only", "/vh-only/x?y=1", "/moved", "/gone", "/plain", "/plain/x", "/match/12", "/old/x/y"}
	apacheRoundTripReport(t, files, nil, []string{"vh.test", "other.test"}, paths, nil, false, 3)
}
