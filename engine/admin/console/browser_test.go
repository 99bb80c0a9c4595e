package console

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/redirectd/redirectd/engine/admin"
	"github.com/redirectd/redirectd/internal/browsertest"
)

// TestDiffPageBrowser shows the version diff page in headless Chromium
// with a diff of added rules (TestConsoleBrowser in cmd/redirectd
// follows the versions page's link to one of removed rules on the
// binary) and the error page, each with a screenshot and the
// accessibility check.
func TestDiffPageBrowser(t *testing.T) {
	t.Parallel()
	browsertest.Find(t)
	base, _ := serve(t, admin.Options{}, newFake())
	ctx := browsertest.Start(t)
	dir := browsertest.Artifacts(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/ui/versions/diff?from=aaaaaaaaaaaa"), chromedp.WaitVisible(chromedp.CSS("#diff"))); err != nil {
		t.Fatal(err)
	}
	got, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#diff tbody")))
	if err != nil || !strings.Contains(got, "/a-new") || !strings.Contains(got, "/b-new") {
		t.Errorf("diff page: %q %v", got, err)
	}
	browsertest.Shot(t, ctx, dir, "version-diff")
	browsertest.CheckA11y(t, ctx, "version-diff")
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/ui/versions/diff?from=cccccccccccc"), chromedp.WaitVisible(chromedp.CSS(".error"))); err != nil {
		t.Fatal(err)
	}
	browsertest.Shot(t, ctx, dir, "error")
	browsertest.CheckA11y(t, ctx, "error")
}

// TestRulesLocationsBrowser shows the rules page with its Locations
// table in headless Chromium, with a screenshot and the accessibility
// check.
func TestRulesLocationsBrowser(t *testing.T) {
	t.Parallel()
	browsertest.Find(t)
	base, _ := serve(t, admin.Options{}, newFake())
	ctx := browsertest.Start(t)
	dir := browsertest.Artifacts(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/ui/rules"), chromedp.WaitVisible(chromedp.CSS("#locations"))); err != nil {
		t.Fatal(err)
	}
	got, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#locations tbody")))
	if err != nil || !strings.Contains(got, "^~ /shop/") || !strings.Contains(got, "rewrite ^/shop/(.*)$ /store/$1 permanent;") {
		t.Errorf("locations table: %q %v", got, err)
	}
	browsertest.Shot(t, ctx, dir, "rules-locations")
	browsertest.CheckA11y(t, ctx, "rules-locations")
}
