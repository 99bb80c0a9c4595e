package main

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// outcome is what an operation came to, as a client sees it: done or
// refused (with the status), and the counts it showed ("" for none).
type outcome struct {
	Done   bool
	Status int // when refused
	Counts string
}

// apiOutcome is an API answer's outcome: any 2xx is done.
func apiOutcome(code int, counts string) outcome {
	if code >= 200 && code < 300 {
		return outcome{Done: true, Counts: counts}
	}
	return outcome{Status: code}
}

// pageOutcome is a console answer's outcome: a page (200) or the 303 of
// a form that worked is done.
func pageOutcome(code int, counts string) outcome {
	if code == 200 || code == 303 {
		return outcome{Done: true, Counts: counts}
	}
	return outcome{Status: code}
}

var (
	pageDraftCounts = regexp.MustCompile(`id="draft-counts">Based on version \d+: ([\d,]+) added, ([\d,]+) changed, ([\d,]+) removed`)
	pageDiffCounts  = regexp.MustCompile(`id="diff-summary">[^\n]*?: ([\d,]+) added, ([\d,]+) changed, ([\d,]+) removed`)
	pageDraftRow    = regexp.MustCompile(`<tr><td><a href="/ui/drafts/[^"]+">[^<]+</a></td><td>version \d+</td><td>[^<]*</td><td>[^<]*</td><td class="n">([\d,]+)</td></tr>`)
	pageTbody       = regexp.MustCompile(`(?s)<tbody>(.*?)</tbody>`)
	pageRuleCount   = regexp.MustCompile(`id="rule-count">(More than )?([\d,]+) rules? match`)
)

// threeCounts writes the three counts a page shows as the API's are.
func threeCounts(m []string) string {
	if m == nil {
		return "none shown"
	}
	return strings.ReplaceAll(m[1]+"/"+m[2]+"/"+m[3], ",", "")
}

