package main

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/redirectd/redirectd/engine/admin"
	"github.com/redirectd/redirectd/internal/testutil"
)

// condAnswer sends GET path with the header lines extra to n's traffic
// port as raw bytes and returns the answer's status and head.
func condAnswer(t *testing.T, n *editNode, path, extra string) (int, http.Header) {
	t.Helper()
	c, err := net.DialTimeout("tcp", n.addr, testutil.Patience)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(testutil.Patience))
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: localhost\r\n%sConnection: close\r\n\r\n", path, extra)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header
}

// TestDraftEntryConditions: entries with conditions and header fields,
// through the API, are promoted into the rules served: an add with
// conditions makes a rule beside the one of its path without them,
// which keeps answering everyone else; the new rule's header fields are
// sent; /rules lists the conditions and header fields; the /ruleset
// archive holds them; a delete naming the conditions deletes that rule
// and leaves the one without them.
func TestDraftEntryConditions(t *testing.T) {
	t.Parallel()
	n := startEditNode(t)
	d := n.newDraft("ed")
	n.json("ed", "POST", "/drafts/"+d.ID+"/entries", map[string]any{"op": "add", "from": "/old", "to": "/beta", "status": 302,
		"when":    map[string]any{"header": map[string]any{"X-Beta": "1"}, "method": []any{"GET"}},
		"query":   map[string]any{"ref": "*"},
		"headers": map[string]any{"Cache-Control": "no-store"}}, 201, nil)
	if code, body := n.call("ed", "POST", "/drafts/"+d.ID+"/entries", "application/json",
		strings.NewReader(`{"op":"add","from":"/c","to":"/d","when":{"ip":"203.0.113.7/24"}}`)); code != 400 || !strings.Contains(body, "when.ip") {
		t.Errorf("an entry with a condition the config refuses: %d %q, want 400 naming when.ip", code, body)
	}
	n.json("pub", "POST", "/drafts/"+d.ID+"/promote", map[string]string{"message": "beta testers"}, 200, nil)

	if st, h := condAnswer(t, n, "/old?ref=x", "X-Beta: 1\r\n"); st != 302 || !strings.HasSuffix(h.Get("Location"), "/beta?ref=x") || h.Get("Cache-Control") != "no-store" {
		t.Errorf("a request meeting the conditions: %d %v, want 302 to /beta with Cache-Control: no-store", st, h)
	}
	for _, c := range []struct{ path, extra string }{{"/old?ref=x", ""}, {"/old", "X-Beta: 1\r\n"}} {
		if st, h := condAnswer(t, n, c.path, c.extra); st != 301 || !strings.HasSuffix(h.Get("Location"), "/x") && !strings.Contains(h.Get("Location"), "/x?") || h.Get("Cache-Control") != "" {
			t.Errorf("%s %q: %d %v, want the config's 301 to /x", c.path, c.extra, st, h)
		}
	}
	var rules []admin.RuleInfo
	n.json("vera", "GET", "/rules", nil, 200, &rules)
	var got []string
	for _, r := range rules {
		if r.From == "/old" {
			got = append(got, fmt.Sprintf("%s %v %v", r.To, r.Conditions, r.Headers))
		}
	}
	if want := []string{"/x [] map[]", `/beta [query ref (any value) header X-Beta = "1" method = GET] map[Cache-Control:no-store]`}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("/rules lists /old as\n%q\nwant\n%q", got, want)
	}
	code, archive := n.call("vera", "GET", "/ruleset", "", nil)
	toml := untarOne(t, []byte(archive), "redirectd.toml")
	if code != 200 || !strings.Contains(toml, `headers = { Cache-Control = 'no-store' }`) || !strings.Contains(toml, "X-Beta") {
		t.Errorf("the /ruleset archive lacks the entry's conditions or headers:\n%s", toml)
	}

	// A delete naming the conditions deletes that rule alone.
	d = n.newDraft("ed")
	n.json("ed", "POST", "/drafts/"+d.ID+"/entries", map[string]any{"op": "delete", "from": "/old",
		"when": map[string]any{"header": map[string]any{"X-Beta": "1"}, "method": "GET"}, "query": map[string]any{"ref": "*"}}, 201, nil)
	n.json("pub", "POST", "/drafts/"+d.ID+"/promote", map[string]string{"message": "beta over"}, 200, nil)
	if st, h := condAnswer(t, n, "/old?ref=x", "X-Beta: 1\r\n"); st != 301 || !strings.Contains(h.Get("Location"), "/x?ref=x") {
		t.Errorf("after the delete, a request that met the conditions: %d %v, want the config's 301 to /x", st, h)
	}
}
