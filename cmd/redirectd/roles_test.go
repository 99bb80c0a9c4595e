package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/redirectd/redirectd/internal/testutil"
)

// TestAdminRoles drives every admin endpoint with every kind of token
// (one per role, an editor and a publisher limited to *.brand-a.com, and
// none), and checks which are refused: a viewer reads, an editor edits
// drafts, a publisher promotes and rolls back, an admin reloads, and a
// token limited to some hosts reaches no other host's rules by any
// endpoint.
func TestAdminRoles(t *testing.T) {
	t.Parallel()
	// Each case makes its drafts afresh: more than max_drafts' default.
	n := startEditNodeConf(t, func(addr, adminAddr string) string {
		return strings.Replace(editConfig(addr, adminAddr), "edits_dir = \"edits\"\n", "edits_dir = \"edits\"\nmax_drafts = 1000\n", 1)
	})
	tokens := []string{"vera", "ed", "pub", "ada", "alice", "paula", ""}
	// A draft holding an entry of brand-b, which alice and paula may
	// not touch, made fresh for each request that could use it up.
	mixed := func() string {
		d := n.newDraft("ed")
		n.json("ed", "POST", "/drafts/"+d.ID+"/entries", map[string]any{"op": "add", "host": "www.brand-a.com", "from": "/na", "to": "/a2"}, 201, nil)
		n.json("ed", "POST", "/drafts/"+d.ID+"/entries", map[string]any{"op": "add", "host": "www.brand-b.com", "from": "/nb", "to": "/b2"}, 201, nil)
		return d.ID
	}
	mine := func() string {
		d := n.newDraft("ed")
		n.json("ed", "POST", "/drafts/"+d.ID+"/entries", map[string]any{"op": "add", "host": "www.brand-a.com", "from": "/mine", "to": "/m"}, 201, nil)
		return d.ID
	}
	entry := func(host string) string {
		b, _ := json.Marshal(map[string]any{"op": "add", "host": host, "from": "/e", "to": "/f"})
		return string(b)
	}
	type req struct{ method, path, ctype, body string }
	cases := []struct {
		name string
		make func() req
		// want is the status for vera, ed, pub, ada, alice, paula, none.
		want [7]int
	}{
		{"GET /rules", func() req { return req{"GET", "/rules", "", ""} }, [7]int{200, 200, 200, 200, 200, 200, 401}},
		{"GET /explain other host", func() req { return req{"GET", "/explain?url=http://www.brand-b.com/a", "", ""} }, [7]int{200, 200, 200, 200, 403, 403, 401}},
		{"GET /explain own host", func() req { return req{"GET", "/explain?url=http://www.brand-a.com/a", "", ""} }, [7]int{200, 200, 200, 200, 200, 200, 401}},
		{"GET /misses other host", func() req { return req{"GET", "/misses?host=www.brand-b.com", "", ""} }, [7]int{200, 200, 200, 200, 403, 403, 401}},
		{"GET /misses own host", func() req { return req{"GET", "/misses?host=www.brand-a.com", "", ""} }, [7]int{200, 200, 200, 200, 200, 200, 401}},
		{"GET /misses every host", func() req { return req{"GET", "/misses", "", ""} }, [7]int{200, 200, 200, 200, 200, 200, 401}},
		{"GET /versions", func() req { return req{"GET", "/versions", "", ""} }, [7]int{200, 200, 200, 200, 200, 200, 401}},
		{"GET /versions/diff", func() req { return req{"GET", "/versions/diff?from=000000000000", "", ""} }, [7]int{404, 404, 404, 404, 404, 404, 401}},
		{"POST /versions/rollback", func() req { return req{"POST", "/versions/rollback?to=99&message=x", "", ""} }, [7]int{403, 403, 404, 404, 403, 403, 401}},
		{"POST /versions/unpin", func() req { return req{"POST", "/versions/unpin", "", ""} }, [7]int{403, 403, 403, 409, 403, 403, 401}},
		{"POST /reload", func() req { return req{"POST", "/reload", "", ""} }, [7]int{403, 403, 403, 200, 403, 403, 401}},
		{"GET /metrics", func() req { return req{"GET", "/metrics", "", ""} }, [7]int{200, 200, 200, 200, 403, 403, 401}},
		{"GET /ruleset", func() req { return req{"GET", "/ruleset", "", ""} }, [7]int{200, 200, 200, 200, 403, 403, 401}},
		{"POST /drafts", func() req { return req{"POST", "/drafts", "", ""} }, [7]int{403, 201, 201, 201, 201, 201, 401}},
		{"GET /drafts", func() req { return req{"GET", "/drafts", "", ""} }, [7]int{200, 200, 200, 200, 200, 200, 401}},
		{"GET /drafts/{id}", func() req { return req{"GET", "/drafts/" + mixed(), "", ""} }, [7]int{200, 200, 200, 200, 200, 200, 401}},
		{"POST entries other host", func() req {
			return req{"POST", "/drafts/" + mine() + "/entries", "application/json", entry("www.brand-b.com")}
		}, [7]int{403, 201, 201, 201, 403, 403, 401}},
		{"POST entries any host", func() req { return req{"POST", "/drafts/" + mine() + "/entries", "application/json", entry("")} }, [7]int{403, 201, 201, 201, 403, 403, 401}},
		{"POST entries own host", func() req {
			return req{"POST", "/drafts/" + mine() + "/entries", "application/json", entry("www.brand-a.com")}
		}, [7]int{403, 201, 201, 201, 201, 201, 401}},
		{"POST entries own wildcard", func() req {
			return req{"POST", "/drafts/" + mine() + "/entries", "application/json", entry("*.x.brand-a.com")}
		}, [7]int{403, 201, 201, 201, 201, 201, 401}},
		{"POST entries look-alike host", func() req {
			return req{"POST", "/drafts/" + mine() + "/entries", "application/json", entry("evilbrand-a.com")}
		}, [7]int{403, 201, 201, 201, 403, 403, 401}},
		{"POST upload other host", func() req {
			return req{"POST", "/drafts/" + mine() + "/upload", "text/csv", "www.brand-a.com/u1,/v,301\nwww.brand-b.com/u2,/v,301\n"}
		}, [7]int{403, 201, 201, 201, 403, 403, 401}},
		{"POST upload own host", func() req {
			return req{"POST", "/drafts/" + mine() + "/upload", "text/csv", "www.brand-a.com/u1,/v,301\n"}
		}, [7]int{403, 201, 201, 201, 201, 201, 401}},
		{"POST upload JSON lines other host", func() req {
			return req{"POST", "/drafts/" + mine() + "/upload", "application/x-ndjson", entry("www.brand-b.com") + "\n"}
		}, [7]int{403, 201, 201, 201, 403, 403, 401}},
		{"DELETE a draft touching another host", func() req { return req{"DELETE", "/drafts/" + mixed(), "", ""} }, [7]int{403, 204, 204, 204, 403, 403, 401}},
		{"DELETE a draft of own host", func() req { return req{"DELETE", "/drafts/" + mine(), "", ""} }, [7]int{403, 204, 204, 204, 204, 204, 401}},
		{"POST promote touching another host", func() req {
			return req{"POST", "/drafts/" + mixed() + "/promote", "application/json", `{"message":"m"}`}
		}, [7]int{403, 403, 200, 200, 403, 403, 401}},
		{"POST promote own host", func() req {
			return req{"POST", "/drafts/" + mine() + "/promote", "application/json", `{"message":"m"}`}
		}, [7]int{403, 403, 200, 200, 403, 200, 401}},
	}
	for _, c := range cases {
		for i, tok := range tokens {
			r := c.make()
			var body *strings.Reader
			if r.body != "" {
				body = strings.NewReader(r.body)
			} else {
				body = strings.NewReader("")
			}
			code, got := n.call(tok, r.method, r.path, r.ctype, body)
			if code != c.want[i] {
				t.Errorf("%s as %q: %d %s, want %d", c.name, tok, code, strings.TrimSpace(got), c.want[i])
			}
		}
	}

	// What a limited token is shown: only its hosts' rules and entries.
	for _, tok := range []string{"alice", "paula"} {
		_, rules := n.call(tok, "GET", "/rules", "", nil)
		if strings.Contains(rules, "brand-b") || strings.Contains(rules, `"/old"`) || !strings.Contains(rules, "www.brand-a.com") {
			t.Errorf("/rules as %s shows other hosts' rules or not its own:\n%s", tok, rules)
		}
		id := mixed()
		_, view := n.call(tok, "GET", "/drafts/"+id, "", nil)
		if strings.Contains(view, "brand-b") || !strings.Contains(view, "/na") {
			t.Errorf("/drafts/%s as %s shows another host's entries or not its own:\n%s", id, tok, view)
		}
		var list []map[string]any
		_, drafts := n.call(tok, "GET", "/drafts", "", nil)
		json.Unmarshal([]byte(drafts), &list)
		for _, d := range list {
			if d["id"] == id && d["entries"].(float64) != 1 {
				t.Errorf("/drafts as %s counts %v entries of %s, want 1 (its host's)", tok, d["entries"], id)
			}
		}
	}
	n.answer("www.brand-b.com", "/missing-b")
	n.answer("www.brand-a.com", "/missing-a")
	var misses string
	testutil.WaitFor(t, testutil.Patience, "the misses", func() bool {
		_, all := n.call("ada", "GET", "/misses", "", nil)
		_, misses = n.call("alice", "GET", "/misses", "", nil)
		return strings.Contains(all, "/missing-b") && strings.Contains(misses, "/missing-a")
	})
	if strings.Contains(misses, "/missing-b") {
		t.Errorf("/misses as alice shows another host's misses:\n%s", misses)
	}
	if t.Failed() {
		fmt.Println(n.stderr.String())
	}
}
