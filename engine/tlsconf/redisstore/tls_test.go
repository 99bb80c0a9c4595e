package redisstore

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/redirectd/redirectd/internal/testutil"
)

// TestTLS talks to a redis-server that speaks only TLS: with the CA that
// signed its certificate it works, with client certificates too; with
// another CA or a server name the certificate lacks it fails.
func TestTLS(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ca := testutil.NewCA(t)
	ca.WriteCA(t, filepath.Join(dir, "ca.crt"))
	ca.WriteCert(t, dir, "server", time.Now().Add(time.Hour), "redis.test", "127.0.0.1")
	ca.WriteCert(t, dir, "client", time.Now().Add(time.Hour), "redis.test", "127.0.0.1")
	testutil.NewCA(t).WriteCA(t, filepath.Join(dir, "other.crt"))
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
