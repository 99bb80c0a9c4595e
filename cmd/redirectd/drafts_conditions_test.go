package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// conditionedRules are served rules a plain lookup of their from does not
// reach: an https-only rule (as an nginx import writes a 443 server's),
// a rule for a header, and a regex whose pattern does not match itself.
const conditionedRules = `
[[rule]]
from = "/secure"
to = "/s1"
when.scheme = "https"

[[rule]]
host = "www.brand-b.com"
from = "/beta"
to = "/b1"
when.header = { X-Beta = "1" }

[[rule]]
match = "regex"
from = '^/re/(\d+)$'
to = "/n/$1"
`

// TestDraftEditsConditionedRules: a draft's change and delete find
// served rules with conditions (before, a change of the https-only rule
// was refused: "no rule has host "" and from "/secure""), the draft
// shows their conditions and samples the https-only rule over both
// schemes, and the promoted rules keep the conditions: /rules lists
// them.
func TestDraftEditsConditionedRules(t *testing.T) {
	t.Parallel()
	n := startEditNodeWith(t, conditionedRules)
	defer n.stop()
	d := n.newDraft("ed")
	for _, e := range []map[string]any{
		{"op": "change", "from": "/secure", "to": "/s2", "status": 302},
		{"op": "delete", "host": "www.brand-b.com", "from": "/beta"},
		{"op": "change", "from": `^/re/(\d+)$`, "to": "/m/$1"},
		// An add of a conditioned rule's from is a change of it.
		{"op": "add", "from": "/secure", "to": "/s3", "status": 302},
	} {
		n.json("ed", "POST", "/drafts/"+d.ID+"/entries", e, 201, nil)
	}
	var view struct {
		Changed []struct {
			Old, New struct {
				From       string
				Kind       string
				Conditions []string
			}
		} `json:"changed"`
		Removed []struct {
			From       string
			Conditions []string
		} `json:"removed"`
		Samples []struct{ URL, Old, New string } `json:"samples"`
		Counts  map[string]int                   `json:"counts"`
	}
	n.json("vera", "GET", "/drafts/"+d.ID, nil, 200, &view)
	if view.Counts["changed"] != 2 || view.Counts["removed"] != 1 || view.Counts["added"] != 0 {
		t.Errorf("counts: %v, want 2 changed and 1 removed", view.Counts)
	}
	if len(view.Changed) != 2 || !slices.Equal(view.Changed[0].Old.Conditions, []string{"scheme = https"}) ||
		!slices.Equal(view.Changed[0].New.Conditions, []string{"scheme = https"}) || view.Changed[1].New.Kind != "regex" {
		t.Errorf("changed: %+v", view.Changed)
	}
	if len(view.Removed) != 1 || !slices.Equal(view.Removed[0].Conditions, []string{`header X-Beta = "1"`}) {
		t.Errorf("removed: %+v", view.Removed)
	}
	want := []struct{ URL, Old, New string }{
		{"/secure", "404", "404"},
		{"/secure (https)", "301 /s1", "302 /s3"},
	}
	if diff := cmp.Diff(want, view.Samples[:min(2, len(view.Samples))]); diff != "" {
		t.Errorf("samples of the https-only rule (-want +got):\n%s\nall: %+v", diff, view.Samples)
	}
	// The console's draft page shows the same.
	vera := consoleSignIn(t, n, "vera")
	if code, body := vera.get("/ui/drafts/" + d.ID); code != 200 || !strings.Contains(body, "<td><code>/secure</code></td><td>scheme = https</td>") ||
		!strings.Contains(body, "<td><code>/secure (https)</code></td><td>301 /s1</td><td>302 /s3</td>") ||
		!strings.Contains(body, "<td>header X-Beta = &#34;1&#34;</td>") {
		t.Errorf("console draft page: %d\n%s", code, body)
	}
	var promoted map[string]int
	n.json("pub", "POST", "/drafts/"+d.ID+"/promote", map[string]string{"message": "conditioned"}, 200, &promoted)
	var rules []struct {
		From, To, Host string
		Conditions     []string
	}
	n.json("vera", "GET", "/rules", nil, 200, &rules)
	got := map[string]string{}
	for _, r := range rules {
		got[r.Host+r.From] = r.To + " " + strings.Join(r.Conditions, ", ")
	}
	for k, v := range map[string]string{"/secure": "/s3 scheme = https", `^/re/(\d+)$`: "/m/$1 ", "/old": "/x "} {
		if got[k] != v {
			t.Errorf("/rules %s: %q, want %q", k, got[k], v)
		}
	}
	if _, ok := got["www.brand-b.com/beta"]; ok {
		t.Errorf("/rules still has the deleted rule: %v", got)
	}
	if code, body := vera.get("/ui/rules?q=secure"); code != 200 || !strings.Contains(body, "<td><code>scheme = https</code></td>") {
		t.Errorf("console rules page: %d\n%s", code, body)
	}
	// The admin /explain names the rule an http URL does not meet.
	if code, body := n.call("vera", "GET", "/explain?url=http%3A%2F%2Fexample.com%2Fsecure", "", nil); code != 200 ||
		!strings.Contains(body, `(exact "/secure", scheme = https) matches this path but requires scheme = https; this URL is http`) {
		t.Errorf("/explain: %d\n%s", code, body)
	}
	// Over http the https-only rule still does not answer.
	n.wantAnswer("example.com", "/secure", 404, "")
	n.wantAnswer("example.com", "/re/7", 301, "/m/7")
}
