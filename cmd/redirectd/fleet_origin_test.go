package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/redirectd/redirectd/engine/admin"
	"github.com/redirectd/redirectd/engine/testport"
	"github.com/redirectd/redirectd/internal/testutil"
)

// TestFleetRuleOrigin: on a node fed by an edited node's GET /ruleset, a
// rule's origin in /rules, explain and on the console's rules page is its
// editor's (version and author, with the promote's message and time),
// not the line of the archive that holds it ("redirectd.toml:7"); a
// rule of the edited node's config says "config". A later promote's
// origin replaces the earlier; after a rollback, the rule is its
// editor's of the version rolled back to, restored by the rollback's
// author; after a rollback to version 0, a rule the config holds again
// is "config, restored in" that rollback, on the follower and on the
// edited node.
func TestFleetRuleOrigin(t *testing.T) {
	t.Parallel()
	n := startEditNode(t)
	d := n.newDraft("ed")
	n.json("ed", "POST", "/drafts/"+d.ID+"/entries", map[string]any{"op": "add", "from": "/fleet", "to": "/f1"}, 201, nil)
	n.json("pub", "POST", "/drafts/"+d.ID+"/promote", map[string]string{"message": "first"}, 200, nil)

	dir := t.TempDir()
	addr, adminAddr := testport.Free(t), testport.Free(t)
	os.WriteFile(filepath.Join(dir, "header"), []byte("Authorization: Bearer vera-token\n"), 0o600)
	file := filepath.Join(dir, "r.toml")
	os.WriteFile(file, []byte(fmt.Sprintf("[server]\nlisten = %q\n[admin]\nlisten = %q\n[access_log]\nenabled = false\n"+
		"[rules]\nsource = \"http://%s/ruleset\"\npoll = \"1s\"\nsource_header_file = \"header\"\ncache_dir = \"cache\"\n", addr, adminAddr, n.adminAddr)), 0o644)
	stderr := startNode(t, nodeConfig{File: file, Args: []string{"-log-format", "json"}}).stderr
	get := func(path string) (int, string) {
		resp, err := http.Get("http://" + adminAddr + path)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	rule := func(from string) (admin.RuleInfo, bool) {
		code, body := get("/rules")
		if code != 200 {
			return admin.RuleInfo{}, false
		}
		var list []admin.RuleInfo
		if err := json.Unmarshal([]byte(body), &list); err != nil {
			t.Fatalf("GET /rules: %v\n%s", err, body)
		}
		for _, r := range list {
			if r.From == from {
				return r, true
			}
		}
		return admin.RuleInfo{}, false
	}
	origin := func(from, want string) admin.RuleInfo {
		t.Helper()
		var got admin.RuleInfo
		if !testutil.Eventually(testutil.Patience, func() bool {
			var ok bool
			got, ok = rule(from)
			return ok && got.Source == want
		}) {
			t.Fatalf("the follower's rule %s: %+v, want source %q\n%s", from, got, want, stderr.String())
		}
		return got
	}
	got := origin("/fleet", "version 1 by ed")
	if got.RuleChange == nil {
		t.Errorf("the follower's /fleet: no changed_by, message or added")
	} else if got.ChangedBy != "ed" || got.Message != "first" || got.Added == "" {
		t.Errorf("the follower's /fleet: changed_by %q, message %q, added %q; want ed, first and a time", got.ChangedBy, got.Message, got.Added)
	}
	origin("/old", "config")
	if code, out := get("/explain?url=/fleet"); code != 200 || !strings.Contains(out, "version 1 by ed") || strings.Contains(out, "redirectd.toml:") {
		t.Errorf("the follower's explain of /fleet: %d, want the origin \"version 1 by ed\" and no archive line\n%s", code, out)
	}
	code, page := get("/ui/rules?q=fleet")
	if code != 200 || !strings.Contains(page, "version 1 by ed") || strings.Contains(page, "redirectd.toml:") {
		t.Errorf("the follower's console rules page: %d, want the origin \"version 1 by ed\" and no archive line\n%.3000s", code, page)
	}

	d = n.newDraft("ed")
	n.json("ed", "POST", "/drafts/"+d.ID+"/entries", map[string]any{"op": "change", "from": "/fleet", "to": "/f2"}, 201, nil)
	n.json("pub", "POST", "/drafts/"+d.ID+"/promote", map[string]string{"message": "second"}, 200, nil)
	if got := origin("/fleet", "version 2 by ed"); got.RuleChange == nil || got.Message != "second" || got.To != "/f2" {
		t.Errorf("after the second promote, the follower's /fleet: %+v", got)
	}

	// A rollback to version 1, served as version 3: the rule is version
	// 1's again, its editor's, brought back by the rollback's author.
	n.json("pub", "POST", "/versions/rollback?to=1&message=the+second+broke+checkout", nil, 200, nil)
	restored := "version 1 by ed, restored in version 3 (rollback by pub)"
	if got := origin("/fleet", restored); got.RuleChange == nil || got.ChangedBy != "ed" || got.Message != "first" ||
		got.Restored != "version 3 (rollback by pub)" || got.To != "/f1" {
		t.Errorf("after the rollback, the follower's /fleet: %+v", got)
	}
	if code, out := get("/explain?url=/fleet"); code != 200 || !strings.Contains(out, restored) {
		t.Errorf("the follower's explain of /fleet after the rollback: %d, want %q\n%s", code, restored, out)
	}
	if code, page := get("/ui/rules?q=fleet"); code != 200 || !strings.Contains(page, "restored in version 3 (rollback by pub)") {
		t.Errorf("the follower's console rules page after the rollback: %d, want the rollback named\n%.3000s", code, page)
	}

	// The config's /old, changed by version 4, then a rollback to the
	// config's own rules served as version 5: /old is the config's
	// again, brought back by the rollback's author, on both nodes.
	d = n.newDraft("ed")
	n.json("ed", "POST", "/drafts/"+d.ID+"/entries", map[string]any{"op": "change", "from": "/old", "to": "/o4"}, 201, nil)
	n.json("pub", "POST", "/drafts/"+d.ID+"/promote", map[string]string{"message": "fourth"}, 200, nil)
	origin("/old", "version 4 by ed")
	n.json("pub", "POST", "/versions/rollback?to=0&message=back+to+the+config", nil, 200, nil)
	back := "config, restored in version 5 (rollback by pub)"
	if got := origin("/old", back); got.RuleChange == nil || got.ChangedBy != "" || got.Restored != "version 5 (rollback by pub)" || got.To != "/x" {
		t.Errorf("after the rollback to the config, the follower's /old: %+v", got)
	}
	if code, out := get("/explain?url=/old"); code != 200 || !strings.Contains(out, back) {
		t.Errorf("the follower's explain of /old after the rollback to the config: %d, want %q\n%s", code, back, out)
	}
	if code, page := get("/ui/rules?q=old"); code != 200 || !strings.Contains(page, "config; restored in version 5 (rollback by pub)") {
		t.Errorf("the follower's console rules page after the rollback to the config: %d, want the rollback named\n%.3000s", code, page)
	}
	var rules []admin.RuleInfo
	n.json("root", "GET", "/rules", nil, 200, &rules)
	for _, r := range rules {
		if r.From == "/old" && (r.RuleChange == nil || r.Restored != "version 5 (rollback by pub)" || r.ChangedBy != "" || r.To != "/x") {
			t.Errorf("the edited node's /old after the rollback to the config: %+v", r)
		}
	}
	if code, page := consoleSignIn(t, n, "root").get("/ui/rules?q=old"); code != 200 || !strings.Contains(page, "config; restored in version 5 (rollback by pub)") {
		t.Errorf("the edited node's console rules page after the rollback to the config: %d, want the rollback named\n%.3000s", code, page)
	}
}
