package main

import (
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
)

// TestConsoleSessionBounds checks on the binary what a console session
// is not good for:
//   - the JSON endpoints, GET and POST, with the session cookie and no
//     Bearer token: 401 (a browser's cookie is sent to them too, by any
//     page's link or form, so it must not authorize them), also through
//     a path that only looks like the console's (/ui/../rules);
//   - a form posted from another port of the host (the same site, so
//     with the cookie) with the right CSRF token: 403;
//   - a Bearer token on a console POST without a session: 403 (a form
//     needs a session and its CSRF token, whatever else comes along);
//   - every console form with no CSRF token, a wrong one or another
//     signed-in session's: 403, and no draft, entry or version made;
//   - sign-in CSRF: the token of another browser's sign-in form, without
//     that browser's sign-in cookie, is refused, so a page cannot sign a
//     victim in as the attacker;
//   - a restart with pub's role lowered to viewer: pub's old cookie and
//     CSRF token are worthless, and pub signed in again cannot promote.
//
// It is long because each step builds on the node's state so far: one
// binary started for them all.
func TestConsoleSessionBounds(t *testing.T) {
	t.Parallel()
	n := startEditNode(t)
	pub := consoleSignIn(t, n, "pub")
	if code, _ := pub.post("/ui/drafts", url.Values{}); code != http.StatusSeeOther {
		t.Fatalf("pub's new draft: %d", code)
	}
	if code, body := pub.post("/ui/drafts/d1/entries", url.Values{"op": {"add"}, "from": {"/kept"}, "to": {"/k"}, "status": {"301"}}); code != http.StatusSeeOther {
		t.Fatalf("pub's entry: %d %.300s", code, body)
	}
	versions := func() string { _, b := n.call("root", "GET", "/versions", "", nil); return b }
	drafts := func() string { _, b := n.call("root", "GET", "/drafts/d1", "", nil); return b }
	draftList := func() string { _, b := n.call("root", "GET", "/drafts", "", nil); return b }
	beforeV, beforeD, beforeL := versions(), drafts(), draftList()

	for _, tc := range []struct{ method, path, ctype, body string }{
		{"GET", "/rules", "", ""}, {"GET", "/explain?url=/old", "", ""}, {"GET", "/misses", "", ""},
		{"GET", "/metrics", "", ""}, {"GET", "/versions", "", ""}, {"GET", "/versions/diff?from=x", "", ""},
		{"GET", "/drafts", "", ""}, {"GET", "/drafts/d1", "", ""}, {"GET", "/ruleset", "", ""},
		{"POST", "/reload", "", ""}, {"POST", "/drafts", "application/json", ""},
		{"POST", "/drafts/d1/entries", "application/json", `{"op":"add","from":"/c","to":"/d"}`},
		{"POST", "/drafts/d1/upload", "text/csv", "/c,/d,301\n"},
		{"POST", "/drafts/d1/promote", "application/json", `{"message":"x"}`},
		{"DELETE", "/drafts/d1", "", ""},
		{"POST", "/versions/rollback", "application/json", `{"to":"x"}`}, {"POST", "/versions/unpin", "", ""},
		{"GET", "/ui/../rules", "", ""}, {"GET", "/ui/%2e%2e/rules", "", ""}, {"GET", "/ui/..%2frules", "", ""},
	} {
		req, _ := http.NewRequest(tc.method, pub.base+tc.path, strings.NewReader(tc.body))
		if tc.ctype != "" {
			req.Header.Set("Content-Type", tc.ctype)
		}
		code, body := pub.do(req)
		// A console path's trick may be cleaned into a redirect (not
		// followed here) or a console 404; never the JSON answer.
		if tc.path[:4] == "/ui/" {
			if code == 200 || strings.Contains(body, `"from"`) {
				t.Errorf("%s %s with the cookie: %d, the JSON endpoint answered:\n%.300s", tc.method, tc.path, code, body)
			}
			continue
		}
		if code != http.StatusUnauthorized {
			t.Errorf("%s %s with the session cookie, no Bearer token: %d, want 401\n%.300s", tc.method, tc.path, code, body)
		}
	}

	req, _ := http.NewRequest("POST", pub.base+"/ui/drafts", strings.NewReader(url.Values{"csrf": {pub.csrf}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Authorization", "Bearer pub-token")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("a console POST with a Bearer token and no session: %v %v, want 403", resp.StatusCode, err)
	} else {
		resp.Body.Close()
	}

	// Another port of the same host is the same site, whose requests
	// carry a SameSite=Strict cookie: a page there must not post a form
	// here even with the right CSRF token (CrossOriginProtection, by
	// Sec-Fetch-Site or, from a browser without it, by Origin).
	for _, h := range [][2]string{{"Sec-Fetch-Site", "same-site"}, {"Origin", "http://" + n.addr}} {
		req, _ := http.NewRequest("POST", pub.base+"/ui/drafts", strings.NewReader(url.Values{"csrf": {pub.csrf}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set(h[0], h[1])
		if code, _ := pub.do(req); code != http.StatusForbidden {
			t.Errorf("a console POST with %s: %s and the right CSRF token: %d, want 403", h[0], h[1], code)
		}
	}

	other := consoleSignIn(t, n, "pub")
	good := pub.csrf
	forms := []struct {
		path string
		form url.Values
	}{
		{"/ui/drafts", url.Values{}},
		{"/ui/drafts/d1/entries", url.Values{"op": {"add"}, "from": {"/csrf"}, "to": {"/y"}, "status": {"301"}}},
		{"/ui/drafts/d1/promote", url.Values{"message": {"x"}}},
		{"/ui/drafts/d1/delete", url.Values{}},
		{"/ui/misses", url.Values{"pick": {"0"}, "host0": {""}, "path0": {"/csrf"}, "to0": {"/y"}, "status": {"301"}}},
		{"/ui/versions/rollback", url.Values{"to": {"x"}, "message": {"x"}}},
		{"/ui/versions/unpin", url.Values{}},
		{"/ui/signout", url.Values{}},
	}
	for name, csrf := range map[string]string{"no": "", "a wrong": good + "x", "another session's": other.csrf} {
		for _, f := range forms {
			form := url.Values{}
			for k, v := range f.form {
				form[k] = v
			}
			if csrf != "" {
				form["csrf"] = []string{csrf}
			}
			pub.csrf = "" // post would fill in pub's own token
			if code, _ := pub.post(f.path, form); code != http.StatusForbidden {
				t.Errorf("POST %s with %s CSRF token: %d, want 403", f.path, name, code)
			}
		}
		pub.csrf = csrf
		if code, _ := pub.upload("/ui/drafts/d1/upload", "x.csv", "/up,/y,301\n"); code != http.StatusForbidden {
			t.Errorf("an upload with %s CSRF token: %d, want 403", name, code)
		}
	}
	pub.csrf = good
	if v, d, l := versions(), drafts(), draftList(); v != beforeV || d != beforeD || l != beforeL {
		t.Errorf("refused forms changed something:\nversions %s\nwas %s\ndraft %s\nwas %s\ndrafts %s\nwas %s", v, beforeV, d, beforeD, l, beforeL)
	}
	if code, _ := pub.get("/"); code != 200 {
		t.Errorf("pub's session after the refused sign-outs: %d, want 200", code)
	}

	// Sign-in CSRF: the attacker's own form token, sent from the
	// victim's browser (which has no sign-in cookie, or its own).
	attacker := &consoleUser{t: t, base: pub.base, c: &http.Client{}}
	_, form := attacker.get("/ui/signin")
	attackerCSRF := consoleCSRF.FindStringSubmatch(form)[1]
	victim := consoleSignIn(t, n, "vera")
	victim.get("/ui/signin") // a sign-in cookie of the victim's own
	for _, u := range []*consoleUser{{t: t, base: pub.base, c: &http.Client{}}, victim} {
		code, _ := u.post("/ui/signin", url.Values{"csrf": {attackerCSRF}, "token": {"ed-token"}})
		if code != http.StatusForbidden {
			t.Errorf("a sign-in with another browser's form token: %d, want 403", code)
		}
	}
	if _, body := victim.get("/"); !strings.Contains(body, "vera (viewer)") {
		t.Errorf("the victim's session after a forged sign-in:\n%.800s", body)
	}

	// A restart with pub lowered to viewer.
	cfg := strings.Replace(editConfig(n.addr, n.adminAddr), "name = \"pub\"\nrole = \"publisher\"", "name = \"pub\"\nrole = \"viewer\"", 1)
	if !strings.Contains(cfg, "name = \"pub\"\nrole = \"viewer\"") {
		t.Fatal("the config has no pub token to lower")
	}
	os.WriteFile(n.file, []byte(cfg), 0o644)
	n.stop()
	n.start()
	if code, _ := pub.get("/ui/drafts/d1"); code != http.StatusSeeOther {
		t.Errorf("pub's cookie after a restart: %d, want 303 to sign in", code)
	}
	if code, _ := pub.post("/ui/drafts/d1/promote", url.Values{"message": {"x"}}); code != http.StatusForbidden {
		t.Errorf("pub's old session promoting after a restart: %d, want 403", code)
	}
	pub = consoleSignIn(t, n, "pub")
	if code, body := pub.post("/ui/drafts/d1/promote", url.Values{"message": {"x"}}); code != http.StatusForbidden || !strings.Contains(body, "viewer") {
		t.Errorf("pub, now a viewer, promoting: %d, want 403\n%.600s", code, body)
	}
	if v := versions(); strings.Contains(v, `"message":"x"`) {
		t.Errorf("a version was promoted by a viewer: %s", v)
	}
}
