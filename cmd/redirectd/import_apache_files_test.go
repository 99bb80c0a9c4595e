package main

import "testing"

// TestImportApacheFiles: <Files>, <Files ~>, <FilesMatch> sections of
// the main server and of a .htaccess holding Redirects, against a real
// Apache serving a tree where the paths asked exist (the import assumes
// the path names a file); their Redirects after a <Location>'s, before
// the .htaccess's own.
func TestImportApacheFiles(t *testing.T) {
	t.Parallel()
	server := `<Files "a.html">
  Redirect 301 /fx/a.html /files-a
  Redirect 302 /fy /files-fy
  Redirect 301 /fz/a.html /files-fz
</Files>
<Files "*.ba[kx]">
  RedirectMatch 302 ^/(.*)\.ba.$ /backup/$1
</Files>
<FilesMatch "\.pdf$">
  Redirect 301 /docs /docs-moved
</FilesMatch>
<Files ~ "^old-">
  Redirect 301 /olds /new-olds
</Files>
<Location /fz>
  Redirect 302 /fz/a.html /from-location
</Location>
`
	sub := `<Files "b.html">
  Redirect 302 /sub/b.html /sub-b
</Files>
Redirect 301 /sub/b.html /sub-own
Redirect 301 /sub/c.html /sub-c
`
	paths := []string{"/fx/a.html", "/fx/a.html?q=1", "/fy/a.html", "/fy/b.html", "/fz/a.html", "/x.bak", "/d/y.bax", "/d/y.bat", "/docs/x.pdf", "/docs/y.txt",
		"/olds/old-1", "/olds/new-1", "/sub/b.html", "/sub/c.html", "/a.html", "/fx/A.HTML", "/fy/zz/a.html"}
	known := map[string]string{"/fy/zz/a.html": "the folder zz does not exist: Apache matches <Files> with zz, the import with the last segment (config/apache/README.md)"}
	apacheRoundTrip(t, func(dir, addr string) map[string]string {
		files := map[string]string{"httpd.conf": apacheConf(dir, addr, server), "www/sub/.htaccess": sub}
		for _, f := range []string{"fx/a.html", "fy/a.html", "fy/b.html", "fz/a.html", "x.bak", "d/y.bax", "d/y.bat", "docs/x.pdf", "docs/y.txt",
			"olds/old-1", "olds/new-1", "sub/b.html", "sub/c.html", "a.html"} {
			files["www/"+f] = "x\n"
		}
		return files
	}, []string{"/sub=www/sub/.htaccess"}, []string{"example.test"}, paths, known)
}
