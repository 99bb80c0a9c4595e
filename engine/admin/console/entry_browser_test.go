package console

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/engine/admin"
	"github.com/redirectd/redirectd/engine/admin/edit"
	"github.com/redirectd/redirectd/internal/browsertest"
)

// TestDraftPageLayoutBrowser: after a 500-row upload the draft page
// shows its summary, checks and Promote in the first screen, and the
// diff a page of 50 at a time (Promote sat under 200 rows, the page
// 7,514 px tall).
func TestDraftPageLayoutBrowser(t *testing.T) {
	t.Parallel()
	f := newEditFake()
	var entries []edit.Entry
	for i := range 500 {
		entries = append(entries, edit.Entry{Op: "add", From: "/old/" + strconv.Itoa(i), To: "/new/" + strconv.Itoa(i), Status: 301})
	}
	f.samples = []edit.Sample{{URL: "/old/0", Old: "forwarded", New: "301 /new/0"}}
	ctx, _, dir := draftBrowser(t, f, entries...)
	type layout struct {
		PromoteTop, Viewport, Height, Rows int
		ChecksFirst                        bool
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[layout](`({
		PromoteTop: Math.round(document.querySelector('#promote').getBoundingClientRect().top),
		Viewport: window.innerHeight,
		Height: document.documentElement.scrollHeight,
		Rows: document.querySelectorAll('#diff tbody tr').length,
		ChecksFirst: !!(document.querySelector('#checks').compareDocumentPosition(document.querySelector('#diff')) & Node.DOCUMENT_POSITION_FOLLOWING),
	})`))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("layout: %+v", got)
	if got.PromoteTop <= 0 || got.PromoteTop >= got.Viewport || got.Rows != draftPageSize || !got.ChecksFirst {
		t.Errorf("draft page: Promote at %d px (window %d), %d diff rows, checks first %v; want Promote in the window, %d rows, checks before the diff",
			got.PromoteTop, got.Viewport, got.Rows, got.ChecksFirst, draftPageSize)
	}
	if nav := text(t, ctx, `nav[aria-label="Diff pages"]`); !strings.Contains(nav, "Page 1 of 10") || !exists(t, ctx, "#next-page") {
		t.Errorf("diff pages: %q", nav)
	}
	browsertest.Shot(t, ctx, dir, "draft-500")
	browsertest.CheckA11y(t, ctx, "draft-500")
	if err := browsertest.Submit(ctx, "#next-page"); err != nil {
		t.Fatal(err)
	}
	if got := text(t, ctx, "#diff tbody"); !strings.Contains(got, "/old/50") || strings.Contains(got, "/old/49\n") {
		t.Errorf("page 2 of the diff: %.200q", got)
	}
}

