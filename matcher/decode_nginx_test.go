package matcher

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redirectd/redirectd/internal/testutil"
)

// TestDecodedAsNginx compares decodePath with nginx's $uri for paths built
// from the pieces that decoding, slash merging and dot segments act on.
// nginx answers 400 to some (an invalid escape, ".." above the root),
// where a lookup goes on with decodePath's reading: those are skipped.
func TestDecodedAsNginx(t *testing.T) {
	bin := testutil.FindNginx(t)
	addr := startURINginx(t, bin)
	pieces := []string{"a", "B", "/", "//", ".", "..", "%2F", "%2f", "%2E", "%2e%2E", "%25", "%41", "%3A", "%3F", "%23",
		"%20", "%c3%a9", "%C3%89", "+", "%7E", "~", ":", "%5C"}
	paths := []string{"/docs/HTML%3AElement%3Asmall", "/A%2F..%2Fb", "/a/b/..", "/a/b/.", "/x%3Fy%23z", "/caf%c3%a9"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		var b strings.Builder
		b.WriteString("/")
		for range 1 + rng.IntN(7) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		paths = append(paths, b.String())
	}
	compared := 0
	for _, p := range paths {
		uri, ok := nginxURI(t, addr, p)
		if !ok {
			continue
		}
		compared++
		if got := string(decodePath(nil, []byte(p))); got != uri {
			t.Errorf("decodePath(%q) = %q, nginx's $uri %q", p, got, uri)
		}
	}
	t.Logf("%d of %d paths compared", compared, len(paths))
	if compared < len(paths)/2 {
		t.Errorf("nginx answered only %d of %d paths", compared, len(paths))
	}
}

// startURINginx runs nginx answering every request with its $uri.
func startURINginx(t *testing.T, bin string) string {
	t.Helper()
	dir := t.TempDir()
	addr := freeAddr(t)
	conf := filepath.Join(dir, "nginx.conf")
	os.WriteFile(conf, []byte(fmt.Sprintf(`worker_processes 1;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log;
events { worker_connections 64; }
http {
    access_log off;
    client_body_temp_path %[1]s/body;
    proxy_temp_path %[1]s/proxy;
    fastcgi_temp_path %[1]s/fastcgi;
    uwsgi_temp_path %[1]s/uwsgi;
    scgi_temp_path %[1]s/scgi;
    server { listen %[2]s; location / { return 200 "[$uri]"; } }
}
`, dir, addr)), 0o644)
	testutil.RunNginx(t, bin, dir, conf, addr)
	return addr
}

// nginxURI returns nginx's $uri for target, false when nginx refuses it.
func nginxURI(t *testing.T, addr, target string) (string, bool) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, testutil.Patience)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(testutil.Patience))
	fmt.Fprintf(c, "GET %s HTTP/1.0\r\n\r\n", target)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("%s: %v", target, err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		return "", false
	}
	return strings.TrimSuffix(strings.TrimPrefix(string(body), "["), "]"), true
}
