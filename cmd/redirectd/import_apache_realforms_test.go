package main

import "testing"

// TestImportApacheRealForms: forms real sites' .htaccess files hold
// that the constructs' own fixtures do not, against a real Apache: a
// substitution that starts with an %{ENV:...} no rule sets (empty, so
// the rest, "://host/x", is relative and RewriteBase goes in front of
// it, the last RewriteBase of the file), one that an earlier rule's
// [E=] sets, and a RewriteCond whose only argument is quoted
// (mod_rewrite reads an empty pattern, which always matches), and a
// Redirect of the path a RewriteRule rewrote internally (mod_alias's
// fixup runs after mod_rewrite's, on the request's own path), the
// Redirects of the new path's directory after an [END] rewrite (but no
// directory's RewriteRules), $0, and
// RewriteRules in an <If>/<ElseIf>/<Else> chain (the first section
// that holds replaces the directory's rules with its own, matched with
// the file-system path; of several chains, the last whose section that
// holds has rules; with RewriteOptions Inherit, in the section or the
// directory, the directory's rules after the section's, matched with
// the file-system path too).
func TestImportApacheRealForms(t *testing.T) {
	t.Parallel()
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
		{"a Redirect after an internal rewrite", map[string]string{
			"www/.htaccess": "RewriteEngine On\nRewriteRule ^a/(.*)$ b/$1 [L]\nRewriteRule ^p/(.*)$ /q/$1 [PT]\nRewriteRule ^b/x$ /from-b [R=302,L]\n" +
				"RewriteRule ^plain\\.html$ other.html [L]\nRewriteRule ^end/(.*)$ /b/$1 [END]\n" +
				"Redirect 301 /a/x /new-a\nRedirect 301 /p /new-p\nRedirect 301 /b/y /new-b\nRedirectMatch 302 ^/a/(m.*)$ /match/$1\n" +
				"Redirect 302 /plain.html /redirected\nRedirect 302 /end/e /from-end\n",
		}, []string{"/=www/.htaccess"},
			[]string{"/a/x", "/a/x/y", "/a/y", "/a/z", "/a/mm?k=v", "/p/z", "/p", "/b/x", "/b/y", "/q/z", "/plain.html", "/end/e", "/end/x"}},
		{"Redirects after [END]", map[string]string{
			"www/.htaccess": "RewriteEngine On\nRewriteRule ^end/(.*)$ /b/$1 [END]\nRewriteRule ^endc/(.*)$ /c/$1 [END]\nRewriteRule ^top/(.*)$ /t/$1 [END]\n" +
				"RewriteRule ^t/r$ /from-t-rule [R=302,L]\nRedirect 301 /b/y /new-b\nRedirect 301 /end/z /from-end\nRedirect 301 /c/w /root-c-w\nRedirect 302 /t/k /root-t-k\n",
			"www/b/.htaccess": "Redirect 301 /b/s /sub-b-s\nRedirect 301 /b/y /sub-b-y\n",
			"www/c/.htaccess": "RewriteEngine On\nRewriteRule ^q$ /c-q [R=302]\nRedirect 301 /c/v /sub-c-v\n",
		}, []string{"/=www/.htaccess", "/b=www/b/.htaccess", "/c=www/c/.htaccess"},
			[]string{"/end/y", "/end/s", "/end/z", "/end/q", "/endc/w", "/endc/v", "/endc/q", "/c/q", "/top/k", "/top/r", "/t/r", "/b/y?a=1"}},
		{"RewriteRules in an <If> chain", map[string]string{
			"www/.htaccess": "RewriteEngine On\nRewriteBase /\nRewriteRule ^a$ /from-dir [R=302,L]\nRedirect 302 /c /from-redirect\n" +
				"<If \"%{QUERY_STRING} == 'keep'\">\n  Redirect 302 /k /from-if\n</If>\n<ElseIf \"%{QUERY_STRING} =~ /^fs/\">\n  RewriteRule /www/(.*)$ /fs/$1 [R=302,L]\n</ElseIf>\n" +
				"<Else>\n  RewriteRule ^ https://other.test%{REQUEST_URI} [R=301,L]\n</Else>\n",
		}, []string{"/=www/.htaccess"},
			[]string{"/a?keep", "/a", "/c", "/c?keep", "/k?keep", "/a?fs", "/x/y?fs=1", "/b?keep", "/a%20b"}},
		{"RewriteRules in two <If> chains", map[string]string{
			"www/.htaccess": "RewriteEngine On\nRewriteRule ^a$ /from-dir [R=302,L]\n" +
				"<If \"%{QUERY_STRING} =~ /one/\">\n  RewriteRule /www/(.*)$ /one/$1 [R=302,L]\n</If>\n" +
				"<If \"%{QUERY_STRING} =~ /two/\">\n  RewriteRule /www/(.*)$ /two/$1 [R=302,L]\n</If>\n<ElseIf \"%{QUERY_STRING} =~ /three/\">\n  Redirect 302 /e /from-elseif\n</ElseIf>\n" +
				"<Else>\n  RewriteRule /www/(.*)$ /else/$1 [R=302,L]\n</Else>\n",
		}, []string{"/=www/.htaccess"},
			[]string{"/x?one", "/x?two", "/x?one-two", "/a?one", "/a?three", "/e?three", "/a?one-three", "/x?one-three", "/a", "/x"}},
		{"RewriteOptions Inherit with an <If>", map[string]string{
			"www/s1/.htaccess": "RewriteEngine On\nRewriteRule ^a$ /dir-a [R=302,L]\nRewriteRule /www/s1/b$ /dir-fs-b [R=302,L]\nRewriteRule b$ /dir-unanch-b [R=302,L]\n" +
				"<If \"%{QUERY_STRING} =~ /one/\">\n  RewriteOptions Inherit\n  RewriteRule /www/s1/c$ /if-c [R=302,L]\n</If>\n",
			"www/s2/.htaccess": "RewriteEngine On\nRewriteOptions Inherit\nRewriteRule ^a$ /dir-a [R=302,L]\nRewriteRule /www/s2/b$ /dir-fs-b [R=302,L]\nRewriteRule b$ /dir-unanch-b [R=302,L]\n" +
				"<If \"%{QUERY_STRING} =~ /one/\">\n  RewriteRule /www/s2/c$ /if-c [R=302,L]\n</If>\n",
			"www/s3/.htaccess": "RewriteEngine On\nRewriteRule ^a$ /dir-a [R=302,L]\nRewriteRule b$ /dir-unanch-b [R=302,L]\n" +
				"<If \"%{QUERY_STRING} =~ /one/\">\n  RewriteRule /www/s3/c$ /if-c [R=302,L]\n</If>\n",
		}, []string{"/s1=www/s1/.htaccess", "/s2=www/s2/.htaccess", "/s3=www/s3/.htaccess"},
			[]string{"/s1/a", "/s1/a?one", "/s1/b", "/s1/b?one", "/s1/c?one", "/s2/a?one", "/s2/b", "/s2/b?one", "/s2/c?one", "/s3/b?one", "/s3/b", "/s3/c?one"}},
		{"the whole match", map[string]string{
			"www/.htaccess": "RewriteEngine On\nRewriteBase /\nRewriteRule ^(docs|guide)/\\d+(?!.+\\.\\w+$|.+/$).+$ $0/ [R=301,L]\n" +
				"RewriteRule ^docs/\\d+.*$ /to/$0 [R=302,L]\nRewriteRule ^in/(.*)$ out/$0 [L]\nRewriteRule ^out/in/(.*)$ /done/$1 [R=302,L]\n" +
				"RedirectMatch temp ^/api$ $0/\n",
			"www/sub/.htaccess": "RewriteEngine On\nRewriteRule ^s/.*$ /sub-to/$0 [R=302,L]\n",
		}, []string{"/=www/.htaccess", "/sub=www/sub/.htaccess"},
			[]string{"/docs/9_0", "/docs/9_0/x", "/docs/9_0/x.html", "/docs/9/a%20b", "/guide/7_1", "/in/z", "/api", "/api/", "/sub/s/a", "/sub/s/a%20b?q=1"}},
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
