package daemon

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/cmd/redirectd/internal/configload"
	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/engine/admin/edit"
	"github.com/redirectd/redirectd/engine/admin/edit/edits"
)

// editRig is a service over a config with [admin] edits_dir, as serve
// makes it, started again by restart as a new process would be.
type editRig struct {
	t    *testing.T
	dir  string
	file string
	s    *service
}

func newEditRig(t *testing.T) *editRig {
	t.Helper()
	r := &editRig{t: t, dir: t.TempDir()}
	r.file = filepath.Join(r.dir, "r.toml")
	conf := "[admin]\nedits_dir = \"edits\"\n\n[access_log]\nenabled = false\n\n[[rule]]\nfrom = \"/old\"\nto = \"/x\"\n"
	if err := os.WriteFile(r.file, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	r.restart()
	return r
}

// restart makes the service again from what is on disk.
func (r *editRig) restart() {
	r.t.Helper()
	log := slog.New(slog.DiscardHandler)
	cfg, err := configload.Loader{}.Load(r.file)
	if err != nil {
		r.t.Fatal(err)
	}
	ed, err := openEdits(cfg, log)
	if err == nil {
		err = applyEdits(ed, cfg, nil, log)
	}
	if err != nil {
		r.t.Fatal(err)
	}
	r.s = newService(engine.New(engine.Options{}, cfg.Set), cfg, r.file, configload.Loader{}, ed, log)
}

// promote promotes a draft adding from -> to, and returns the version
// number or the error.
func (r *editRig) promote(from, to string) (int, error) {
	r.t.Helper()
	all := func(string) bool { return true }
	d, err := r.s.NewDraft("ada")
	if err != nil {
		r.t.Fatal(err)
	}
	if err := r.s.AddEntry(d.ID, "ada", edit.Entry{Op: "add", From: from, To: to, Status: 301}, all); err != nil {
		r.t.Fatal(err)
	}
	return r.s.Promote(d.ID, edit.Audit{Author: "ada", Message: "add " + from}, all)
}

// answer returns where the rules serving send path, "" for nowhere.
func (r *editRig) answer(path string) string {
	for _, ri := range r.s.Rules() {
		if ri.From == path {
			return ri.To
		}
	}
	return ""
}

// audit returns the audit log's records, failing on a line that does
// not parse.
func (r *editRig) audit() []edit.Record {
	r.t.Helper()
	b, err := os.ReadFile(filepath.Join(r.dir, "edits", "audit.jsonl"))
	if err != nil && !os.IsNotExist(err) {
		r.t.Fatal(err)
	}
	var out []edit.Record
	for line := range bytes.Lines(b) {
		var rec edit.Record
		if err := json.Unmarshal(line, &rec); err != nil {
			r.t.Fatalf("audit line %q: %v", line, err)
		}
		out = append(out, rec)
	}
	return out
}

func actions(recs []edit.Record) []string {
	var out []string
	for _, r := range recs {
		out = append(out, fmt.Sprintf("%s %d", r.Action, r.Version))
	}
	return out
}

// TestPromoteNotDurable: a promote whose version file, audit record or
// commit cannot be written is not acknowledged (ErrNotDurable, 507), the
// rules served stay, and after a restart the change is not there and the
// audit log parses whole, with an abort for a record written.
func TestPromoteNotDurable(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		break_ func(r *editRig) (undo func())
		want   []string // the audit log after the failed promote 2
	}{
		{"version file", func(r *editRig) func() {
			return blockPath(r.t, filepath.Join(r.dir, "edits", "versions", "2.json.tmp"))
		}, []string{"promote 1"}},
		{"audit record", func(r *editRig) func() {
			return replaceWithDir(r.t, filepath.Join(r.dir, "edits", "audit.jsonl"))
		}, []string{"promote 1"}},
		{"commit record", func(r *editRig) func() {
			return blockPath(r.t, filepath.Join(r.dir, "edits", "current.tmp"))
		}, []string{"promote 1", "promote 2", "abort 2"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newEditRig(t)
			if n, err := r.promote("/one", "/1"); n != 1 || err != nil {
				t.Fatalf("promote 1: %d %v", n, err)
			}
			undo := tt.break_(r)
			_, err := r.promote("/two", "/2")
			undo()
			if !errors.Is(err, edit.ErrNotDurable) || edit.Status(err) != 507 {
				t.Fatalf("promote with the %s unwritable: %v (status %d), want ErrNotDurable, 507", tt.name, err, edit.Status(err))
			}
			if got := r.answer("/two"); got != "" {
				t.Errorf("the failed promote serves /two -> %s", got)
			}
			if d := cmp.Diff(tt.want, actions(r.audit())); d != "" {
				t.Errorf("audit log (-want +got):\n%s", d)
			}
			r.restart()
			if got := r.answer("/two"); got != "" {
				t.Errorf("after a restart the failed promote serves /two -> %s", got)
			}
			if got := r.answer("/one"); got != "/1" {
				t.Errorf("after a restart /one -> %q, want the promoted /1", got)
			}
			if _, err := r.s.Rollback("2", edit.Audit{Author: "ada", Message: "m"}); !errors.Is(err, edit.ErrUnknownVersion) {
				t.Errorf("rollback to the failed version 2: %v, want ErrUnknownVersion", err)
			}
			// A number the audit log names is not taken again.
			used := 0
			for _, rec := range r.audit() {
				used = max(used, rec.Version)
			}
			n, err := r.promote("/three", "/3")
			if err != nil || n <= used {
				t.Errorf("the next promote: %d %v, want a number after %d", n, err, used)
			}
		})
	}
}

