package console

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/redirectd/redirectd/engine/admin"
	"github.com/redirectd/redirectd/engine/admin/edit"
	"github.com/redirectd/redirectd/internal/browsertest"
)

// TestOperationPageBrowser: a promote that outlasts the form's wait
// shows its operation's page (/ui/operations/N) in headless Chromium,
// with a screenshot and the accessibility check; once the promote has
// ended, the page's "Look again now" link leads to the versions page
// with the version made.
func TestOperationPageBrowser(t *testing.T) {
	t.Parallel()
	browsertest.Find(t)
	f := newEditFake()
	f.hold, f.ended = make(chan struct{}), make(chan struct{}, 1)
	var release sync.Once
	t.Cleanup(func() { release.Do(func() { close(f.hold) }) }) // a failed test leaves no promote held
	base, c := serve(t, admin.Options{}, f)
	c.wait = func() <-chan time.Time { // the form's wait is over at once
		ch := make(chan time.Time, 1)
		ch <- time.Time{}
		return ch
	}
	// The page is read in the browser for longer than the 2 s it waits
	// before loading itself again, and the keyboard check must see one
	// page: it loads again only once an hour here.
	c.refresh = 3600
	d, _ := f.NewDraft("amy")
	if err := f.AddEntry(d.ID, "amy", edit.Entry{Op: "add", From: "/a", To: "/b", Status: 301}, func(string) bool { return true }); err != nil {
		t.Fatal(err)
	}
	ctx := browsertest.Start(t)
	dir := browsertest.Artifacts(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/ui/drafts/"+d.ID), chromedp.SendKeys(chromedp.CSS("#message"), "move a")); err != nil {
		t.Fatal(err)
	}
	if err := browsertest.Submit(ctx, "#promote"); err != nil {
		t.Fatal(err)
	}
	if got := text(t, ctx, "#operation-state"); !strings.Contains(got, "still running") {
		t.Fatalf("the operation's page says %q", got)
	}
	if got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.pathname + ' ' + document.querySelector('meta[http-equiv=refresh]').content`)); err != nil || !strings.HasPrefix(got, "/ui/operations/") || !strings.HasSuffix(got, " 3600") {
		t.Errorf("the operation's page: %q %v, want /ui/operations/N loading itself again", got, err)
	}
	browsertest.Shot(t, ctx, dir, "operation")
	browsertest.CheckA11y(t, ctx, "operation")
	release.Do(func() { close(f.hold) })
	<-f.ended
	// The operation is done just after the fake's Promote returns: look
	// again until the page says so (each look is a page load, no sleep).
	for i := 0; i < 100 && exists(t, ctx, "#operation-state"); i++ {
		if err := browsertest.Submit(ctx, `a[href^="/ui/operations/"]`); err != nil {
			t.Fatal(err)
		}
	}
	if got := text(t, ctx, ".notice"); !strings.Contains(got, "promoted as version 2") {
		t.Errorf("after the promote ended: %q", got)
	}
}
