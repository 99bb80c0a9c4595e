package console

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/redirectd/redirectd/engine/admin"
	"github.com/redirectd/redirectd/engine/admin/edit"
	"github.com/redirectd/redirectd/internal/browsertest"
)

// draftBrowser serves f's console, makes a draft with entries and
// opens its page in a headless Chromium.
func draftBrowser(t *testing.T, f *editFake, entries ...edit.Entry) (context.Context, string, string) {
	t.Helper()
	browsertest.Find(t)
	base, _ := serve(t, admin.Options{}, f)
	d, _ := f.NewDraft("amy")
	for _, e := range entries {
		if err := f.AddEntry(d.ID, "amy", e, func(string) bool { return true }); err != nil {
			t.Fatal(err)
		}
	}
	ctx := browsertest.Start(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/ui/drafts/"+d.ID)); err != nil {
		t.Fatal(err)
	}
	text(t, ctx, "#draft-counts") // fails at once where the page is an error
	return ctx, base, browsertest.Artifacts(t)
}

// text is the text of the page's element sel, failing the test when
// there is none.
func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	if !exists(t, ctx, sel) {
		t.Fatalf("the page has no %s", sel)
	}
	got, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestPromoteConfirmsProblemsBrowser: a draft whose checks find a loop
// is not promoted at the first click; a page lists the problems and
// Promote anyway promotes it, with the message written first.
func TestPromoteConfirmsProblemsBrowser(t *testing.T) {
	t.Parallel()
	f := newEditFake()
	f.problems = []edit.Problem{{Kind: "loop", Detail: "/a redirects to /b, which redirects back to /a"}}
	ctx, _, dir := draftBrowser(t, f, edit.Entry{Op: "add", From: "/a", To: "/b", Status: 301})
	text(t, ctx, "#promote")
	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS("#message"), "move a")); err != nil {
		t.Fatal(err)
	}
	if err := browsertest.Submit(ctx, "#promote"); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	n := len(f.promoted)
	f.mu.Unlock()
	if n != 0 {
		t.Fatal("promoted at the first click despite a loop")
	}
	if got := text(t, ctx, "#problems"); !strings.Contains(got, "loop: /a redirects to /b") {
		t.Errorf("the confirmation lists %q", got)
	}
	browsertest.Shot(t, ctx, dir, "promote-confirm")
	browsertest.CheckA11y(t, ctx, "promote-confirm")
	if err := browsertest.Submit(ctx, "#promote-anyway"); err != nil {
		t.Fatal(err)
	}
	if got := text(t, ctx, ".notice"); !strings.Contains(got, "promoted as version 2") {
		t.Errorf("after Promote anyway: %q", got)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.promoted) != 1 || f.promoted[0].Message != "move a" {
		t.Errorf("promoted %+v, want one with the message", f.promoted)
	}
}

// TestPromoteWithoutProblemsBrowser: a draft without problems is
// promoted at one click.
func TestPromoteWithoutProblemsBrowser(t *testing.T) {
	t.Parallel()
	f := newEditFake()
	ctx, _, _ := draftBrowser(t, f, edit.Entry{Op: "add", From: "/a", To: "/b", Status: 301})
	text(t, ctx, "#promote")
	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS("#message"), "move a")); err != nil {
		t.Fatal(err)
	}
	if err := browsertest.Submit(ctx, "#promote"); err != nil {
		t.Fatal(err)
	}
	if got := text(t, ctx, ".notice"); !strings.Contains(got, "promoted as version 2") {
		t.Errorf("after Promote: %q", got)
	}
}