// formValues reads the entry form's fields.
func formValues(t *testing.T, ctx context.Context) map[string]string {
	t.Helper()
	got, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]string](`Object.fromEntries(['op','kind','host','from','to','status'].map(n => [n, document.querySelector('#entry-form [name="'+n+'"]').value]))`))
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestEntryFormBrowser: the entry form offers the kinds (exact, prefix,
// regex) and the statuses 301, 302, 303, 307, 308, 410 and 451; a
// refused entry shows the reason with the form as it was filled in; a
// rule of the rules page has an Edit link that fills the form in, on a
// page that picks the draft.
func TestEntryFormBrowser(t *testing.T) {
	t.Parallel()
	f := newEditFake()
	ctx, base, dir := draftBrowser(t, f)
	kinds, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#ekind option')].map(o => o.value)`))
	if err != nil {
		t.Fatal(err)
	}
	statuses, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#estatus option')].map(o => o.value)`))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"", "exact", "prefix", "regex"}, kinds); diff != "" {
		t.Errorf("kinds (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"301", "302", "303", "307", "308", "410", "451"}, statuses); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	// A prefix without a target: refused, the input kept.
	if err := chromedp.Do(ctx,
		chromedp.SetValue(chromedp.CSS("#ekind"), "prefix"),
		chromedp.SendKeys(chromedp.CSS("#ehost"), "a.example"),
		chromedp.SendKeys(chromedp.CSS("#efrom"), "/old/"),
		chromedp.SetValue(chromedp.CSS("#estatus"), "308")); err != nil {
		t.Fatal(err)
	}
	if err := browsertest.Submit(ctx, "#add-entry"); err != nil {
		t.Fatal(err)
	}
	if got := text(t, ctx, "#entry-error"); !strings.Contains(got, "needs a target") {
		t.Errorf("the refusal says %q", got)
	}
	want := map[string]string{"op": "add", "kind": "prefix", "host": "a.example", "from": "/old/", "to": "", "status": "308"}
	if diff := cmp.Diff(want, formValues(t, ctx)); diff != "" {
		t.Errorf("the form after a refusal (-want +got):\n%s", diff)
	}
	browsertest.Shot(t, ctx, dir, "entry-refused")
	browsertest.CheckA11y(t, ctx, "entry-refused")
	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS("#eto"), "/new/")); err != nil {
		t.Fatal(err)
	}
	if err := browsertest.Submit(ctx, "#add-entry"); err != nil {
		t.Fatal(err)
	}
	if got := text(t, ctx, ".notice"); !strings.Contains(got, "entry added") {
		t.Errorf("after the entry: %q", got)
	}
	// The rules page's Edit link.
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/ui/rules?q=old-a")); err != nil {
		t.Fatal(err)
	}
	browsertest.Shot(t, ctx, dir, "rules-editable")
	browsertest.CheckA11y(t, ctx, "rules-editable")
	if err := browsertest.Submit(ctx, `a[aria-label="Edit a.example/old-a"]`); err != nil {
		t.Fatal(err)
	}
	want = map[string]string{"op": "change", "kind": "exact", "host": "a.example", "from": "/old-a", "to": "/new-a", "status": "301"}
	if diff := cmp.Diff(want, formValues(t, ctx)); diff != "" {
		t.Errorf("the edit page's form (-want +got):\n%s", diff)
	}
	if got := text(t, ctx, "#serving-rules tbody"); !strings.Contains(got, "/new-a") || !strings.Contains(got, "r.toml:1") {
		t.Errorf("the edit page's serving rule: %q", got)
	}
	browsertest.Shot(t, ctx, dir, "edit-rule")
	browsertest.CheckA11y(t, ctx, "edit-rule")
	if err := chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS("#edraft"), "d1"), chromedp.SetValue(chromedp.CSS("#eto"), "/newer-a")); err != nil {
		t.Fatal(err)
	}
	if err := browsertest.Submit(ctx, "#add-entry"); err != nil {
		t.Fatal(err)
	}
	if got := text(t, ctx, ".notice"); !strings.Contains(got, "entry added") {
		t.Errorf("after the edit: %q", got)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	wantEntries := []edit.Entry{
		{Op: "add", Host: "a.example", From: "/old/", To: "/new/", Status: 308, Kind: "prefix"},
		{Op: "change", Host: "a.example", From: "/old-a", To: "/newer-a", Status: 301, Kind: "exact"},
	}
	if diff := cmp.Diff(wantEntries, f.drafts["d1"].entries); diff != "" {
		t.Errorf("draft d1's entries (-want +got):\n%s", diff)
	}
}

