package redisstore

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/redirectd/redirectd/internal/testutil"
)

// writeCert writes a certificate for 127.0.0.1 and "redis.test" signed by
// parent (self-signed, a CA, when parent is nil) and its key into dir as
// name.crt and name.key.
func writeCert(t *testing.T, dir, name string, parent *x509.Certificate, parentKey *ecdsa.PrivateKey) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		DNSNames: []string{"redis.test"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}}
	if parent == nil {
		tmpl.IsCA, tmpl.BasicConstraintsValid, tmpl.KeyUsage = true, true, x509.KeyUsageCertSign
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, name+".crt"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(filepath.Join(dir, name+".key"), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600)
	cert, _ := x509.ParseCertificate(der)
	return cert, key
}

// TestTLS talks to a redis-server that speaks only TLS: with the CA that
// signed its certificate it works, with client certificates too; with
// another CA or a server name the certificate lacks it fails.
func TestTLS(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ca, caKey := writeCert(t, dir, "ca", nil, nil)
	writeCert(t, dir, "server", ca, caKey)
	writeCert(t, dir, "client", ca, caKey)
	writeCert(t, dir, "other", nil, nil)
	p := func(n string) string { return filepath.Join(dir, n) }
	srv := testutil.RunRedisTLS(t, p("server.crt"), p("server.key"), p("ca.crt"))
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		c    Config
		ok   bool
	}{
		{"the server's CA", Config{TLS: true, CAFile: p("ca.crt")}, true},
		{"a server name it holds", Config{TLS: true, CAFile: p("ca.crt"), ServerName: "redis.test"}, true},
		{"a client certificate", Config{TLS: true, CAFile: p("ca.crt"), CertFile: p("client.crt"), KeyFile: p("client.key")}, true},
		{"another CA", Config{TLS: true, CAFile: p("other.crt")}, false},
		{"a server name it lacks", Config{TLS: true, CAFile: p("ca.crt"), ServerName: "elsewhere.test"}, false},
		{"no TLS", Config{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRedis(t, srv, tc.c)
			err := r.Store(ctx, "k", []byte("v"))
			if (err == nil) != tc.ok {
				t.Fatalf("Store = %v, want success %v", err, tc.ok)
			}
			if tc.ok {
				if v, err := r.Load(ctx, "k"); err != nil || string(v) != "v" {
					t.Errorf("Load = %q, %v", v, err)
				}
			}
		})
	}
	if _, err := NewRedis(Config{TLS: true, CAFile: p("missing.crt")}, nil); err == nil {
		t.Error("NewRedis with a missing CA file succeeded")
	}
}
