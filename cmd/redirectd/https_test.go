package main

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redirectd/redirectd/engine/testport"
	"github.com/redirectd/redirectd/internal/testutil"
)

// writeCert writes a certificate for names, valid for life, from a CA of
// its own, as name.crt and name.key in dir, and returns the certificate.
func writeCert(t *testing.T, dir, name string, life time.Duration, names ...string) *x509.Certificate {
	t.Helper()
	certFile, _ := testutil.NewCA(t).WriteCert(t, dir, name, time.Now().Add(life), names...)
	return testutil.ParseCertFile(t, certFile)
}

// httpsGet sends one request over TLS with SNI name and returns the answer
// and the certificate the server presented.
func httpsGet(t *testing.T, addr, sni, req string) (*http.Response, *x509.Certificate) {
	t.Helper()
	c, err := tls.DialWithDialer(&net.Dialer{Timeout: testutil.Patience}, "tcp", addr, &tls.Config{ServerName: sni, InsecureSkipVerify: true})
	if err != nil {
		t.Fatalf("TLS handshake with %s (SNI %q): %v", addr, sni, err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(testutil.Patience))
	io.WriteString(c, req)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("reading the answer over TLS: %v", err)
	}
	io.ReadAll(resp.Body)
	return resp, c.ConnectionState().PeerCertificates[0]
}

// TestServeHTTPS runs the binary with [tls]: answers over TLS with HSTS,
// SNI choosing among certificate files, the plain port's https_redirect
// with the ACME challenge path exempt, certificate reload with SIGHUP (a
// broken certificate keeps the old set and shows in /readyz), and the TLS
// metrics.
func TestServeHTTPS(t *testing.T) {
	t.Parallel()
	addr, tlsAddr, adminAddr := testport.Free(t), testport.Free(t), testport.Free(t)
	dir := t.TempDir()
	certs := filepath.Join(dir, "certs")
	os.Mkdir(certs, 0o755)
	a := writeCert(t, certs, "a", 90*24*time.Hour, "a.example", "*.a.example")
	b := writeCert(t, certs, "b", 30*24*time.Hour, "b.example")
	file := filepath.Join(dir, "r.toml")
	conf := fmt.Sprintf(`[server]
listen = %q
https_redirect = true

[admin]
listen = %q

[tls]
listen = %q
certificates_dir = "certs"
hsts = "max-age=31536000"

[acme]
storage = "acme"
ca = "https://127.0.0.1:1/directory"
hosts = ["a.example"]

[[rule]]
from = "/old"
to = "/new"
`, addr, adminAddr, tlsAddr)
	os.WriteFile(file, []byte(conf), 0o644)
	nd := startNode(t, nodeConfig{File: file, Args: []string{"-log-format", "json"}})
	cmd, stderr := nd.cmd, nd.stderr
	if _, _, err := firstAnswer(addr, "/old", time.Now().Add(10*time.Second)); err != nil {
		t.Fatalf("plain port: %v", err)
	}

	// Over TLS: the rule answers, with HSTS, and no https redirect.
	resp, _ := httpsGet(t, tlsAddr, "a.example", "GET /old HTTP/1.1\r\nHost: a.example\r\n\r\n")
	if resp.StatusCode != 301 || resp.Header.Get("Location") != "/new" || resp.Header.Get("Strict-Transport-Security") != "max-age=31536000" {
		t.Errorf("over TLS: %d Location %q HSTS %q", resp.StatusCode, resp.Header.Get("Location"), resp.Header.Get("Strict-Transport-Security"))
	}
	// SNI: exact, wildcard, the other file, and the default (first in
	// name order) for an unknown name.
	for _, tc := range []struct {
		sni  string
		want *x509.Certificate
	}{{"a.example", a}, {"x.a.example", a}, {"b.example", b}, {"unknown.example", a}} {
		if _, got := httpsGet(t, tlsAddr, tc.sni, "GET /old HTTP/1.1\r\nHost: x\r\n\r\n"); !got.Equal(tc.want) {
			t.Errorf("SNI %q got the certificate of %v, want %v", tc.sni, got.DNSNames, tc.want.DNSNames)
		}
	}

	// The plain port redirects to https, except ACME challenges, which no
	// order knows here: 404, not a redirect.
	plain := func(path string) *http.Response {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(testutil.Patience))
		fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: a.example\r\n\r\n", path)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		io.ReadAll(resp.Body)
		return resp
	}
	if r := plain("/old"); r.StatusCode != 301 || r.Header.Get("Location") != "https://a.example/old" || r.Header.Get("Strict-Transport-Security") != "" {
		t.Errorf("plain /old: %d %q (HSTS %q), want 301 to https without HSTS", r.StatusCode, r.Header.Get("Location"), r.Header.Get("Strict-Transport-Security"))
	}
	if r := plain("/.well-known/acme-challenge/unknown-token"); r.StatusCode != 404 {
		t.Errorf("ACME challenge for an unknown token: %d, want 404 (challenges are exempt from https_redirect)", r.StatusCode)
	}

	admin := func(path string) (int, string) {
		resp, err := http.Get("http://" + adminAddr + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	_, m := admin("/metrics")
	for _, want := range []string{
		`redirectd_tls_handshakes_total{version="1.3"}`,
		`redirectd_tls_certificate_expiry_seconds{name="b.example",source="file"}`,
		`redirectd_acme_http_challenges_total{result="unknown"} 1`,
	} {
		if !strings.Contains(m, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}

	// A broken certificate: the reload fails, the old certificates serve,
	// /readyz says which file.
	os.WriteFile(filepath.Join(certs, "b.crt"), []byte("not a certificate"), 0o644)
	cmd.Process.Signal(syscall.SIGHUP)
	var code int
	var body string
	if !testutil.Eventually(testutil.Patience, func() bool {
		code, body = admin("/readyz")
		return code == 503 && strings.Contains(body, "b.crt")
	}) {
		t.Fatalf("/readyz after a broken certificate: %d %q", code, body)
	}
	if _, got := httpsGet(t, tlsAddr, "b.example", "GET /old HTTP/1.1\r\nHost: b.example\r\n\r\n"); !got.Equal(b) {
		t.Errorf("after a failed reload, b.example got %v, want the old certificate", got.DNSNames)
	}
	// Fixed: a new certificate for b.example serves, /readyz is 200.
	b2 := writeCert(t, certs, "b", 60*24*time.Hour, "b.example")
	cmd.Process.Signal(syscall.SIGHUP)
	var got *x509.Certificate
	if !testutil.Eventually(testutil.Patience, func() bool {
		_, got = httpsGet(t, tlsAddr, "b.example", "GET /old HTTP/1.1\r\nHost: b.example\r\n\r\n")
		code, _ = admin("/readyz")
		return got.Equal(b2) && code == 200
	}) {
		t.Fatalf("after fixing the certificate: /readyz %d, certificate %v", code, got.SerialNumber)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Errorf("exit: %v\n%s", err, stderr.String())
	}
}
