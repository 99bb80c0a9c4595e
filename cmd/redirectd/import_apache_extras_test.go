package main

import "testing"

// TestImportApacheRewriteExtras: RewriteMap's int: functions, [B],
// [QSL], where a '?' decoded from %3F is refused, RewriteCond's
// integer comparisons and [N] in a .htaccess, each in a
// DocumentRoot .htaccess of its own (the maps in server context),
// against a real Apache.
func TestImportApacheRewriteExtras(t *testing.T) {
	t.Parallel()
	hosts := []string{"example.test"}
	maps := "RewriteMap lc int:tolower\nRewriteMap uc int:toupper\nRewriteMap esc int:escape\nRewriteMap unesc int:unescape\n"
	tests := []struct {
		name, server, htaccess string
		paths                  []string
		known                  map[string]string
	}{
		{"int maps", maps, "RewriteEngine On\nRewriteCond %{REQUEST_URI} [A-Z]\nRewriteRule ^lower/(.*)$ /lc/${lc:$1} [R=301,L]\n" +
			"RewriteRule ^upper/(.*)$ /uc/${uc:$1|none} [R=302,L]\nRewriteRule ^esc/(.*)$ /e/${esc:$1} [R=302,L]\n" +
			"RewriteRule ^ne/(.*)$ /e/${esc:$1} [R=302,L,NE]\nRewriteRule ^unesc/(.*)$ /u/${unesc:$1} [R=302,L]\n" +
			"RewriteCond %{QUERY_STRING} ^q=(.*)$\nRewriteRule ^query$ /q/${lc:%1}? [R=302,L]\n" +
			"RewriteCond ${lc:%{HTTP_HOST}} ^example\\.test$\nRewriteRule ^host$ /h/${uc:%{HTTP_HOST}} [R=302,L]\n",
			[]string{"/lower/ABC", "/lower/AbC/dEf?x=1", "/lower/abc", "/LOWER/x", "/lower/Caf%C3%A9", "/lower/A%20B", "/lower/A%3FB", "/lower/A%25B",
				"/upper/abc?Q", "/upper/", "/esc/a%20b", "/esc/a%25b", "/esc/x%23y", "/esc/a+b%3Cc", "/ne/a%20b", "/ne/x%23y", "/unesc/a%2520b",
				"/unesc/%2541%253Fb", "/query?q=ABC", "/query?q=A%20B", "/query?q=A%3fB", "/host"}, nil},
		{"B flag", "", "RewriteEngine On\nRewriteRule ^search/(.*)$ /s?q=$1 [B,R=302,L]\nRewriteRule ^bne/(.*)$ /s?q=$1 [B,NE,R=302,L]\n" +
			"RewriteRule ^path/(.*)$ /p/$1 [B,R=301,L]\nRewriteCond %{QUERY_STRING} ^k=(.*)$\nRewriteRule ^cond$ /c/%1? [B,NE,R=302,L]\n",
			[]string{"/search/a%20b", "/search/x/y", "/search/a+b", "/search/caf%C3%A9", "/search/q%26a=1", "/search/a%3Fb", "/bne/a%20b%26c", "/bne/x_y-z.w",
				"/path/a%20b", "/path/a/b?x=1", "/cond?k=a%20b/c", "/cond?k=x"}, nil},
		{"B variants", "", "RewriteEngine On\nRewriteRule ^bc/(.*)$ /s?q=$1 [B=?&,R=302,L]\nRewriteRule ^bnp/(.*)$ /s?q=$1 [B,BNP,R=302,L]\n" +
			"RewriteRule ^bctls/(.*)$ /c/$1 [BCTLS,R=302,L]\nRewriteRule ^bne/(.*)$ /n?q=$1 [B,BNE=/.,R=302,L]\nRewriteRule ^bchars/(.*)$ /p/$1 [B=#?,NE,R=302,L]\n" +
			"RewriteCond %{QUERY_STRING} ^k=(.*)$\nRewriteRule ^bcond$ /c?v=%1 [B=&,backrefernoplus,R=302,L]\nRewriteRule ^bctlsb/(.*)$ /d?x=$1 [BCTLS,B=/,BNP,R=302,L]\n",
			[]string{"/bc/a%3Fb&c%20d", "/bc/x%26y", "/bc/a/b", "/bnp/a%20b", "/bnp/a+b", "/bnp/x/y", "/bctls/a%20b", "/bctls/a%09b", "/bctls/a%7Fb", "/bctls/caf%C3%A9", "/bctls/a%3Fb",
				"/bne/a/b%20c.d", "/bne/a%3Fb", "/bchars/a%23b", "/bchars/a%3Fb%20c", "/bchars/a/b", "/bcond?k=a%26b%20c", "/bcond?k=a&b", "/bcond?k=a%20b",
				"/bctlsb/a%20b/c", "/bctlsb/a%3Fb"}, nil},
		{"QSL and the decoded question mark", "", "RewriteEngine On\nRewriteRule ^qsl/(.*)$ /what?is/$1?a=1 [QSL,R=302,L]\n" +
			"RewriteRule ^qsa/(.*)$ /q?x=$1 [QSA,QSL,R=302,L]\nRewriteRule ^late/(.*)$ /l?k=$1 [R=302,L]\nRewriteRule ^early/(.*)$ /e/$1?k=1 [R=302,L]\n" +
			"RewriteRule ^uri/ https://example.test%{REQUEST_URI} [R=302,L]\nRewriteRule ^ne/(.*)$ /n?a/$1?b=1 [QSL,NE,R=302,L]\n",
			[]string{"/qsl/x", "/qsl/x?b=2", "/qsl/a%3Fb", "/qsa/y?z=1", "/qsa/a%3Fb", "/qsa/y", "/qsa/y?z=%20&w=%2F", "/qsa/a%20b?k=%25", "/late/a%3Fb", "/late/a", "/early/a%3Fb", "/early/a",
				"/uri/a%3Fb", "/uri/a?b", "/ne/x", "/ne/a%3Fb?c=d"}, nil},
		{"integer comparisons", "", "RewriteEngine On\nRewriteCond %{QUERY_STRING} -lt10\nRewriteRule ^lt$ /small [R=302,L]\n" +
			"RewriteCond %{QUERY_STRING} -ge100\nRewriteRule ^ge$ /big [R=302,L]\nRewriteCond %{QUERY_STRING} -eq0\nRewriteRule ^eq$ /zero [R=302,L]\n" +
			"RewriteCond %{QUERY_STRING} !-ne-5\nRewriteRule ^ne$ /minus5 [R=302,L]\nRewriteCond %{HTTP:X-N} \"-gt 2\"\nRewriteRule ^gt$ /more [R=302,L]\n" +
			"RewriteCond %{QUERY_STRING} ^p=(\\d+)$\nRewriteCond %1 -le3\nRewriteRule ^page$ /p/%1? [R=302,L]\n",
			[]string{"/lt?5", "/lt?10", "/lt?9", "/lt?-3", "/lt?+7", "/lt?%2012", "/lt?007", "/lt?abc", "/lt", "/lt?9x", "/lt?99",
				"/ge?100", "/ge?99", "/ge?1000", "/ge?0100", "/ge?100abc", "/eq", "/eq?0", "/eq?x", "/eq?-", "/eq?1", "/ne?-5", "/ne?-05", "/ne?5",
				"/gt|X-N: 3", "/gt|X-N: 2", "/gt|X-N:  12", "/gt", "/page?p=2", "/page?p=3", "/page?p=4", "/page?p=0003", "/lt?4294967297"},
			map[string]string{"/lt?4294967297": "Apache's atoi wraps a number of more than 9 digits (4294967297 is 1); the import takes it as outside the range"}},
		{"a query that expands to nothing", "", "RewriteEngine On\nRewriteCond %{QUERY_STRING} ^k=(.*)$\nRewriteRule ^e1$ /p1?%1 [R=302,L]\n" +
			"RewriteCond %{QUERY_STRING} ^k=(.*)$\nRewriteRule ^e2$ /p2?%1 [R=302,QSA,L]\nRewriteCond %{QUERY_STRING} ^k=(.*)$\nRewriteRule ^e3$ /p3?%1 [R=307,L]\n" +
			"RewriteCond %{QUERY_STRING} ^k=(.*)$\nRewriteRule ^e4$ /p4?%1 [R=308,QSA,L]\nRewriteRule ^e5/(.*)$ /p5?$1 [R=301,L]\nRewriteRule ^e6/(.*)$ /p6?$1 [R=301,NE,L]\n" +
			"RewriteRule ^e7/(.*)$ /p7?$1 [R=301,QSD,L]\nRewriteRule ^e8/([^/]*)/(.*)$ e8-done/$2?$1 [L]\nRewriteRule ^e8-done/(.*)$ /p8/$1 [R=302,L]\n",
			[]string{"/e1?k=", "/e1?k=v", "/e2?k=", "/e2?k=v", "/e3?k=", "/e3?k=v", "/e4?k=", "/e4?k=v", "/e5/", "/e5/x", "/e5/?z=1", "/e6/?z=1", "/e6/x?z=1",
				"/e7/?z=1", "/e7/a%20b?z=1", "/e8//x?z=1", "/e8/a/x?z=1"}, nil},
		{"a redirect without [L]", "", "RewriteEngine On\nRewriteRule ^r1/(.*)$ /t1/$1 [R=302]\nRewriteRule t1 /t1-again [R=301,L]\nRewriteRule ^r2/(.*)$ /t2/$1 [R=302]\nRewriteRule ^r3/(.*)$ /t3/$1 [R=302]\n",
			[]string{"/r1/a", "/r2/a", "/r2/b?c=d", "/r3/x", "/t1"},
			map[string]string{"/r1/a": "Apache goes on with the rules after a redirect without [L], matching \"redirect:URL\", which a later rule matches; the import answers the redirect (noted)"}},
		{"status of [R]", "", "RewriteEngine On\nRewriteRule ^gone$ /to-gone [R=gone,L]\nRewriteRule ^perm$ /to-perm [R=permanent,L]\nRewriteRule ^temp$ /to-temp [R=temp,L]\n" +
			"RewriteRule ^see$ /to-see [R=seeother,L]\nRewriteRule ^g410$ /to-410 [R=410,L]\nRewriteRule ^abc$ /to-abc [R=abc,L]\nRewriteRule ^Perm2$ /to-perm2 [redirect=PERMANENT,L]\n" +
			"RewriteRule ^trail$ /to-trail [R=301x,L]\nRewriteRule ^nf$ /to-nf [R=404,L]\nRewriteRule ^err$ /to-err [R=503,L]\nRewriteRule ^r451$ /to-451 [R=451,L]\nRewriteRule ^ok$ /to-ok [R=200,L]\n",
			[]string{"/gone", "/perm", "/temp", "/see", "/g410", "/abc", "/Perm2", "/trail", "/nf", "/err", "/r451", "/ok", "/other"}, nil},
		{"next round in server context", "RewriteEngine On\nRewriteRule ^/n/(.*)-(.*)$ /n/$1_$2 [N]\nRewriteRule ^/n/(.*_.*)$ /done/$1 [R=302,L]\n" +
			"RewriteRule ^/m/a$ /m/b [N]\nRewriteRule ^/m/b$ /m/c [N]\nRewriteRule ^/m/c$ /final [R=301,L]\nRedirect 301 /m/z /zed\n" +
			"RewriteRule ^/r/(.*)-(.*)$ /r/$1$2 [N]\nRedirect 301 /r/ab /rab\nRedirect 301 /r/cd /rcd\nRewriteCond %{QUERY_STRING} ^(.*)x(.*)$\nRewriteRule ^/q/(.*)$ /q/$1?%1y%2 [N]\nRewriteRule ^/q/(.*)$ /qd/$1 [R=302,L]\n", "",
			[]string{"/n/a-b", "/n/a-b-c-d", "/n/x", "/n/a-b?q=1", "/m/a", "/m/b", "/m/c", "/m/z", "/m/a?k", "/r/a-b", "/r/ab", "/r/cd", "/q/a?xax", "/q/a?b", "/q/a?xxxxx",
				"/n/a-b-c-d-e-f-g-h-i-j-k-l"},
			map[string]string{"/n/a-b-c-d-e-f-g-h-i-j-k-l": "redirectd runs server context's rules at most 10 times with [N], then answers 500; Apache goes on"}},
		{"next round", "", "RewriteEngine On\nRewriteBase /\nRewriteRule ^(.*)-(.*)$ $1_$2 [N]\nRewriteRule ^(.*_.*)$ /done/$1 [R=302,L]\n" +
			"RewriteCond %{QUERY_STRING} ^(.*)x(.*)$\nRewriteRule ^q/(.*)$ q/$1?%1y%2 [N,DPI]\nRewriteRule ^q/(.*)$ /qd/$1 [R=302,L]\n",
			[]string{"/a-b", "/a-b-c-d", "/x", "/a-b-c-d-e-f-g-h?k=v", "/a-b-c-d-e-f-g-h-i-j-k-l", "/q/a?xax", "/q/a?b", "/q/a?xxxxx", "/q/a/b?x", "/d/a-b"},
			map[string]string{"/a-b-c-d-e-f-g-h-i-j-k-l": "redirectd starts the rules again at most 10 times, then answers 500; Apache goes on",
				"/d/a-b": "without [DPI], Apache appends the PATH_INFO (the path below the deepest existing file or directory, here /a-b) at each round"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			apacheRoundTripReport(t, func(dir, addr string) map[string]string {
				return map[string]string{"httpd.conf": apacheConf(dir, addr, tc.server), "www/.htaccess": tc.htaccess}
			}, []string{"/=www/.htaccess"}, hosts, tc.paths, tc.known, false, 3)
		})
	}
}