// TestConsoleMatchesAPI: every operation of the editing model (list
// drafts, see one, make one, add, change and delete an entry, upload,
// discard, compare versions, promote, roll back, which pins, unpin,
// list versions, export, list the rules and those of a host) run
// through the JSON API and through the console with the same token is
// done or refused alike, refused with the same status, and shows the
// same counts, for every role and for
// tokens limited to *.brand-a.com; both ask one model (package edit).
func TestConsoleMatchesAPI(t *testing.T) {
	t.Parallel()
	n := startEditNode(t)
	add := func(token, draft, op, host, from, to string) {
		t.Helper()
		n.json(token, "POST", "/drafts/"+draft+"/entries", map[string]any{"op": op, "host": host, "from": from, "to": to}, 201, nil)
	}
	// Version 1: rules of brand-a (more than a diff page lists, so that
	// counts are of whole lists), brand-b and of no host, and a change
	// of brand-b's, for the diffs.
	seed := n.newDraft("root")
	var bulk strings.Builder
	for i := range 1100 {
		fmt.Fprintf(&bulk, "www.brand-a.com/bulk-%d,/x,301\n", i)
	}
	if code, body := n.call("root", "POST", "/drafts/"+seed.ID+"/upload", "text/csv", strings.NewReader(bulk.String())); code != 201 {
		t.Fatalf("the seed's upload: %d %s", code, body)
	}
	add("root", seed.ID, "add", "www.brand-a.com", "/pa", "/x")
	add("root", seed.ID, "add", "www.brand-b.com", "/pb", "/x")
	add("root", seed.ID, "add", "", "/pn", "/x")
	add("root", seed.ID, "change", "www.brand-b.com", "/a", "/c")
	n.json("root", "POST", "/drafts/"+seed.ID+"/promote", map[string]string{"message": "seed"}, 200, nil)
	var versions []struct {
		Hash string `json:"hash"`
	}
	n.json("root", "GET", "/versions", nil, 200, &versions)
	if len(versions) != 2 {
		t.Fatalf("versions after the seed: %+v", versions)
	}
	diffPath := "from=" + versions[1].Hash + "&to=" + versions[0].Hash
	// A draft to look at, with entries of every kind and host.
	shown := n.newDraft("root")
	add("root", shown.ID, "add", "www.brand-a.com", "/sa", "/x")
	add("root", shown.ID, "add", "www.brand-b.com", "/sb", "/x")
	add("root", shown.ID, "add", "", "/sn", "/x")
	add("root", shown.ID, "delete", "www.brand-a.com", "/a", "")
	add("root", shown.ID, "change", "www.brand-b.com", "/pb", "/y")

	tokens := []string{"vera", "ed", "pub", "ada", "alice", "paula", "root"}
	users := map[string]*consoleUser{}
	for _, tk := range tokens {
		users[tk] = consoleSignIn(t, n, tk)
	}
	seen := map[string]outcome{} // token+" "+op: the API's
	check := func(tk, op string, api, page outcome) {
		t.Helper()
		seen[tk+" "+op] = api
		if api != page {
			t.Errorf("%s, %s: the API's %+v, the console's %+v", tk, op, api, page)
		}
	}
	// What only reads first, while the seed's versions are kept.
	for _, tk := range tokens {
		u := users[tk]
		var list []struct{ Entries int }
		code, body := n.call(tk, "GET", "/drafts", "", nil)
		json.Unmarshal([]byte(body), &list)
		sum := 0
		for _, d := range list {
			sum += d.Entries
		}
		pcode, page := u.get("/ui/drafts")
		psum, rows := 0, pageDraftRow.FindAllStringSubmatch(page, -1)
		for _, m := range rows {
			k, _ := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
			psum += k
		}
		check(tk, "list drafts", apiOutcome(code, fmt.Sprint(len(list), " drafts, ", sum, " entries")),
			pageOutcome(pcode, fmt.Sprint(len(rows), " drafts, ", psum, " entries")))

		var view struct {
			Counts struct{ Added, Changed, Removed int }
		}
		code, body = n.call(tk, "GET", "/drafts/"+shown.ID, "", nil)
		json.Unmarshal([]byte(body), &view)
		pcode, page = u.get("/ui/drafts/" + shown.ID)
		check(tk, "show a draft", apiOutcome(code, fmt.Sprintf("%d/%d/%d", view.Counts.Added, view.Counts.Changed, view.Counts.Removed)),
			pageOutcome(pcode, threeCounts(pageDraftCounts.FindStringSubmatch(page))))

		var diff struct {
			AddedCount   int `json:"added_count"`
			ChangedCount int `json:"changed_count"`
			RemovedCount int `json:"removed_count"`
		}
		code, body = n.call(tk, "GET", "/versions/diff?"+diffPath, "", nil)
		json.Unmarshal([]byte(body), &diff)
		pcode, page = u.get("/ui/versions/diff?" + diffPath)
		check(tk, "diff", apiOutcome(code, fmt.Sprintf("%d/%d/%d", diff.AddedCount, diff.ChangedCount, diff.RemovedCount)),
			pageOutcome(pcode, threeCounts(pageDiffCounts.FindStringSubmatch(page))))

		// The rules a token sees, and of one host: the console's index
		// and GET /rules keep them to its hosts by one function.
		queries := []string{"", "?host=www.brand-a.com"}
		if tk != "alice" && tk != "paula" { // brand-b is not theirs: the console refuses it (TestConsoleScope)
			queries = append(queries, "?host=www.brand-b.com")
		}
		for _, q := range queries {
			var rules []json.RawMessage
			code, body = n.call(tk, "GET", "/rules", "", nil)
			json.Unmarshal([]byte(body), &rules)
			host := strings.TrimPrefix(q, "?host=")
			want := 0
			for _, r := range rules {
				var ri struct{ Host string }
				json.Unmarshal(r, &ri)
				if host == "" || ri.Host == host {
					want++
				}
			}
			pcode, page = u.get("/ui/rules" + q)
			got := "none shown"
			if m := pageRuleCount.FindStringSubmatch(page); m != nil {
				got = m[1] + strings.ReplaceAll(m[2], ",", "") + " rules"
			}
			check(tk, "list rules"+q, apiOutcome(code, fmt.Sprint(want, " rules")), pageOutcome(pcode, got))
		}

		code, _ = n.call(tk, "GET", "/ruleset", "", nil)
		pcode, _ = u.get("/ui/rules/export.toml")
		check(tk, "export", apiOutcome(code, ""), pageOutcome(pcode, ""))
	}
	// The scoped tokens see brand-a's only: the rule is one.
	if _, page := users["alice"].get("/ui/drafts/" + shown.ID); threeCounts(pageDraftCounts.FindStringSubmatch(page)) != "1/0/1" {
		t.Errorf("alice's view of the shown draft: %s, want 1 added, 1 removed", threeCounts(pageDraftCounts.FindStringSubmatch(page)))
	}
	if _, page := users["alice"].get("/ui/versions/diff?" + diffPath); threeCounts(pageDiffCounts.FindStringSubmatch(page)) != "1101/0/0" {
		t.Errorf("alice's diff of the seed: %s, want 1,101 added", threeCounts(pageDiffCounts.FindStringSubmatch(page)))
	}

	// tidy discards every draft but shown, within the drafts' quota.
	tidy := func() {
		t.Helper()
		var list []struct{ ID string }
		n.json("root", "GET", "/drafts", nil, 200, &list)
		for _, d := range list {
			if d.ID != shown.ID {
				n.call("root", "DELETE", "/drafts/"+d.ID, "", nil)
			}
		}
	}
	// What changes drafts and versions: each through the API, then the
	// same through the console, on drafts of its own made by root.
	for i, tk := range tokens {
		u := users[tk]
		tag := strconv.Itoa(i)
		code, _ := n.call(tk, "POST", "/drafts", "application/json", nil)
		pcode, _ := u.post("/ui/drafts", url.Values{})
		check(tk, "new draft", apiOutcome(code, ""), pageOutcome(pcode, ""))
		tidy()
		apiDraft, pageDraft := n.newDraft("root"), n.newDraft("root")
		for _, e := range []struct{ what, op, host, from, to string }{
			{"add an entry", "add", "www.brand-a.com", "/e" + tag, "/y"},
			{"add an entry of another host", "add", "www.brand-b.com", "/e" + tag, "/y"},
			{"add an entry of no host", "add", "", "/e" + tag, "/y"},
			{"change an entry", "change", "www.brand-a.com", "/a", "/c" + tag},
			{"change another host's entry", "change", "www.brand-b.com", "/a", "/c" + tag},
			{"delete an entry", "delete", "www.brand-a.com", "/pa", ""},
			{"delete another host's entry", "delete", "www.brand-b.com", "/pb", ""},
		} {
			js := fmt.Sprintf(`{"op":%q,"host":%q,"from":%q,"to":%q}`, e.op, e.host, e.from, e.to)
			code, _ := n.call(tk, "POST", "/drafts/"+apiDraft.ID+"/entries", "application/json", strings.NewReader(js))
			pcode, _ := u.post("/ui/drafts/"+pageDraft.ID+"/entries", url.Values{"op": {e.op}, "host": {e.host}, "from": {e.from}, "to": {e.to}})
			check(tk, e.what, apiOutcome(code, ""), pageOutcome(pcode, ""))
		}
		for _, up := range []struct{ what, csv string }{
			{"upload", "www.brand-a.com/u" + tag + ",/y,301\n"},
			{"upload a row of another host", "www.brand-a.com/v" + tag + ",/y,301\nwww.brand-b.com/v,/y,301\n"},
		} {
			code, _ := n.call(tk, "POST", "/drafts/"+apiDraft.ID+"/upload", "text/csv", strings.NewReader(up.csv))
			pcode, _ := u.upload("/ui/drafts/"+pageDraft.ID+"/upload", "x.csv", up.csv)
			check(tk, up.what, apiOutcome(code, ""), pageOutcome(pcode, ""))
		}
		var a, p struct {
			Counts struct{ Added, Changed, Removed int }
		}
		n.json("root", "GET", "/drafts/"+apiDraft.ID, nil, 200, &a)
		n.json("root", "GET", "/drafts/"+pageDraft.ID, nil, 200, &p)
		if a.Counts != p.Counts {
			t.Errorf("%s: the draft edited through the API counts %+v, through the console %+v", tk, a.Counts, p.Counts)
		}

		code, _ = n.call(tk, "DELETE", "/drafts/"+apiDraft.ID, "", nil)
		pcode, _ = u.post("/ui/drafts/"+pageDraft.ID+"/delete", url.Values{})
		check(tk, "discard", apiOutcome(code, ""), pageOutcome(pcode, ""))
		tidy()
		// The rules page's Edit link: a change put into a new draft.
		for _, host := range []string{"www.brand-a.com", "www.brand-b.com"} {
			code, body := n.call(tk, "POST", "/drafts", "application/json", nil)
			var d draftRef
			if json.Unmarshal([]byte(body), &d) == nil && code == 201 {
				js := fmt.Sprintf(`{"op":"change","host":%q,"from":"/a","to":"/r%s"}`, host, tag)
				code, _ = n.call(tk, "POST", "/drafts/"+d.ID+"/entries", "application/json", strings.NewReader(js))
			}
			pcode, _ := u.post("/ui/rules/edit", url.Values{"op": {"change"}, "host": {host}, "from": {"/a"}, "to": {"/r" + tag}, "draft": {"new"}})
			check(tk, "edit a rule into a new draft ("+host+")", apiOutcome(code, ""), pageOutcome(pcode, ""))
		}
		tidy()

		// Promote: each of a draft made on the version serving then.
		promote := func(host string, viaPage bool) outcome {
			d := n.newDraft("root")
			add("root", d.ID, "add", host, "/p"+tag, "/y")
			if viaPage {
				code, _ := u.post("/ui/drafts/"+d.ID+"/promote", url.Values{"message": {"why"}, "confirm": {"yes"}})
				return pageOutcome(code, "")
			}
			code, _ := n.call(tk, "POST", "/drafts/"+d.ID+"/promote", "application/json", strings.NewReader(`{"message":"why"}`))
			return apiOutcome(code, "")
		}
		check(tk, "promote", promote("www.brand-a.com", false), promote("www.brand-a.com", true))
		tidy()
		check(tk, "promote another host's entry", promote("www.brand-b.com", false), promote("www.brand-b.com", true))
		tidy()
		d := n.newDraft("root")
		code, _ = n.call(tk, "POST", "/drafts/"+d.ID+"/promote", "application/json", strings.NewReader(`{"message":""}`))
		pcode, _ = u.post("/ui/drafts/"+d.ID+"/promote", url.Values{"message": {" "}})
		check(tk, "promote without a message", apiOutcome(code, ""), pageOutcome(pcode, ""))
		tidy()

		code, _ = n.call(tk, "POST", "/versions/rollback?to=0&message=back", "", nil)
		pcode, _ = u.post("/ui/versions/rollback", url.Values{"to": {"0"}, "message": {"back"}})
		check(tk, "rollback (pins)", apiOutcome(code, ""), pageOutcome(pcode, ""))
		code, _ = n.call(tk, "POST", "/versions/unpin", "", nil)
		pcode, _ = u.post("/ui/versions/unpin", url.Values{})
		check(tk, "unpin", apiOutcome(code, ""), pageOutcome(pcode, ""))

		var list []json.RawMessage
		code, body := n.call(tk, "GET", "/versions", "", nil)
		json.Unmarshal([]byte(body), &list)
		pcode, page := u.get("/ui/versions")
		rows := 0
		if m := pageTbody.FindStringSubmatch(page); m != nil {
			rows = strings.Count(m[1], "<tr>")
		}
		check(tk, "versions", apiOutcome(code, fmt.Sprint(len(list), " versions")), pageOutcome(pcode, fmt.Sprint(rows, " versions")))
	}
	// Both may agree and be wrong: what the model decides.
	done, forbidden := outcome{Done: true}, outcome{Status: 403}
	for key, want := range map[string]outcome{
		"vera add an entry": forbidden, "ed add an entry": done, "alice add an entry": done,
		"alice add an entry of another host": forbidden, "alice add an entry of no host": forbidden,
		"alice change another host's entry": forbidden, "alice upload a row of another host": forbidden,
		"alice edit a rule into a new draft (www.brand-a.com)": done, "alice edit a rule into a new draft (www.brand-b.com)": forbidden,
		"vera edit a rule into a new draft (www.brand-a.com)": forbidden,
		"ed promote": forbidden, "paula promote": done, "paula promote another host's entry": forbidden,
		"paula rollback (pins)": forbidden, "pub rollback (pins)": done, "pub unpin": forbidden,
		"ada unpin":    {Status: 409}, // nothing is pinned on a node without [rules] source
		"alice export": forbidden, "vera export": done, "pub promote without a message": {Status: 400},
	} {
		if seen[key] != want {
			t.Errorf("%s: %+v, want %+v", key, seen[key], want)
		}
	}
}
