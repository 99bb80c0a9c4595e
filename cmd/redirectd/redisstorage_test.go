package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redirectd/redirectd/engine/testport"
	"github.com/redirectd/redirectd/internal/testutil"
)

// TestServeRedisStorage runs the server with [acme.redis] and kills
// redis-server under it: /metrics says the storage is down and back,
// the log says so once each way, /readyz stays 200 and HTTPS keeps
// serving throughout.
func TestServeRedisStorage(t *testing.T) {
	t.Parallel()
	srv := testutil.RunRedis(t, "--requirepass", "sesame")
	addr, tlsAddr, adminAddr := testport.Free(t), testport.Free(t), testport.Free(t)
	dir := t.TempDir()
	certs := filepath.Join(dir, "certs")
	os.Mkdir(certs, 0o755)
	writeCert(t, certs, "a", 90*24*time.Hour, "a.example")
	os.WriteFile(filepath.Join(dir, "redis.pass"), []byte("sesame\n"), 0o600)
	file := filepath.Join(dir, "r.toml")
	os.WriteFile(file, []byte(fmt.Sprintf(`[server]
listen = %q

[admin]
listen = %q

[tls]
listen = %q
certificates_dir = "certs"

[acme]
storage = "acme"
ca = "https://127.0.0.1:1/directory"
hosts = []

[acme.redis]
address = %q
password_file = "redis.pass"
key_prefix = "test/"

[[rule]]
from = "/old"
to = "/new"
`, addr, adminAddr, tlsAddr, srv.Addr)), 0o644)
	stderr := startNode(t, nodeConfig{File: file, Args: []string{"-log-format", "json"}}).stderr
	admin := func(path string) (int, string) { return httpGet(t, "http://"+adminAddr+path, "") }
	up := func(want float64) {
		t.Helper()
		testutil.WaitFor(t, testutil.Patience, fmt.Sprintf("redirectd_tls_storage_up %v", want), func() bool {
			_, m := admin("/metrics")
			v, ok := testutil.Metric(m, `redirectd_tls_storage_up{backend="redis"}`)
			return ok && v == want
		})
		if code, body := admin("/readyz"); code != 200 {
			t.Errorf("/readyz = %d %q; it must not depend on Redis", code, body)
		}
		if resp, _ := httpsGet(t, tlsAddr, "a.example", "GET /old HTTP/1.1\r\nHost: a.example\r\n\r\n"); resp.StatusCode != 301 {
			t.Errorf("over TLS: %d, want 301", resp.StatusCode)
		}
	}
	up(1)
	if _, m := admin("/metrics"); !strings.Contains(m, "# HELP redirectd_tls_storage_up ") {
		t.Error("/metrics has no HELP for redirectd_tls_storage_up")
	}
	srv.Stop()
	up(0)
	srv.Start()
	up(1)
	// The gauge is set before the line is logged, and the line comes
	// through a pipe: wait for it rather than read the log at once.
	testutil.WaitFor(t, testutil.Patience, "the log line for Redis's return", func() bool {
		return strings.Contains(stderr.String(), "redis is reachable")
	})
	log := stderr.String()
	if strings.Count(log, "redis is unreachable") != 1 || !strings.Contains(log, "redis is reachable") {
		t.Errorf("want one line for the outage and one for the return:\n%s", log)
	}
}
