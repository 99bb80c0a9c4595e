package apache

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/redirectd/redirectd/config"
)

// FuzzImport feeds arbitrary text to the parser, as a server config and
// as a .htaccess file, and translates it: a parse fails with an error
// placed in the text or gives directives whose lines lie in it, the
// translation never panics, and the config written always loads (a rule
// whose steps the loader refuses is left out, with a note).
func FuzzImport(f *testing.F) {
	f.Add("RewriteEngine On\nRewriteCond %{HTTP_HOST} ^www\\.(.+)$ [NC]\nRewriteRule ^/(.*)$ http://%1/$1 [R=301,L]\nRedirect 301 /a http://b/")
	f.Add("<VirtualHost *:80>\nServerName a.test\nServerAlias *.a.test w?.b.*\nRedirectMatch 302 ^/x/(.*)$ /y/$1\n</VirtualHost>")
	f.Add("RewriteEngine on\nRewriteRule ^a$ - [S=1]\nRewriteRule ^a$ /b [R=307,QSA]\nRewriteRule ^c$ - [C]\nRewriteRule ^ /d?e=1 [R,QSD,NE]\nRewriteRule x [F]")
	f.Add("RewriteEngine on\nRewriteCond %{REQUEST_METHOD} =POST [OR]\nRewriteCond %{HTTP:X-A} !b [NC]\nRewriteRule ^(a|^b)$ /c [E=x:1,END]\nRewriteCond %{ENV:x} =1\nRewriteRule . /z [R]")
	f.Add("Redirect gone /g\nRedirect seeother /s /t\nRedirect 399 /q /r\nRedirectTemp /t\nRewriteEngine on\nRewriteRule \"a b\" '${m:$1|x}' [R]\n<Directory /x>\nRedirect /a /b\n</Directory>")
	f.Add("ProxyPreserveHost On\nProxyPass /app/ http://127.0.0.1:8080/v1/ retry=0\nProxyPass /x !\nErrorDocument 404 http://e.test/nf\n<VirtualHost *:80>\nServerName a\nProxyPass / https://b/\nErrorDocument 410 /gone.html\n</VirtualHost>")
	f.Add(strings.Repeat("Redirect 301 /r/a /b\nRedirect /r/a/b/ /c\nRedirectPermanent /r/c http://e.test/d\nRedirect seeother /r/e/f /g\n", 5) + "RewriteEngine on\nRewriteRule ^x$ /y [R]\nRedirect /r /z\n")
	f.Add("<If \"%{HTTP_HOST} == 'a'\">\nRedirect / http://b/\nRewriteRule x y\n</If>\n<If \"%{HTTPS} =~ /(/\">\nRedirect /x /y\n</If>\n<If \"%{REQUEST_URI} !~ m#^/a#\">\nRedirect 410 /g\n</If>\n<Else>\nRedirect /e /f\n</Else>")
	f.Add("RewriteEngine on\nRewriteRule ^/a/(.*)$ http://h:81/b/$1 [P]\nRewriteRule ^/a/(.*)$ http://h:81/b/$1 [P]\nProxyPass /a/ http://h/c/\nProxyPass /a http://h/c\nRewriteRule ^/(.*)$ http://h/$1 [P,L]\n")
	f.Add("ProxyPass /a/ http://h:99999/b/\nProxyPass /c/ http://[::1]:8080/d/\nProxyPass / http://*/\n<Directory /srv/www/d>\nRewriteEngine on\nRewriteRule ^x$ /y [R]\n</Directory>\nDocumentRoot /srv/www")
	f.Add("RewriteMap lc int:tolower\nRewriteMap e int:escape\nRewriteMap p prg:/bin/x\nRewriteEngine on\nRewriteCond ${lc:%{HTTP_HOST}} ^a\\.(.*)$\n" +
		"RewriteRule ^/(.*)$ /${lc:$1}/${e:%1|d} [R=301]\nRewriteRule ^/b/(.*)$ /s?q=$1&r=%1 [B,QSL,NE]\nRewriteRule ^/c(.*)$ /d?$1?e [QSL,R]\nRewriteRule ^/f(.*) /g$1 [B=/,BNP]")
	f.Add("<Location /a>\nRedirect 301 /a/b /c\nRedirect permanent http://x/\nRewriteRule x y\n</Location>\n<Location /g/>\nRedirect gone\n</Location>\n<LocationMatch \"^/m(\">\nRedirect /m /n\n</LocationMatch>\n<Location ~ \"\\.pdf$\">\nRedirect 307 /p?q\n</Location>\n<Location /w*>\nRedirect /w /v\n</Location>")
	f.Add("ProxyPass /a/ http://b/c/\nProxyPassMatch ^/a/(.*\\.png)$ http://b:81/i/$1 timeout=1\nProxyPassMatch \\.js$ https://[::1]/s\nProxyPassMatch ^/(x http://b/\n<VirtualHost *:80>\nProxyPassMatch ^/v(/.*)?$ http://c$1\n</VirtualHost>")
	f.Add("RewriteEngine on\nRewriteRule ^(.*)-(.*)$ $1_$2 [N]\nRewriteRule ^a$ b [N=3,DPI]\nRewriteRule ^c$ - [N]\nRewriteCond %{QUERY_STRING} -ge10\nRewriteCond %{HTTP:X} !-ne-0x\nRewriteRule ^d$ /e [R]")
	f.Add("RewriteEngine on\nRewriteOptions InheritDown\nRewriteRule ^/m$ /n [R]\n<VirtualHost *:80>\nServerName a\nRewriteOptions IgnoreInherit MergeBase\nRewriteRule ^/v$ /w [R]\n</VirtualHost>\n<VirtualHost *:80>\nRewriteOptions InheritBefore\n</VirtualHost>")
	f.Add("RewriteEngine on\nRewriteCond %{HTTP_HOST} ^a\nRewriteRule ^/(.*)$ http://127.0.0.1:3000/$1?x=%1 [P,QSA]\nRewriteRule ^/q https://h [P]\nRewriteRule x http://$1/ [P]")
	f.Add("DocumentRoot /srv\nRewriteMap d dbm:none\nRewriteMap s dbm=sdbm:none\n<Location /l>\nRewriteEngine on\nRewriteRule www/l/(.*)$ /x/$1 [R,NE]\n</Location>\n<Files \"a*.[hx]tml\">\nRedirect 301 /a /b\n</Files>\n<FilesMatch \\.pdf$>\nRedirectMatch ^/(.*)$ /p/$1\n</FilesMatch>")
	f.Add("RewriteEngine on\nRewriteRule ^/(.*)-(.*)$ /$1_$2 [N]\nRewriteRule ^/b/(.*)$ /c?q=$1 [B=?&,BNP,BCTLS,BNE=/,R]\nRewriteCond %{QUERY_STRING} ^k=(.*)$\nRewriteRule ^/e$ /p?%1 [R=307]\nRewriteRule . - [F]")
	f.Add("DocumentRoot /srv\nRewriteEngine on\nRewriteBase /d/\nRewriteCond \"! -f %{REQUEST_FILENAME}\"\nRewriteRule ^(.*)\\.adoc$ %{ENV:P}://%{HTTP_HOST}/$1 [R=301]\n" +
		"RewriteRule ^(a|b)/\\d+$ $0/ [R,L]\nRewriteRule ^i/.*$ o/$0 [PT]\nRewriteRule x /y$0 [R]\nRedirect 301 /d/i /z\nRedirectMatch ^/m$ $0/\n" +
		"<If \"%{HTTPS} == 'on'\">\nRedirect /k /l\n</If>\n<ElseIf \"%{QUERY_STRING} =~ /^q/\">\nRewriteRule /srv/(.*)$ /q/$1 [R]\n</ElseIf>\n<Else>\nRewriteRule ^ https://%{HTTP_HOST}%{REQUEST_URI} [R=301,L]\nRewriteRule ^ in [L]\n</Else>")
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 4096 {
			return
		}
		lines := strings.Count(text, "\n") + 1
		dirs, err := Parse("f.conf", []byte(text))
		if err != nil {
			e, ok := err.(*Error)
			if !ok || e.File != "f.conf" || e.Line < 1 || e.Line > lines {
				t.Fatalf("error %v does not place itself in the text (%d lines)", err, lines)
			}
			return
		}
		var walk func([]*Directive)
		walk = func(ds []*Directive) {
			for _, d := range ds {
				if d.Line < 1 || d.Line > lines {
					t.Fatalf("directive %q at line %d of %d", d.Name, d.Line, lines)
				}
				walk(d.Block)
			}
		}
		walk(dirs)
		res := Translate(dirs, []HTAccess{{Dir: "/d", File: "f.conf", Dirs: dirs}})
		for _, n := range res.Notes {
			// The import's own variables are always declared: a step
			// refused for one is the import's bug, not the input's.
			if strings.Contains(n.Msg, "unknown variable $a_") {
				t.Fatalf("%s", n)
			}
		}
		dir := t.TempDir()
		name, err := Write(dir, res, "fuzz")
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := config.Load(filepath.Join(dir, filepath.Base(name)))
		if err != nil {
			t.Fatalf("the import of\n%s\ndoes not load: %v\n%s", text, err, res.TOML(""))
		}
		// The self-check reads any input without panicking.
		res.SelfCheck(cfg.Locations)
	})
}