// TestEntryConditionsBrowser: the entry form takes a rule's conditions
// (as the config's when table and query write them) and its header
// fields; a condition that is not TOML is refused with the form as it
// was filled in; the entry the draft holds carries them, and the
// draft's diff shows them, and its Edit link fills them in as given; the
// rules list shows a serving rule's conditions and header fields, and
// its Edit link names the rule by its conditions.
func TestEntryConditionsBrowser(t *testing.T) {
	t.Parallel()
	f := newEditFake()
	f.rules = append(f.rules, admin.RuleInfo{Kind: "exact", Host: "a.example", From: "/tls", To: "/secure", Status: 301, Source: "r.toml:9",
		Conditions: []string{"scheme = https"}, ConditionsTOML: "scheme = 'https'", Headers: map[string]string{"X-Robots-Tag": "noindex"}})
	ctx, base, dir := draftBrowser(t, f)
	conds := "scheme = \"https\"\nheader = { X-Beta = \"1\" }\nlanguage = [\"de\", \"de-*\"]\nquery = { id = \"5\" }\nip = \"203.0.113.0/24\"\nmethod = [\"GET\"]\ncookie = { seen = \"*\" }"
	headers := "Cache-Control: no-store\nX-Robots-Tag: noindex"
	if err := chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.CSS("#ehost"), "a.example"),
		chromedp.SendKeys(chromedp.CSS("#efrom"), "/beta"),
		chromedp.SendKeys(chromedp.CSS("#eto"), "/beta/new"),
		chromedp.SetValue(chromedp.CSS("#estatus"), "302"),
		chromedp.SetValue(chromedp.CSS("#econd"), "scheme = https"), // not TOML: a string is quoted
		chromedp.SetValue(chromedp.CSS("#eheaders"), headers)); err != nil {
		t.Fatal(err)
	}
	if err := browsertest.Submit(ctx, "#add-entry"); err != nil {
		t.Fatal(err)
	}
	if got := text(t, ctx, "#entry-error"); !strings.Contains(got, "conditions:") {
		t.Errorf("the refusal says %q", got)
	}
	kept, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`['host','from','to','status','conditions','headers'].map(n => document.querySelector('#entry-form [name="'+n+'"]').value)`))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a.example", "/beta", "/beta/new", "302", "scheme = https", headers}, kept); diff != "" {
		t.Errorf("the form after a refusal (-want +got):\n%s", diff)
	}
	browsertest.Shot(t, ctx, dir, "entry-conditions-refused")
	browsertest.CheckA11y(t, ctx, "entry-conditions-refused")
	if err := chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS("#econd"), conds)); err != nil {
		t.Fatal(err)
	}
	if err := browsertest.Submit(ctx, "#add-entry"); err != nil {
		t.Fatal(err)
	}
	if got := text(t, ctx, ".notice"); !strings.Contains(got, "entry added") {
		t.Fatalf("after the entry: %q", got)
	}
	row := text(t, ctx, "#diff tbody")
	for _, want := range []string{"scheme = https", "query id = 5", "Cache-Control: no-store", "X-Robots-Tag: noindex"} {
		if !strings.Contains(row, want) {
			t.Errorf("the draft's diff lacks %q: %q", want, row)
		}
	}
	browsertest.Shot(t, ctx, dir, "entry-conditions")
	browsertest.CheckA11y(t, ctx, "entry-conditions")
	// The diff's Edit link fills the form in with the entry's
	// conditions and headers as given, so that the edit names the same
	// rule.
	if err := browsertest.Submit(ctx, `a[aria-label="Edit the entry for a.example/beta"]`); err != nil {
		t.Fatal(err)
	}
	filled, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`['conditions','headers'].map(n => document.querySelector('#entry-form [name="'+n+'"]').value)`))
	if err != nil {
		t.Fatal(err)
	}
	wantFilled := []string{"cookie = { seen = \"*\" }\nheader = { X-Beta = \"1\" }\nip = \"203.0.113.0/24\"\nlanguage = [\"de\", \"de-*\"]\nmethod = [\"GET\"]\nscheme = \"https\"\nquery = { id = \"5\" }", headers}
	if diff := cmp.Diff(wantFilled, filled); diff != "" {
		t.Errorf("the Edit link's form (-want +got):\n%s", diff)
	}
	// A serving rule with conditions: its Edit link names it by them.
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/ui/rules?q=tls")); err != nil {
		t.Fatal(err)
	}
	if got := text(t, ctx, "#rules tbody"); !strings.Contains(got, "scheme = https") || !strings.Contains(got, "X-Robots-Tag: noindex") {
		t.Errorf("the rules list shows %q, want its conditions and header fields", got)
	}
	browsertest.Shot(t, ctx, dir, "rules-conditions")
	browsertest.CheckA11y(t, ctx, "rules-conditions")
	if err := browsertest.Submit(ctx, `a[aria-label="Edit a.example/tls"]`); err != nil {
		t.Fatal(err)
	}
	if got := formValues(t, ctx); got["from"] != "/tls" {
		t.Errorf("the edit page's form: %v", got)
	}
	if got, err := chromedp.Run(ctx, chromedp.Value(chromedp.CSS("#econd"))); err != nil || got != "scheme = 'https'" {
		t.Errorf("the edit page's conditions: %q %v, want the rule's", got, err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	want := []edit.Entry{{Op: "add", Host: "a.example", From: "/beta", To: "/beta/new", Status: 302,
		Query: map[string]string{"id": "5"},
		When: map[string]any{"scheme": "https", "header": map[string]any{"X-Beta": "1"}, "language": []any{"de", "de-*"},
			"ip": "203.0.113.0/24", "method": []any{"GET"}, "cookie": map[string]any{"seen": "*"}},
		Headers: map[string]string{"Cache-Control": "no-store", "X-Robots-Tag": "noindex"}}}
	if diff := cmp.Diff(want, f.drafts["d1"].entries); diff != "" {
		t.Errorf("draft d1's entries (-want +got):\n%s", diff)
	}
}
