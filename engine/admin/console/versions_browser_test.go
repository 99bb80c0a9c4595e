package console

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/redirectd/redirectd/engine/admin"
	"github.com/redirectd/redirectd/internal/browsertest"
)

// TestRollbackVersionZeroBrowser: on an edited node the config's own
// rules, version 0, are rolled back to from the versions page by
// number, as POST /versions/rollback?to=0 does; the page had said "not
// kept" and offered no form. Every version is named "version N", as
// the drafts name their base.
func TestRollbackVersionZeroBrowser(t *testing.T) {
	t.Parallel()
	browsertest.Find(t)
	f := newEditFake()
	base, _ := serve(t, admin.Options{}, f)
	ctx := browsertest.Start(t)
	dir := browsertest.Artifacts(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/ui/versions"), chromedp.WaitVisible(chromedp.CSS("#versions"))); err != nil {
		t.Fatal(err)
	}
	got, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#versions tbody")))
	if err != nil || !strings.Contains(got, "version 0") || !strings.Contains(got, "version 1") || strings.Contains(got, "not kept") {
		t.Errorf("versions: %q %v", got, err)
	}
	browsertest.Shot(t, ctx, dir, "versions-edited")
	browsertest.CheckA11y(t, ctx, "versions-edited")
	// The diff page names them so too.
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/ui/versions/diff?from=aaaaaaaaaaaa")); err != nil {
		t.Fatal(err)
	}
	if got := text(t, ctx, "#diff-summary"); !strings.HasPrefix(got, "From version 0 to version 1") {
		t.Errorf("the diff's summary: %q", got)
	}
	browsertest.Shot(t, ctx, dir, "version-diff-edited")
	browsertest.CheckA11y(t, ctx, "version-diff-edited")
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/ui/versions")); err != nil {
		t.Fatal(err)
	}
	sel := `button[aria-label="Roll back to version 0"]`
	if !exists(t, ctx, sel) {
		t.Fatal("no rollback form for version 0")
	}
	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS(`input[aria-label="Why roll back to version 0"]`), "undo the new pages")); err != nil {
		t.Fatalf("no rollback form for version 0: %v", err)
	}
	if err := browsertest.Submit(ctx, sel); err != nil {
		t.Fatal(err)
	}
	got, err = chromedp.Run(ctx, chromedp.Text(chromedp.CSS(".notice")))
	if err != nil || !strings.Contains(got, "the rules of version 0") {
		t.Errorf("after the rollback: %q %v", got, err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.rolled != "0" {
		t.Errorf("rolled back to %q, want 0", f.rolled)
	}
}

// exists says whether the page has an element sel, without waiting for
// one (chromedp's queries wait until it appears).
func exists(t *testing.T, ctx context.Context, sel string) bool {
	t.Helper()
	ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector(`+strconv.Quote(sel)+`) !== null`))
	if err != nil {
		t.Fatal(err)
	}
	return ok
}
