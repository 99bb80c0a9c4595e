package main

import "testing"

// TestImportApacheRealForms: forms real sites' .htaccess files hold
// that the constructs' own fixtures do not, against a real Apache: a
// substitution that starts with an %{ENV:...} no rule sets (empty, so
// the rest, "://host/x", is relative and RewriteBase goes in front of
// it, the last RewriteBase of the file), one that an earlier rule's
// [E=] sets, and a RewriteCond whose only argument is quoted
// (mod_rewrite reads an empty pattern, which always matches).
func TestImportApacheRealForms(t *testing.T) {
	hosts := []string{"example.test"}
	tests := []struct {
		name     string
		files    map[string]string
		htaccess []string
		paths    []string
	}{
		{"an unset variable before the scheme", map[string]string{
			"www/.htaccess": "RewriteEngine On\nRewriteBase /\nRewriteRule ^old/(.*)$ %{ENV:PROTO}://%{HTTP_HOST}/new/$1 [L,R=301,NC]\n" +
				"RewriteRule ^old$ %{ENV:PROTO}://%{HTTP_HOST}/new/ [L,R=301]\nRewriteRule ^img/(.+)$ pics/$1 [L,R=301]\n" +
				"RewriteRule ^ - [E=SET:https]\nRewriteRule ^set/(.*)$ %{ENV:SET}://%{HTTP_HOST}/s/$1 [L,R=302]\n",
			"www/sub/.htaccess": "RewriteEngine On\nRewriteBase /sub/\nRewriteRule ^a/(.*)$ %{ENV:PROTO}://%{HTTP_HOST}/sub/b/$1 [L,R=301]\n" +
				"RewriteBase /sub/last/\nRewriteRule ^c$ %{ENV:PROTO}://%{HTTP_HOST}/d/ [L,R=301]\n",
		}, []string{"/=www/.htaccess", "/sub=www/sub/.htaccess"},
			[]string{"/old/x", "/OLD/a%20b", "/old", "/old?q=1", "/img/a.png", "/set/x", "/sub/a/x", "/sub/a/", "/sub/c", "/sub/c?k=v", "/other"}},
		{"a condition of one quoted argument", map[string]string{
			"www/.htaccess": "RewriteEngine On\nRewriteBase /\nRewriteCond \"! -f %{REQUEST_FILENAME}\"\nRewriteRule ^(.*)\\.adoc$ /$1.html [L,R=301]\n" +
				"RewriteCond \"%{HTTP_HOST}\"\nRewriteCond %{QUERY_STRING} ^k=(.*)$\nRewriteRule ^q$ /q/%1? [L,R=302]\n",
		}, []string{"/=www/.htaccess"},
			[]string{"/x.adoc", "/a/b.adoc?z=1", "/x.ADOC", "/q?k=v", "/q?z=1", "/q"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			apacheRoundTripReport(t, func(dir, addr string) map[string]string {
				files := map[string]string{"httpd.conf": apacheConf(dir, addr, "")}
				for k, v := range tc.files {
					files[k] = v
				}
				return files
			}, tc.htaccess, hosts, tc.paths, nil, false, 3)
		})
	}
}
