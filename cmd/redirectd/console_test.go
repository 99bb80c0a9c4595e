package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/redirectd/redirectd/internal/browsertest"
)

// TestConsoleBrowser drives the web console in a real headless Chromium
// against the binary: sign in, find a rule, explain a URL, turn a miss
// into a rule, upload 10,000 CSV rows into a draft and review its diff,
// promote it and see the new answer on the traffic port, roll back and
// see the old one, follow the versions page's diff link to the undone
// import's 10,000 removals, and sign in as an editor limited to *.brand-a.com,
// who cannot see brand-b's rules. Every page gets a screenshot and the
// accessibility check.
func TestConsoleBrowser(t *testing.T) {
	t.Parallel()
	browsertest.Find(t)
	n := startEditNode(t)
	ctx := browsertest.Start(t)
	ctx, cancel := context.WithTimeout(ctx, 4*time.Minute)
	defer cancel()
	dir := browsertest.Artifacts(t)
	base := "http://" + n.adminAddr
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	text := func(sel string) string {
		t.Helper()
		short, cancel := context.WithTimeout(ctx, 15*time.Second)
		defer cancel()
		s, err := chromedp.Run(short, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			body, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href + "\n" + document.body.innerText`))
			t.Fatalf("text of %s: %v; the page:\n%.2000s", sel, err, body)
		}
		return s
	}
	submit := func(what, sel string) {
		t.Helper()
		if err := browsertest.Submit(ctx, sel); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	look := func(page string) {
		t.Helper()
		browsertest.Shot(t, ctx, dir, page)
		browsertest.CheckA11y(t, ctx, page)
	}
	signIn := func(token string) {
		t.Helper()
		do("sign in as "+token, chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS("#token")))
		look("signin-" + token)
		do("sign in as "+token, chromedp.SendKeys(chromedp.CSS("#token"), token+"-token"))
		submit("sign in as "+token, "form.stack button")
	}

	signIn("pub")
	look("overview")
	if got := text("#rule-total"); got != "4" {
		t.Errorf("overview: %q rules, want 4", got)
	}

	do("find a rule", chromedp.Navigate(base+"/ui/rules"), chromedp.SendKeys(chromedp.CSS("#q"), "BRAND-B"))
	submit("find a rule", "form[role=search] button")
	if got := text("#rules tbody"); !strings.Contains(got, "www.brand-b.com") || strings.Contains(got, "www.brand-a.com") {
		t.Errorf("rules matching BRAND-B:\n%s", got)
	}
	look("rules")

	do("explain", chromedp.Navigate(base+"/ui/explain"), chromedp.SendKeys(chromedp.CSS("#url"), "http://www.brand-a.com/a?x=1"),
		chromedp.SendKeys(chromedp.CSS("#headers"), "Accept-Language: de"), chromedp.SendKeys(chromedp.CSS("#client"), "192.0.2.7"))
	submit("explain", "form.stack button")
	if got := text("#explain-out"); !strings.Contains(got, `host "www.brand-a.com"`) || !strings.Contains(got, "location: /b?x=1") {
		t.Errorf("explain:\n%s", got)
	}
	look("explain")

	for range 3 {
		n.wantAnswer("www.brand-a.com", "/gone-page", 404, "")
	}
	miss := "www.brand-a.com/gone-page"
	do("misses", chromedp.Navigate(base+"/ui/misses"), chromedp.WaitVisible(chromedp.CSS("#misses")))
	look("misses")
	do("turn a miss into a draft", chromedp.Click(chromedp.CSS(`input[aria-label="Pick `+miss+`"]`)),
		chromedp.SendKeys(chromedp.CSS(`input[aria-label="Target for `+miss+`"]`), "/found-page"))
	submit("turn a miss into a draft", `form[action="/ui/misses"][method=post] button[type=submit]`)
	if got := text("#draft-counts"); !strings.Contains(got, "1 added") {
		t.Errorf("the draft of a miss: %q", got)
	}
	look("draft-of-a-miss")
	promote := func(msg string) {
		t.Helper()
		do("promote", chromedp.SendKeys(chromedp.CSS("#message"), msg))
		submit("promote", `form[action$="/promote"] button`)
		if got := text(".notice"); !strings.Contains(got, "promoted as version") {
			t.Errorf("after promote: %q", got)
		}
	}
	promote("redirect a miss")
	n.wantAnswer("www.brand-a.com", "/gone-page", 301, "/found-page")

	csv := filepath.Join(t.TempDir(), "bulk.csv")
	var b strings.Builder
	b.WriteString("source,target,status\n")
	for i := range 10000 {
		fmt.Fprintf(&b, "www.brand-b.com/bulk/%d,/landing/%d,301\n", i, i)
	}
	os.WriteFile(csv, []byte(b.String()), 0o644)
	do("drafts", chromedp.Navigate(base+"/ui/drafts"))
	look("drafts")
	submit("new draft", `form[action="/ui/drafts"] button`)
	do("upload", chromedp.SetUploadFiles(chromedp.CSS("#file"), []string{csv}))
	submit("upload", `form[action$="/upload"] button`)
	if got := text(".notice"); !strings.Contains(got, "10,000 entries uploaded") {
		t.Fatalf("upload: %q", got)
	}
	if got := text("#draft-counts"); !strings.Contains(got, "10,000 added") {
		t.Errorf("the uploaded draft: %q", got)
	}
	if got := text("#diff tbody"); !strings.Contains(got, "/bulk/") || !strings.Contains(got, "/landing/") {
		t.Errorf("the uploaded draft's diff:\n%.500s", got)
	}
	look("draft-upload")
	promote("bulk import of 10,000")
	n.wantAnswer("www.brand-b.com", "/bulk/7777", 301, "/landing/7777")
	look("versions")
	if got := text("#versions tbody tr:first-child"); !strings.Contains(got, "pub") || !strings.Contains(got, "bulk import of 10,000") || !strings.Contains(got, "+10000") {
		t.Errorf("the audit trail's latest version: %q", got)
	}

	do("roll back", chromedp.Navigate(base+"/ui/versions"),
		chromedp.SendKeys(chromedp.CSS("#versions tbody tr:nth-child(2) input[name=message]"), "undo the bulk import"))
	submit("roll back", "#versions tbody tr:nth-child(2) button")
	n.wantAnswer("www.brand-b.com", "/bulk/7777", 404, "")
	n.wantAnswer("www.brand-a.com", "/gone-page", 301, "/found-page")
	look("rolled-back")

	// The bulk import, no longer serving, is the second row now: its
	// diff link compares it with the version serving (the miss's), two
	// versions made through drafts, so the diff is of 10,000 removals.
	if got := text("#versions tbody tr:nth-child(2)"); !strings.Contains(got, "bulk import of 10,000") {
		t.Fatalf("the versions after the rollback, second row: %q", got)
	}
	submit("diff with serving", "#versions tbody tr:nth-child(2) a")
	if got := text("main p"); !strings.Contains(got, "0 added, 0 changed, 10,000 removed") {
		t.Errorf("the diff of the bulk import with the serving version: %q", got)
	}
	if got := text("#diff tbody"); !strings.Contains(got, "/bulk/") || !strings.Contains(got, "/landing/") || !strings.Contains(got, "removed") {
		t.Errorf("the diff's rows:\n%.500s", got)
	}
	look("version-diff-edited")

	submit("sign out", "header form button")
	signIn("alice")
	do("scoped rules", chromedp.Navigate(base+"/ui/rules?q=brand"), chromedp.WaitVisible(chromedp.CSS("#rule-count")))
	if got := text("#rules tbody"); strings.Contains(got, "brand-b") || !strings.Contains(got, "www.brand-a.com") {
		t.Errorf("alice's rules matching brand:\n%s", got)
	}
	look("scoped-rules")
	do("scoped explain", chromedp.Navigate(base+"/ui/explain?url=http://www.brand-b.com/a"), chromedp.WaitVisible(chromedp.CSS(".error")))
	if got := text(".error"); !strings.Contains(got, "does not cover host") {
		t.Errorf("alice explaining brand-b: %q", got)
	}
	look("scoped-explain")
}
