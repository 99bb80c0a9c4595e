package engine_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/redirectd/redirectd/engine"
)

// h2specModule is the h2spec release the conformance test runs. Its tags
// have no go.mod, so the module proxy serves v2 as +incompatible.
const h2specModule = "github.com/summerwind/h2spec/cmd/h2spec@v2.2.1+incompatible"

// h2specBinary installs h2spec once into the user's cache folder and
// returns its path; the test is skipped when it cannot be fetched (no
// module proxy).
func h2specBinary(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("h2spec"); err == nil {
		return p
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "redirectd-h2spec-v2.2.1")
	bin := filepath.Join(dir, "h2spec")
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	cmd := exec.Command("go", "install", h2specModule)
	cmd.Env = append(os.Environ(), "GOBIN="+dir, "GOFLAGS=-mod=mod")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("h2spec could not be installed (go install %s): %v\n%s", h2specModule, err, out)
	}
	return bin
}

// TestH2Spec runs every h2spec case, strict ones included, against the
// TLS port of a real server, and fails on any case that fails.
func TestH2Spec(t *testing.T) {
	if testing.Short() {
		t.Skip("h2spec runs 146 cases against a server")
	}
	bin := h2specBinary(t)
	srv := startH2(t, engine.Options{})
	host, port, _ := strings.Cut(srv.TLSAddr(), ":")
	report := filepath.Join(t.TempDir(), "h2spec.xml")
	cmd := exec.Command(bin, "-t", "-k", "-S", "-h", host, "-p", port, "-o", "5", "-j", report)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	text := out.String()
	if err != nil || !strings.Contains(text, " 0 failed") {
		t.Fatalf("h2spec failed (%v):\n%s", err, failures(text))
	}
	t.Log(lastLine(text))
}

// failures is the part of h2spec's output that lists the failed cases.
func failures(text string) string {
	if i := strings.Index(text, "Failures:"); i >= 0 {
		return text[i:]
	}
	return text
}

func lastLine(text string) string {
	text = strings.TrimSpace(text)
	return text[strings.LastIndexByte(text, '\n')+1:]
}
