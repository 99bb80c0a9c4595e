package tlsconf

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/redirectd/redirectd/internal/testutil"

	"github.com/caddyserver/certmagic"
)

// TestCleanStorage checks that the cleaning deletes a certificate (with
// its key) once expired past the grace period, and keeps one that is
// still valid: names removed from the rules keep their certificates until
// then.
func TestCleanStorage(t *testing.T) {
	oldGrace := cleanGrace
	cleanGrace = 0
	t.Cleanup(func() { cleanGrace = oldGrace })
	storage := t.TempDir()
	m := newManager(t, &Settings{
		File: "redirectd.toml", TLSListen: "127.0.0.1:0",
		ACME: &ACME{CA: "https://127.0.0.1:1/dir", Storage: storage, Names: []string{}, OnDemand: true},
	})
	st := m.acme.Load()
	ca := testutil.NewCA(t)
	put := func(name string, notAfter time.Time) string {
		dir := filepath.Join(storage, filepath.FromSlash(certmagic.StorageKeys.CertsSitePrefix(st.issuer.IssuerKey(), name)))
		c, k := ca.WriteCert(t, t.TempDir(), name, notAfter, name)
		for from, to := range map[string]string{c: name + ".crt", k: name + ".key"} {
			b, err := os.ReadFile(from)
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(dir, to), b)
		}
		return filepath.Join(dir, name+".crt")
	}
	expired := put("gone.example.com", time.Now().Add(-time.Minute))
	valid := put("kept.example.com", time.Now().Add(time.Hour))
	if !st.stored(context.Background(), "gone.example.com") {
		t.Fatal("the test put the certificate where the manager does not look")
	}
	m.cleanStorage()
	if _, err := os.Stat(expired); !os.IsNotExist(err) {
		t.Errorf("expired certificate still in storage: %v", err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(expired), "gone.example.com.key")); !os.IsNotExist(err) {
		t.Errorf("expired certificate's key still in storage: %v", err)
	}
	if _, err := os.Stat(valid); err != nil {
		t.Errorf("valid certificate removed: %v", err)
	}
}
