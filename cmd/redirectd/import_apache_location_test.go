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
	t.Parallel()
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
	t.Parallel()
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

// apacheLocationRewrite are <Location> sections holding RewriteRules:
// Apache runs them in its per-directory round, the pattern matched with
// the file-system path, the last matching section's rules replacing
// the others', before the sections' Redirects and after the server's.
const apacheLocationRewrite = `Redirect 301 /lx/red /lx-red
<Location /lx>
  RewriteEngine On
  RewriteCond %{QUERY_STRING} ^k=(.*)$
  RewriteRule /lx/q$ /lq/%1? [R=302,L]
  RewriteRule www/lx/(.*)$ /from-file/$1 [R=301,L]
  RewriteRule ^/lx/(.*)$ /never/$1 [R=302,L]
  Redirect 302 /lx/alias /lx-alias
</Location>
<Location /lx/deep>
  RewriteEngine On
  RewriteRule deep/(.*)\.html$ /deep-html/$1 [R=302,NE,L]
</Location>
<LocationMatch "^/lm/[0-9]+">
  RewriteEngine On
  RewriteRule /lm/([0-9]+)(.*)$ https://ex.test/num/$1$2 [R=308,L]
  RewriteRule . - [F]
</LocationMatch>
<Location /lg>
  RewriteEngine On
  RewriteRule ^ - [G]
</Location>
<Location /loff>
  RewriteRule ^ /x [R]
</Location>
`

// TestImportApacheLocationRewrite: RewriteRules inside <Location> and
// <LocationMatch>, with a .htaccess of Redirects only and without one,
// against a real Apache.
func TestImportApacheLocationRewrite(t *testing.T) {
	t.Parallel()
	paths := []string{"/lx/a", "/lx/a/b?x=1", "/lx/q?k=v", "/lx/q?k=", "/lx/alias", "/lx/red", "/lx", "/lxx/a", "/lx/deep/a.html", "/lx/deep/b.txt",
		"/lx/deep", "/lm/12", "/lm/12/x?y", "/lm/ab", "/lg", "/lg/x", "/loff", "/lx/caf%C3%A9", "/lx/a%20b", "/LX/a", "/sub/c", "/lx/deep/a%20b.html"}
	for _, tc := range []struct{ name, htaccess string }{
		{"with a .htaccess of Redirects", "Redirect 301 /lx/c /htaccess-c\n"},
		{"without", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := func(dir, addr string) map[string]string {
				f := map[string]string{"httpd.conf": apacheConf(dir, addr, apacheLocationRewrite), "www/sub/.htaccess": "Redirect 302 /sub/c /sub-c\n"}
				if tc.htaccess != "" {
					f["www/.htaccess"] = tc.htaccess
				}
				return f
			}
			ht := []string{"/sub=www/sub/.htaccess"}
			if tc.htaccess != "" {
				ht = append(ht, "/=www/.htaccess")
			}
			apacheRoundTripReport(t, files, ht, []string{"example.test"}, append(paths, "/lx/c"), nil, false, 3)
		})
	}
}
