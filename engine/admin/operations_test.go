package admin

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/redirectd/redirectd/engine/admin/edit"
	"github.com/redirectd/redirectd/internal/testutil"
)

// slowEditor is a fakeEditor whose Promote waits until the test lets it
// end, with the error the test gives.
type slowEditor struct {
	*fakeEditor
	started chan struct{}
	finish  chan error
}

func (f *slowEditor) Promote(string, edit.Audit, edit.Scope) (int, error) {
	close(f.started)
	return 9, <-f.finish
}

// TestPromoteLong: a promote that outlasts promptWait is answered 202
// with a status URL, runs on to its end (the client gone or not), and
// its outcome is read there: no promote loses its answer to the write
// timeout. The test's clock is a channel: no sleeps.
func TestPromoteLong(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		err  error
		want map[string]any
	}{
		{"done", nil, map[string]any{"id": "1", "state": "done", "status": 200.0, "version": 9.0}},
		{"failed", edit.ErrNotDurable, map[string]any{"id": "1", "state": "failed", "status": 507.0, "error": edit.ErrNotDurable.Error()}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := &slowEditor{fakeEditor: &fakeEditor{fakeBackend: newFake()}, started: make(chan struct{}), finish: make(chan error)}
			s := start(t, Options{}, f)
			late := make(chan time.Time)
			s.ops.wait = func() <-chan time.Time { return late }
			type answer struct {
				code     int
				location string
				body     string
			}
			got := make(chan answer)
			go func() {
				resp, err := http.Post("http://"+s.Addr()+"/drafts/d1/promote", "application/json", strings.NewReader(`{"message":"m"}`))
				if err != nil {
					t.Error(err)
					got <- answer{}
					return
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				got <- answer{resp.StatusCode, resp.Header.Get("Location"), string(b)}
			}()
			<-f.started
			close(late) // promptWait passes with the promote still running
			a := <-got
			if a.code != 202 || a.location != "/operations/1" || !strings.Contains(a.body, `"status_url": "/operations/1"`) {
				t.Fatalf("a promote past promptWait: %d %q %s, want 202 with /operations/1", a.code, a.location, a.body)
			}
			status := func() map[string]any {
				resp, err := http.Get("http://" + s.Addr() + a.location)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				var m map[string]any
				json.NewDecoder(resp.Body).Decode(&m)
				return m
			}
			if st := status(); st["state"] != "running" {
				t.Errorf("status while running: %v", st)
			}
			f.finish <- tt.err
			testutil.WaitFor(t, testutil.Patience, "the promote's outcome", func() bool { return status()["state"] != "running" })
			if st := status(); !equalJSON(st, tt.want) {
				t.Errorf("status: %v, want %v", st, tt.want)
			}
		})
	}
}

func equalJSON(a, b map[string]any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// TestOperationNotFound: an unknown operation is a 404.
func TestOperationNotFound(t *testing.T) {
	t.Parallel()
	s := start(t, Options{}, &fakeEditor{fakeBackend: newFake()})
	resp, err := http.Get("http://" + s.Addr() + "/operations/42")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Errorf("unknown operation: %d, want 404", resp.StatusCode)
	}
}
