package daemon

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redirectd/redirectd/cmd/redirectd/internal/configload"
	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/engine/admin/edit"
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

// TestSettleVersionLate checks the version Serve records after its
// listeners answer (settleVersion on a goroutine of its own): the same
// hash as recorded before serving, on a config of several files, and a
// reload asked before it is recorded waits for it, so the log lists
// the start's version first.
func TestSettleVersionLate(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"b.map": "/b1 /x;\n/b2 /y;\n", "c.csv": "source,target,status\n/c,/cc,301\n", "a.map": "/a /z;\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(dir, "r.toml")
	conf := "[[map]]\nfile = \"b.map\"\n\n[[rule]]\nfrom = \"/r\"\nto = \"/rr\"\n\n[[csv]]\nfile = \"c.csv\"\n\n[[map]]\nfile = \"a.map\"\n"
	if err := os.WriteFile(file, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	load := func() *config.Config {
		cfg, err := configload.Loader{}.Load(file)
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	log := slog.New(slog.DiscardHandler)
	cfg := load()
	before := newService(engine.New(engine.Options{}, cfg.Set), cfg, file, configload.Loader{}, nil, log).Versions()
	if len(before) != 1 || len(before[0].Hash) != 12 {
		t.Fatalf("versions recorded before serving: %+v", before)
	}

	cfg = load()
	s := makeService(engine.New(engine.Options{}, cfg.Set), cfg, file, configload.Loader{}, nil, log)
	var wg sync.WaitGroup
	wg.Go(func() {
		if _, err := s.reload(edit.Audit{Author: "SIGHUP"}); err != nil {
			t.Errorf("reload: %v", err)
		}
	})
	wg.Go(func() { s.settleVersion(cfg) })
	wg.Wait()
	late := s.Versions()
	if len(late) != 1 || late[0].Hash != before[0].Hash || late[0].Rules != before[0].Rules || !late[0].Serving {
		t.Errorf("versions with the hash computed late: %+v, want one serving %s of %d rules", late, before[0].Hash, before[0].Rules)
	}
	if sn := s.snap.Load(); sn == nil || sn.Hash != before[0].Hash {
		t.Errorf("the rules' snapshot: %+v, want hash %s", sn, before[0].Hash)
	}
}
