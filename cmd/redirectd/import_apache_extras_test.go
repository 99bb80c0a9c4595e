package main

import "testing"

// TestImportApacheRewriteExtras: RewriteMap's int: functions, [B],
// [QSL] and where a '?' decoded from %3F is refused, each in a
// DocumentRoot .htaccess of its own (the maps in server context),
// against a real Apache.
func TestImportApacheRewriteExtras(t *testing.T) {
	hosts := []string{"example.test"}
	maps := "RewriteMap lc int:tolower\nRewriteMap uc int:toupper\nRewriteMap esc int:escape\nRewriteMap unesc int:unescape\n"
	tests := []struct {
		name, server, htaccess string
		paths                  []string
	}{
		{"int maps", maps, "RewriteEngine On\nRewriteCond %{REQUEST_URI} [A-Z]\nRewriteRule ^lower/(.*)$ /lc/${lc:$1} [R=301,L]\n" +
			"RewriteRule ^upper/(.*)$ /uc/${uc:$1|none} [R=302,L]\nRewriteRule ^esc/(.*)$ /e/${esc:$1} [R=302,L]\n" +
			"RewriteRule ^ne/(.*)$ /e/${esc:$1} [R=302,L,NE]\nRewriteRule ^unesc/(.*)$ /u/${unesc:$1} [R=302,L]\n" +
			"RewriteCond %{QUERY_STRING} ^q=(.*)$\nRewriteRule ^query$ /q/${lc:%1}? [R=302,L]\n" +
			"RewriteCond ${lc:%{HTTP_HOST}} ^example\\.test$\nRewriteRule ^host$ /h/${uc:%{HTTP_HOST}} [R=302,L]\n",
			[]string{"/lower/ABC", "/lower/AbC/dEf?x=1", "/lower/abc", "/LOWER/x", "/lower/Caf%C3%A9", "/lower/A%20B", "/lower/A%3FB", "/lower/A%25B",
				"/upper/abc?Q", "/upper/", "/esc/a%20b", "/esc/a%25b", "/esc/x%23y", "/esc/a+b%3Cc", "/ne/a%20b", "/ne/x%23y", "/unesc/a%2520b",
				"/unesc/%2541%253Fb", "/query?q=ABC", "/query?q=A%20B", "/query?q=A%3fB", "/host"}},
		{"B flag", "", "RewriteEngine On\nRewriteRule ^search/(.*)$ /s?q=$1 [B,R=302,L]\nRewriteRule ^bne/(.*)$ /s?q=$1 [B,NE,R=302,L]\n" +
			"RewriteRule ^path/(.*)$ /p/$1 [B,R=301,L]\nRewriteCond %{QUERY_STRING} ^k=(.*)$\nRewriteRule ^cond$ /c/%1? [B,NE,R=302,L]\n",
			[]string{"/search/a%20b", "/search/x/y", "/search/a+b", "/search/caf%C3%A9", "/search/q%26a=1", "/search/a%3Fb", "/bne/a%20b%26c", "/bne/x_y-z.w",
				"/path/a%20b", "/path/a/b?x=1", "/cond?k=a%20b/c", "/cond?k=x"}},
		{"QSL and the decoded question mark", "", "RewriteEngine On\nRewriteRule ^qsl/(.*)$ /what?is/$1?a=1 [QSL,R=302,L]\n" +
			"RewriteRule ^qsa/(.*)$ /q?x=$1 [QSA,QSL,R=302,L]\nRewriteRule ^late/(.*)$ /l?k=$1 [R=302,L]\nRewriteRule ^early/(.*)$ /e/$1?k=1 [R=302,L]\n" +
			"RewriteRule ^uri/ https://example.test%{REQUEST_URI} [R=302,L]\nRewriteRule ^ne/(.*)$ /n?a/$1?b=1 [QSL,NE,R=302,L]\n",
			[]string{"/qsl/x", "/qsl/x?b=2", "/qsl/a%3Fb", "/qsa/y?z=1", "/qsa/a%3Fb", "/qsa/y", "/late/a%3Fb", "/late/a", "/early/a%3Fb", "/early/a",
				"/uri/a%3Fb", "/uri/a?b", "/ne/x", "/ne/a%3Fb?c=d"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			apacheRoundTripReport(t, func(dir, addr string) map[string]string {
				return map[string]string{"httpd.conf": apacheConf(dir, addr, tc.server), "www/.htaccess": tc.htaccess}
			}, []string{"/=www/.htaccess"}, hosts, tc.paths, nil, false, 3)
		})
	}
}
