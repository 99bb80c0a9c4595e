package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/redirectd/redirectd/engine/testport"
)

// TestImportNginxLiteralPort: a return and rewrites whose target writes a
// literal port after $host, with the path right after it
// (https://$host:18443$request_uri), are imported and answer as nginx
// does. The import's check once filled $request_uri with a letter and
// read the port as "18443x", and left the return out.
func TestImportNginxLiteralPort(t *testing.T) {
	nginxBin := findNginx(t)
	dir := t.TempDir()
	addr := testport.Free(t)
	site := fmt.Sprintf(`server {
    listen %[1]s;
    server_name example.com;
    return 301 https://$host:18443$request_uri;
}
server {
    listen %[1]s;
    server_name b.example.com;
    rewrite ^/a/(.*)$ https://$host:18443/b/$1 permanent;
    rewrite ^/c(/.*)$ https://$host:18443$1 redirect;
    rewrite ^/d/ https://$host:18443$request_uri? permanent;
    location / { return 404; }
}
`, addr)
	writeFiles(t, dir, map[string]string{"nginx.conf": nginxConf(dir), "sites/site.conf": site})
	reqs := [][2]string{
		{"example.com", "/"}, {"example.com", "/x/y?q=1"}, {"EXAMPLE.com", "/a%20b"},
		{"b.example.com", "/a/x?q=1"}, {"b.example.com", "/c/x/y"}, {"b.example.com", "/d/z?q=2"},
		{"b.example.com", "/e"},
	}
	stderr, _ := roundTrip(t, nginxBin, dir, filepath.Join(dir, "nginx.conf"), addr, reqs)
	if strings.Contains(stderr, "left out") {
		t.Errorf("the import left something out:\n%s", stderr)
	}
}
