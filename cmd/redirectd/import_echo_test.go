package main

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/redirectd/redirectd/engine/testport"
)

// TestImportNginxEchoes imports locations that echo the request into the
// Location ($request_uri, $uri, a capture) and compares a real nginx with
// redirectd on requests whose escapes nginx keeps ($request_uri: the
// client's bytes, lower-case hex and %7E included) or decodes ($uri).
func TestImportNginxEchoes(t *testing.T) {
	t.Parallel()
	nginxBin := findNginx(t)
	dir := t.TempDir()
	addr := testport.Free(t)
	site := fmt.Sprintf(`server {
    listen %s default_server;
    server_name echo.test;
    location /r/ { return 301 https://new.example$request_uri; }
    location /u/ { return 301 https://new.example$uri; }
    location = /frag { return 301 /b#frag; }
}
`, addr)
	writeFiles(t, dir, map[string]string{"nginx.conf": nginxConf(dir), "sites/echo.conf": site})
	var reqs [][2]string
	for _, target := range []string{
		"/r/caf%c3%a9/x", "/r/%7Euser", "/r/a%2fb?q=%41", "/r/A%3a", "/r/plain?x=1",
		"/u/caf%c3%a9/x", "/u/%7Euser", "/u/HTML%3AElement%3Asmall", "/u/a%20b", "/u/x//y/./z",
		"/frag",
	} {
		reqs = append(reqs, [2]string{"echo.test", target})
	}
	roundTrip(t, nginxBin, dir, filepath.Join(dir, "nginx.conf"), addr, reqs)
}