// blockPath puts a folder where a temporary file is to be written, so
// the write fails as on a full disk.
func blockPath(t *testing.T, name string) func() {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(name, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	return func() { os.RemoveAll(name) }
}

// replaceWithDir moves the file name aside and puts a folder there.
func replaceWithDir(t *testing.T, name string) func() {
	t.Helper()
	os.Rename(name, name+".aside")
	if err := os.Mkdir(name, 0o755); err != nil {
		t.Fatal(err)
	}
	return func() { os.Remove(name); os.Rename(name+".aside", name) }
}

// TestRecoverEdits: what a crash between the steps of a promote leaves
// is completed or rolled back at start: a version file without a commit
// is removed and not listed, its audit record gets an abort, the version
// serving without a record gets one, and /versions lists the promoted
// versions kept, not only the one serving.
func TestRecoverEdits(t *testing.T) {
	t.Parallel()
	r := newEditRig(t)
	for i := 1; i <= 3; i++ {
		if _, err := r.promote(fmt.Sprintf("/p%d", i), "/x"); err != nil {
			t.Fatal(err)
		}
	}
	// Killed after the audit record of 4, before its commit; a torn
	// last line.
	r.s.ed.Store().Write(&edit.Version{Number: 4, Base: 3, Author: "ada", Message: "lost"})
	r.s.ed.AuditLog().Append(edit.Record{Action: "promote", Version: 4, Author: "ada"})
	f, _ := os.OpenFile(r.s.ed.AuditLog().Path(), os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"action":"prom`)
	f.Close()
	r.restart()
	if _, err := os.Stat(filepath.Join(r.dir, "edits", "versions", "4.json")); err == nil {
		t.Errorf("the file of version 4, never committed, is still there")
	}
	// Killed after the commit of 5, before its record (as an older
	// redirectd could be).
	st := r.s.ed.Store()
	st.Write(&edit.Version{Number: 5, Base: 3, Author: "bob", Message: "kept",
		Edits: []edit.Edit{{Entry: edit.Entry{Op: edit.OpAdd, Kind: "exact", From: "/p5", To: "/x", Status: 301}}}})
	st.Commit(5)
	r.restart()
	if d := cmp.Diff([]string{"promote 1", "promote 2", "promote 3", "promote 4", "abort 4", "promote 5"}, actions(r.audit())); d != "" {
		t.Errorf("audit log after recovery (-want +got):\n%s", d)
	}
	if recs := r.audit(); !recs[len(recs)-1].Recovered || recs[len(recs)-1].Author != "bob" {
		t.Errorf("the recovered record of 5: %+v", recs[len(recs)-1])
	}
	var listed []int
	for _, v := range r.s.Versions() {
		listed = append(listed, v.Number)
	}
	if d := cmp.Diff([]int{5, 3, 2, 1, 0}, listed); d != "" {
		t.Errorf("/versions after a restart (-want +got):\n%s", d)
	}
	if _, err := r.s.Rollback("4", edit.Audit{Author: "ada", Message: "m"}); !errors.Is(err, edit.ErrUnknownVersion) {
		t.Errorf("rollback to never-promoted 4: %v, want ErrUnknownVersion", err)
	}
	if msg, err := r.s.Rollback("2", edit.Audit{Author: "ada", Message: "back"}); err != nil {
		t.Errorf("rollback to 2 after a restart: %v", err)
	} else if !strings.Contains(msg, "serving version 6") {
		t.Errorf("rollback to 2: %q, want version 6 (4 and 5 are taken)", msg)
	}
}

// TestReloadAudited: a reload is a change to the rules served like any
// other: it goes through apply and is recorded with its caller.
func TestReloadAudited(t *testing.T) {
	t.Parallel()
	r := newEditRig(t)
	if _, err := r.s.ReloadBy(edit.Audit{Author: "ada"}); err != nil {
		t.Fatal(err)
	}
	recs := r.audit()
	if len(recs) != 1 || recs[0].Action != "reload" || recs[0].Author != "ada" || recs[0].Hash == "" {
		t.Errorf("audit after a reload: %+v, want one reload by ada with the version's hash", recs)
	}
}

// TestRulesetETagMatchesArchive: GET /ruleset's archive and ETag come
// from one snapshot: fetched without pause during many promotes, every
// archive holds exactly the rules of the version its ETag names (a
// fleet node that got older rules under a newer ETag would answer itself
// 304 and never load the change).
func TestRulesetETagMatchesArchive(t *testing.T) {
	t.Parallel()
	r := newEditRig(t)
	promotes := 200
	if testing.Short() {
		promotes = 50
	}
	cfg, err := configload.Loader{}.Load(r.file)
	if err != nil {
		t.Fatal(err)
	}
	local := localVersion(cfg, configload.Loader{}).Hash
	number := map[string]int{strconv.Quote(local): 0}
	for n := 1; n <= promotes; n++ {
		number[strconv.Quote(edits.EditedHash(local, n))] = n
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	var bad []string
	fetched := 0
	for range 2 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				rs, err := r.s.Ruleset()
				if err != nil {
					mu.Lock()
					bad = append(bad, err.Error())
					mu.Unlock()
					return
				}
				n, ok := number[rs.ETag]
				got := newestPromoted(t, rs.Data)
				mu.Lock()
				fetched++
				if !ok || got != n {
					bad = append(bad, fmt.Sprintf("ETag %s (version %d) with the rules of version %d", rs.ETag, n, got))
				}
				mu.Unlock()
			}
		})
	}
	for n := 1; n <= promotes; n++ {
		if _, err := r.promote(fmt.Sprintf("/p%d", n), "/x"); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	if len(bad) > 0 {
		t.Errorf("%d of %d fetches had an archive that is not its ETag's, first: %s", len(bad), fetched, bad[0])
	}
}

var promotedRule = regexp.MustCompile(`from = ['"]/p(\d+)['"]`)

// newestPromoted returns the highest n of a rule /pN in the archive.
func newestPromoted(t *testing.T, archive []byte) int {
	zr, err := gzip.NewReader(bytes.NewReader(archive))
	if err != nil {
		t.Error(err)
		return -1
	}
	tr := tar.NewReader(zr)
	if _, err := tr.Next(); err != nil {
		t.Error(err)
		return -1
	}
	text, _ := io.ReadAll(tr)
	newest := 0
	for _, m := range promotedRule.FindAllSubmatch(text, -1) {
		n, _ := strconv.Atoi(string(m[1]))
		newest = max(newest, n)
	}
	return newest
}
