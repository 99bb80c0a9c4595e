package main

import (
	"crypto/tls"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/redirectd/redirectd/engine/testport"
	"github.com/redirectd/redirectd/internal/testutil"
)

// TestServeUpstreamGroups runs the binary with a default group, an
// https:// group verified against a ca_file and a route to it: misses
// under /blog/ of www.example.com reach the TLS origin with its literal
// Host, the rest the default one; a SIGHUP with the route moved applies
// it without a restart, and /metrics labels the servers by group.
func TestServeUpstreamGroups(t *testing.T) {
	t.Parallel()
	origin := func(name string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, "%s saw %s %s", name, r.Host, r.URL.RequestURI())
		}
	}
	plain := httptest.NewServer(origin("plain"))
	defer plain.Close()
	ca := testutil.NewCA(t)
	blog := httptest.NewUnstartedServer(origin("blog"))
	blog.TLS = &tls.Config{Certificates: []tls.Certificate{ca.TLSCert(t, "blog.example.net")}}
	blog.StartTLS()
	defer blog.Close()

	addr, adminAddr := testport.Free(t), testport.Free(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "ca.pem"), ca.CertPEM, 0o644)
	file := filepath.Join(dir, "r.toml")
	write := func(prefix string) {
		cfg := fmt.Sprintf("[server]\nlisten = %q\n\n[admin]\nlisten = %q\n\n[upstream]\nservers = [%q]\n\n"+
			"[upstreams.blog]\nservers = [\"https://%s\"]\nhost_header = \"blog.example.net\"\ntls_server_name = \"blog.example.net\"\nca_file = \"ca.pem\"\n\n"+
			"[[route]]\nhost = \"www.example.com\"\nprefix = %q\nupstream = \"blog\"\n\n[[rule]]\nfrom = \"/a\"\nto = \"/b\"\n",
			addr, adminAddr, plain.Listener.Addr().String(), blog.Listener.Addr().String(), prefix)
		if err := os.WriteFile(file, []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("/blog/")
	nd := startNode(t, nodeConfig{File: file})
	cmd, stderr := nd.cmd, nd.stderr
	get := func(path string) string {
		code, body := httpGet(t, "http://"+addr+path, "www.example.com")
		return fmt.Sprintf("%d %s", code, body)
	}
	for path, want := range map[string]string{
		"/blog/post": "200 blog saw blog.example.net /blog/post",
		"/news/x":    "200 plain saw www.example.com /news/x",
	} {
		if got := get(path); got != want {
			t.Errorf("%s: %q, want %q\n%s", path, got, want, stderr.String())
		}
	}
	write("/news/")
	cmd.Process.Signal(syscall.SIGHUP)
	if !testutil.Eventually(testutil.Patience, func() bool { return strings.HasPrefix(get("/news/x"), "200 blog saw") }) {
		t.Fatalf("after the reload /news/x still gets %q\n%s", get("/news/x"), stderr.String())
	}
	if got := get("/blog/post"); !strings.HasPrefix(got, "200 plain saw") {
		t.Errorf("after the reload /blog/post: %q, want the default group", got)
	}
	if strings.Contains(stderr.String(), "restart to apply") || strings.Contains(stderr.String(), "take effect only after a restart") {
		t.Errorf("the reload asked for a restart:\n%s", stderr.String())
	}
	_, m := httpGet(t, "http://"+adminAddr+"/metrics", "")
	for _, want := range []string{
		`redirectd_upstream_requests_total{group="blog",server="` + blog.Listener.Addr().String() + `",result="answered"} 2`,
		`redirectd_upstream_server_up{group="default",server="` + plain.Listener.Addr().String() + `"} 1`,
	} {
		if !strings.Contains(m, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}
