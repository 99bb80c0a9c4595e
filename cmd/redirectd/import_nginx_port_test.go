package main

import (
	"fmt"
	"os"
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
	t.Parallel()
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

// TestImportNginxPathsFromOut imports a certbot pair whose certificate
// files nginx names relative to its config, from the folder above, into
// another folder: the written config names them from its own folder, so
// that check reads them wherever it runs, and the two servers of one
// name are the plain and the TLS one.
func TestImportNginxPathsFromOut(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	os.Mkdir(filepath.Join(dir, "conf"), 0o755)
	cert, key := writeTestCert(t, filepath.Join(dir, "conf"), "a.test")
	os.Rename(cert, filepath.Join(dir, "conf", "c.pem"))
	os.Rename(key, filepath.Join(dir, "conf", "k.pem"))
	writeFiles(t, dir, map[string]string{"conf/nginx.conf": `events {}
http {
    server { listen 443 ssl; server_name a.test; ssl_certificate c.pem; ssl_certificate_key k.pem; location /x/ { return 301 /y/; } }
    server { listen 80; server_name a.test; return 301 https://$host$request_uri; }
}
`})
	code, _, stderr := runCmd("import", "nginx", "-o", "out", "conf/nginx.conf")
	if code != 0 {
		t.Fatalf("import: exit %d\n%s", code, stderr)
	}
	body, _ := os.ReadFile(filepath.Join("out", "redirectd.toml"))
	for _, want := range []string{"cert = '../conf/c.pem'", "scheme = \"https\"", "scheme = \"http\""} {
		if !strings.Contains(string(body), want) {
			t.Errorf("the import lacks %q:\n%s", want, body)
		}
	}
	t.Chdir(t.TempDir())
	if code, out, errs := runCmd("check", "-config", filepath.Join(dir, "out", "redirectd.toml")); code != 0 {
		t.Errorf("check from another folder: exit %d\n%s%s", code, out, errs)
	}
}
