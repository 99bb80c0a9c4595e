package daemon

import (
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/cmd/redirectd/internal/configload"
	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/engine/admin/edit"
	"github.com/redirectd/redirectd/internal/testutil"
)

// TestReloadLog: reloads asked for together (SIGHUP, POST /reload, the
// watch) each log "reload" with who asked, then its own "reloaded" (or
// "reload failed"), with nothing of another reload between; and each is
// still in the audit log.
func TestReloadLog(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "r.toml")
	conf := "[admin]\nedits_dir = \"edits\"\n\n[access_log]\nenabled = false\n\n[[rule]]\nfrom = \"/a\"\nto = \"/b\"\n"
	if err := os.WriteFile(file, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	var buf testutil.LockedBuffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	cfg, err := configload.Loader{}.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	ed, err := openEdits(cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	s := newService(engine.New(engine.Options{}, cfg.Set), cfg, file, configload.Loader{}, ed, log)
	rig := &editRig{t: t, dir: dir, file: file, s: s}

	asks := []edit.Audit{{Author: "SIGHUP"}, {Author: "ada"}, {Author: "watch", Message: "config files changed"}, {Author: "SIGHUP"}, {Author: "bob"}}
	var wg sync.WaitGroup
	for _, a := range asks {
		wg.Go(func() {
			if _, err := s.reload(a); err != nil {
				t.Errorf("reload by %s: %v", a.Author, err)
			}
		})
	}
	wg.Wait()
	if err := os.WriteFile(file, []byte("[[rule]]\nfrom = \"/a\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.reload(edit.Audit{Author: "carol"}); err == nil {
		t.Fatal("a reload of a rule without to: no error")
	}

	// Each line's msg and author, in order; the authors of the starts.
	msgRe, authorRe := regexp.MustCompile(`msg=("[^"]*"|\S+)`), regexp.MustCompile(`author=(\S+)`)
	var got, authors []string
	for line := range strings.Lines(buf.String()) {
		msg, author := strings.Trim(msgRe.FindStringSubmatch(line)[1], `"`), ""
		if m := authorRe.FindStringSubmatch(line); m != nil {
			author = m[1]
		}
		got = append(got, strings.TrimSpace(msg+" "+author))
		if msg == "reload" {
			authors = append(authors, author)
		}
	}
	if len(authors) != len(asks)+1 {
		t.Fatalf("%d reload lines, want one for each of %d asks:\n%s", len(authors), len(asks)+1, buf.String())
	}
	var want []string
	for _, a := range authors[:len(asks)] {
		want = append(want, "reload "+a, "reloaded")
	}
	want = append(want, "reload carol", "reload failed; the previous rules keep serving")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("log lines (-want +got):\n%s\n%s", diff, buf.String())
	}
	var asked []string
	for _, a := range asks {
		asked = append(asked, a.Author)
	}
	slices.Sort(asked)
	started := slices.Clone(authors[:len(asks)])
	slices.Sort(started)
	if diff := cmp.Diff(asked, started); diff != "" {
		t.Errorf("who the reload lines name (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(slices.Repeat([]string{"reload 0"}, len(asks)), actions(rig.audit())); diff != "" {
		t.Errorf("audit records (-want +got):\n%s", diff)
	}
}
