package console

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/redirectd/redirectd/engine/admin"
)

// TestPromoteAnswersPromptly: a promote that outlasts the form's wait
// is answered at once with the operation's page, which the browser
// loads again while the promote runs and which, once it has ended,
// sends the browser to the versions page with the version made, as a
// prompt promote does.
func TestPromoteAnswersPromptly(t *testing.T) {
	f := newEditFake()
	f.hold, f.ended = make(chan struct{}), make(chan struct{}, 1)
	base, c := serve(t, admin.Options{}, f)
	c.wait = func() <-chan time.Time { // the wait is over at once
		ch := make(chan time.Time, 1)
		ch <- time.Time{}
		return ch
	}
	b := newBrowser(t, base)
	d, _ := f.NewDraft("local")
	p := b.post("/ui/drafts/"+d.ID+"/promote", url.Values{"csrf": {b.csrf("/ui/drafts/" + d.ID)}, "message": {"why"}, "confirm": {"yes"}})
	if p.Status != http.StatusSeeOther || !strings.HasPrefix(p.Location, "/ui/operations/") {
		t.Fatalf("a long promote: %d %q, want 303 to its operation", p.Status, p.Location)
	}
	op := p.Location
	p = b.get(op)
	if p.Status != http.StatusOK || !strings.Contains(p.Body, "still running") || !strings.Contains(p.Body, `<meta http-equiv="refresh" content="2">`) {
		t.Fatalf("the operation's page while it runs: %d\n%.1500s", p.Status, p.Body)
	}
	close(f.hold)
	<-f.ended
	// Done is closed just after the fake's Promote returns: look until
	// the page says so (each look is a request, no sleep).
	for i := 0; i < 1000 && p.Status == http.StatusOK; i++ {
		p = b.get(op)
	}
	if p.Status != http.StatusSeeOther || p.Location != "/ui/versions?done=promoted+as+version+2" {
		t.Errorf("the operation's page once it has ended: %d %q", p.Status, p.Location)
	}
	if len(f.promoted) != 1 || f.promoted[0].Message != "why" {
		t.Errorf("promoted %+v", f.promoted)
	}
	if p := b.get("/ui/operations/99"); p.Status != http.StatusNotFound {
		t.Errorf("an unknown operation: %d", p.Status)
	}
}
