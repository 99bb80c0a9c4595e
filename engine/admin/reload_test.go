package admin

import (
	"fmt"
	"strings"
	"testing"

	"github.com/redirectd/redirectd/engine/admin/edit"
)

// callerReloader is a Backend whose reloads are given their caller.
type callerReloader struct {
	*fakeBackend
	by  []string
	err error
}

func (f *callerReloader) ReloadBy(a edit.Audit) (string, error) {
	f.by = append(f.by, a.Author)
	return "", f.err
}

// TestReloadCaller: POST /reload gives a CallerReloader its caller, for
// the audit log, and a reload that could not be recorded is a 507.
func TestReloadCaller(t *testing.T) {
	t.Parallel()
	f := &callerReloader{fakeBackend: newFake()}
	base := "http://" + start(t, Options{}, f).Addr()
	if got := do(t, "POST", base+"/reload", nil); got.Status != 200 {
		t.Errorf("reload: %d %q", got.Status, got.Body)
	}
	f.err = fmt.Errorf("%w: disk full", edit.ErrNotDurable)
	if got := do(t, "POST", base+"/reload", nil); got.Status != 507 || !strings.Contains(got.Body, "disk full") {
		t.Errorf("reload that cannot be recorded: %d %q, want 507 saying why", got.Status, got.Body)
	}
	if len(f.by) != 2 || f.by[0] != "local" || f.fakeBackend.reloads != 0 {
		t.Errorf("reloads by %v, Reload called %d times; want local twice through ReloadBy", f.by, f.fakeBackend.reloads)
	}
}
