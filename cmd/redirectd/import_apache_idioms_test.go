package main

import "testing"

// TestImportApacheIdioms: the shapes real .htaccess files take (SEO
// plugins', migration guides', CMS defaults), each in a DocumentRoot
// .htaccess of its own, against a real Apache.
func TestImportApacheIdioms(t *testing.T) {
	t.Parallel()
	hosts := []string{"example.test", "www.example.test"}
	tests := []struct {
		name, htaccess string
		paths          []string
	}{
		{"www to apex", "RewriteEngine On\nRewriteCond %{HTTP_HOST} ^www\\.(.+)$ [NC]\nRewriteRule ^ https://%1%{REQUEST_URI} [R=301,L]\n",
			[]string{"/", "/a/b?x=1", "/a%20b", "/caf%C3%A9", "/a%25b", "/x%23y", "/q%5B1%5D", "/a%3Fb"}},
		{"https", "RewriteEngine On\nRewriteCond %{HTTPS} !=on\nRewriteRule ^(.*)$ https://%{HTTP_HOST}/$1 [R=301,L]\n",
			[]string{"/", "/x/y?z=1", "/a%20b", "//x"}},
		{"query id", "RewriteEngine On\nRewriteCond %{QUERY_STRING} ^id=([0-9]+)$\nRewriteRule ^product\\.php$ /product/%1? [R=301,L]\n" +
			"RewriteRule ^category/([^/]+)/page/([0-9]+)$ /shop/$1?page=$2 [R=301,L]\nRewriteRule ^keep$ /kept?%{QUERY_STRING} [R=301,L]\nRewriteRule ^more$ /m?x=1&%{QUERY_STRING} [R=301,L]\n",
			[]string{"/product.php?id=42", "/product.php?id=42&x=1", "/product.php", "/PRODUCT.php?id=1", "/category/shoes/page/3", "/category/shoes/page/3?sort=asc", "/category/a%20b/page/2", "/keep?a=%20b&c=%25", "/keep", "/more?a=%20b", "/more"}},
		{"extensions", "RedirectMatch 301 ^/(.*)\\.html$ /$1\nRewriteEngine On\nRewriteRule ^(.+)\\.php$ /$1 [R=301,L]\n",
			[]string{"/a.html", "/dir/b.html?x=1", "/c.php", "/d/e.php?q", "/f.htm", "/.php", "/g.PHP"}},
		{"trailing slash added", "RewriteEngine On\nRewriteCond %{REQUEST_URI} !(.*)/$\nRewriteCond %{REQUEST_URI} !\\.[a-z]+$ [NC]\nRewriteRule ^(.*)$ /$1/ [R=301,L]\n",
			[]string{"/a", "/a/", "/a/b?x=1", "/a.css", "/A.JPG", "/"}},
		{"trailing slash removed", "RewriteEngine On\nRewriteRule ^(.*)/$ /$1 [L,R=301]\n",
			[]string{"/a/", "/a/b/?x=1", "/a", "/", "//a//"}},
		{"index.php", "RewriteEngine On\nRewriteCond %{THE_REQUEST} ^[A-Z]{3,9}\\ /index\\.php\\ HTTP/\nRewriteRule ^index\\.php$ / [R=301,L]\n" +
			"RewriteCond %{THE_REQUEST} ^[A-Z]{3,9}\\ /(.*)index\\.html\nRewriteRule ^(.*)index\\.html$ /$1 [R=301,L]\n",
			[]string{"/index.php", "/index.php?x=1", "/a/index.html", "/index.html", "/b/index.htm"}},
		{"mobile and hotlink", "RewriteEngine On\nRewriteCond %{HTTP_HOST} !^m\\.\nRewriteCond %{HTTP_USER_AGENT} \"android|iphone\" [NC]\nRewriteRule ^(.*)$ https://m.example.test/$1 [R=302,L]\n" +
			"RewriteCond %{HTTP_REFERER} !^$\nRewriteCond %{HTTP_REFERER} !^https?://(www\\.)?example\\.test [NC]\nRewriteRule \\.(jpg|png)$ - [F,NC]\n",
			[]string{"/a.jpg", "/b.PNG", "/c", "/a.jpg|Referer: http://evil.test/x", "/b.PNG|Referer: https://www.example.test/p", "/c|User-Agent: Mozilla (iPhone)",
				"/d/e?f=1|User-Agent: android 14", "/a.jpg|Referer: http://evil.test/|User-Agent: iphone"}},
		{"if sections", "<If \"%{HTTP_HOST} == 'www.example.test'\">\n    Redirect 301 / https://example.test/\n</If>\n" +
			"<If \"%{REQUEST_URI} =~ m#^/legacy/#\">\n    Redirect 302 /legacy http://ex.test/legacy\n</If>\n<If \"%{HTTPS} != 'on'\">\n    Redirect 301 /insecure https://example.test/secure\n</If>\nRedirect 301 /always /here\nRedirect 301 /legacy/x /from-base\n",
			[]string{"/", "/a?b", "/legacy/x", "/legacy", "/legacy/y/z", "/always", "/insecure/q"}},
		{"if chains", "<If \"%{HTTP_HOST} == 'www.example.test'\">\n    Redirect 301 /a https://example.test/from-www\n</If>\n" +
			"<ElseIf \"%{QUERY_STRING} =~ /^lang=(de|fr)/\">\n    Redirect 302 /a /localized\n    Redirect 302 /b /b-localized\n</ElseIf>\n" +
			"<ElseIf \"%{REQUEST_URI} =~ m#^/a/x#\">\n</ElseIf>\n<Else>\n    Redirect 301 /a /a-else\n</Else>\n" +
			"<If \"%{HTTPS} == 'on'\">\n    Redirect 301 /c /c-tls\n</If>\n<Else>\n    Redirect 301 /c /c-plain\n</Else>\nRedirect 301 /d /d-base\n",
			[]string{"/a", "/a/x", "/a/y?lang=de", "/a?lang=fr", "/a?lang=en", "/b?lang=de", "/b", "/c", "/c/q", "/d", "/a/x/y"}},
		{"hidden files", "RewriteEngine on\nRewriteRule \"(^|/)\\.\" - [F]\nRewriteRule \"(^|/)old/?$\" /new [R=301,L]\nRewriteRule (^|/)(Old|Older)$ /x [NC,R=302]\n",
			[]string{"/.git/config", "/a/.env", "/a.b", "/.well-known/x", "/old", "/x/old/", "/xold", "/a/b/.c", "/OLD", "/a/older?q", "/ab/cold"}},
		{"RewriteCond expr", "RewriteEngine On\nRewriteCond expr \"%{HTTP_HOST} == 'www.example.test'\"\nRewriteRule ^e1$ /www [R=302,L]\n" +
			"RewriteCond expr \"%{QUERY_STRING} =~ /^id=([0-9]+)$/\"\nRewriteRule ^e2$ /id/%1? [R=302,L]\n" +
			"RewriteCond expr \"!%{HTTP_USER_AGENT} =~ /bot/i\"\nRewriteCond expr \"%{HTTPS} != 'on'\"\nRewriteRule ^e3$ /human [R=302,L]\n",
			[]string{"/e1", "/e1?x", "/e2?id=42", "/e2?id=x", "/e2", "/e3", "/e3|User-Agent: GoogleBot/2", "/e3|User-Agent: Firefox"}},
		{"WordPress Redirection plugin", "RewriteEngine On\n# Created by Redirection\n<IfModule mod_rewrite.c>\nRewriteRule ^old-page$ /new-page [R=301,L]\n" +
			"RewriteRule ^caf%C3%A9$ /cafe [R=301,L]\nRewriteRule ^with%20space$ /new%20target [R=302,L]\nRewriteRule ^two\\.words$ /two%20words?x=a%26b [R=301,L]\n" +
			"RewriteCond %{QUERY_STRING} ^p=12$\nRewriteRule ^$ /post-12 [R=301,L]\nRewriteCond %{HTTP_REFERER} ^https%3A//ads\\.example$ [NC]\nRewriteRule ^promo$ /landing [R=302,L]\n" +
			"RewriteCond %{HTTP_USER_AGENT} iPhone [NC]\nRewriteRule ^app$ /ios [R=302,L]\nRewriteRule ^gone-page$ / [G]\nRewriteRule ^blocked$ / [F]\n" +
			"RewriteRule ^regex/(.*)$ /new/$1 [R=301,L]\nRewriteRule ^pass$ /index.php?page_id=3 [L]\n</IfModule>\n# End of Redirection\n",
			[]string{"/old-page", "/old-page?utm=1", "/caf%C3%A9", "/caf%25C3%25A9", "/with%20space", "/two.words", "/?p=12", "/?p=13", "/promo|Referer: https%3A//ads.example",
				"/promo", "/app|User-Agent: Mozilla (iPhone)", "/gone-page", "/blocked", "/regex/a%20b/c?d=e", "/regex/%E2%82%AC", "/pass"}},
		{"no RewriteBase", "RewriteEngine On\nRewriteRule ^rel/(.*)$ target/$1 [R=301,L]\nRewriteRule ^abs/(.*)$ /target/$1 [R=301,L]\n",
			[]string{"/rel/x", "/rel/x/y?z=1", "/abs/x"}},
		{"wordpress", "# BEGIN WordPress\n<IfModule mod_rewrite.c>\nRewriteEngine On\nRewriteBase /\nRewriteRule ^index\\.php$ - [L]\n" +
			"RewriteCond %{REQUEST_FILENAME} !-f\nRewriteCond %{REQUEST_FILENAME} !-d\nRewriteRule . /index.php [L]\n</IfModule>\n# END WordPress\n" +
			"<IfModule !mod_rewrite.c>\nErrorDocument 404 https://example.test/no-rewrite\n</IfModule>\n" +
			"Redirect 301 /old-post/ https://example.test/new-post/\nRedirectMatch 301 ^/category/(.*)$ /topics/$1\n",
			[]string{"/old-post/", "/old-post/x?y=1", "/old-post", "/category/news", "/category/news/?page=2", "/index.php", "/nothing"}},
		{"lexical comparisons", "RewriteEngine On\nRewriteCond %{QUERY_STRING} <abc\nRewriteRule ^lt$ /less [R=302,L]\nRewriteCond %{QUERY_STRING} >=m\nRewriteRule ^ge$ /geq [R=302,L]\n" +
			"RewriteCond %{QUERY_STRING} !<=b0\nRewriteRule ^ngt$ /more [R=302,L]\n",
			[]string{"/lt", "/lt?ab", "/lt?abb", "/lt?abd", "/lt?abcd", "/lt?zz", "/ge?m", "/ge?a", "/ge?z", "/ge?aa", "/ngt?b0", "/ngt?b1", "/ngt?a", "/ngt?zzz", "/ngt"}},
		{"loop guard", "RewriteEngine On\nRewriteCond %{ENV:REDIRECT_STATUS} ^$\nRewriteRule ^old/(.*)$ /new/$1 [R=301,L]\n",
			[]string{"/old/a", "/old/a?b=c", "/old", "/new/a"}},
		{"blog dates", "RedirectMatch 301 ^/blog/([0-9]{4})/([0-9]{2})/(.*)$ /articles/$3\nRedirect 301 /qq /target?a=1\nRedirectMatch 302 ^/qm/(.*)$ /t?b=$1\nRedirectMatch 302 ^/(?i)old-(.*)$ /new-$1\nRedirect 301 /shop https://shop.example.test\n",
			[]string{"/qq?z=1", "/qq/r?z=1", "/qm/r?z=1", "/blog/2024/12/my-post", "/blog/2024/1/x", "/blog/2024/12/", "/old-a", "/OLD-B?x", "/shop", "/shop/cart?x=1", "/shopping",
				"/old-a%25b", "/blog/2024/12/a%20b%5B1%5D", "/old-c%23d", "/old-x%3Fy", "/old-x%3Fy?z=1", "/shop/a%25b"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			apacheRoundTripReport(t, func(dir, addr string) map[string]string {
				return map[string]string{"httpd.conf": apacheConf(dir, addr, ""), "www/.htaccess": tc.htaccess}
			}, []string{"/=www/.htaccess"}, hosts, tc.paths, nil, false, 4)
		})
	}
}
