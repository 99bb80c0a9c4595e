package daemon

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redirectd/redirectd/config"
)

func TestJitter(t *testing.T) {
	const d = 10 * time.Second
	seen := map[time.Duration]bool{}
	for range 1000 {
		j := jitter(d)
		if j < d*8/10 || j > d*12/10 {
			t.Fatalf("jitter(%s) = %s, outside a fifth either way", d, j)
		}
		seen[j] = true
	}
	if len(seen) < 900 {
		t.Errorf("jitter gave %d different waits in 1000, want them spread", len(seen))
	}
}

// TestHeaderFile checks that source_header_file is read at each fetch, so
// a rotated token is used without a reload.
func TestHeaderFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "header")
	get := headerFunc(config.RulesSource{SourceHeaderFile: file})
	if _, _, err := get(); err == nil || !strings.Contains(err.Error(), "source_header_file") {
		t.Errorf("missing file: %v, want an error naming source_header_file", err)
	}
	for _, tok := range []string{"one", "two"} {
		os.WriteFile(file, []byte("Authorization: Bearer "+tok+"\n"), 0o600)
		name, value, err := get()
		if err != nil || name != "Authorization" || value != "Bearer "+tok {
			t.Errorf("header file with token %s: %q %q %v", tok, name, value, err)
		}
	}
	os.WriteFile(file, []byte("Authorization: Bearer x\r\nX-Injected: 1\n"), 0o600)
	if _, _, err := get(); err == nil || strings.Contains(err.Error(), "Bearer x") {
		t.Errorf("a header file with two lines: %v, want an error without the secret", err)
	}
}
