package main

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// consoleUser is a person on the web console without a browser: a
// cookie jar, redirects not followed, so each answer is seen.
type consoleUser struct {
	t    *testing.T
	base string
	c    *http.Client
	csrf string
}

var consoleCSRF = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// consoleSignIn signs in on n's console with name's token.
func consoleSignIn(t *testing.T, n *editNode, name string) *consoleUser {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	u := &consoleUser{t: t, base: "http://" + n.adminAddr, c: &http.Client{Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	_, body := u.get("/ui/signin")
	code, _ := u.post("/ui/signin", url.Values{"csrf": {consoleCSRF.FindStringSubmatch(body)[1]}, "token": {name + "-token"}})
	if code != http.StatusSeeOther {
		t.Fatalf("sign-in as %s: %d", name, code)
	}
	_, body = u.get("/")
	u.csrf = consoleCSRF.FindStringSubmatch(body)[1]
	return u
}

func (u *consoleUser) do(req *http.Request) (int, string) {
	u.t.Helper()
	resp, err := u.c.Do(req)
	if err != nil {
		u.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func (u *consoleUser) get(path string) (int, string) {
	req, _ := http.NewRequest("GET", u.base+path, nil)
	return u.do(req)
}

func (u *consoleUser) post(path string, form url.Values) (int, string) {
	if form.Get("csrf") == "" && u.csrf != "" {
		form.Set("csrf", u.csrf)
	}
	req, _ := http.NewRequest("POST", u.base+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return u.do(req)
}

func (u *consoleUser) upload(path, name, content string) (int, string) {
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	mw.WriteField("csrf", u.csrf)
	fw, _ := mw.CreateFormFile("file", name)
	io.WriteString(fw, content)
	mw.Close()
	req, _ := http.NewRequest("POST", u.base+path, &b)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return u.do(req)
}

// TestConsoleScope: an editor limited to *.brand-a.com sees no rule,
// miss, explanation, draft entry or diff of www.brand-b.com on any
// console page, and every form that would touch brand-b (an entry, an
// upload row, a miss made a rule) or every host (a rollback), or that
// needs a publisher (a promote), is refused with 403; once pub promotes
// the brand-b entry, alice's version diff does not show it.
func TestConsoleScope(t *testing.T) {
	t.Parallel()
	n := startEditNode(t)
	n.wantAnswer("www.brand-b.com", "/b-missing", 404, "")
	n.wantAnswer("www.brand-a.com", "/a", 301, "/b")
	n.wantAnswer("www.brand-a.com", "/a-missing", 404, "")
	pub := consoleSignIn(t, n, "pub")
	code, _ := pub.post("/ui/drafts", url.Values{})
	if code != http.StatusSeeOther {
		t.Fatalf("pub's new draft: %d", code)
	}
	if code, body := pub.post("/ui/drafts/d1/entries", url.Values{"op": {"add"}, "host": {"www.brand-b.com"}, "from": {"/secret-b"}, "to": {"/x"}, "status": {"301"}}); code != http.StatusSeeOther {
		t.Fatalf("pub's brand-b entry: %d %.300s", code, body)
	}
	alice := consoleSignIn(t, n, "alice")
	for _, page := range []string{"/", "/ui/rules", "/ui/rules?q=brand", "/ui/rules?q=/a", "/ui/misses", "/ui/drafts", "/ui/drafts/d1", "/ui/versions"} {
		code, body := alice.get(page)
		if code != 200 || strings.Contains(body, "brand-b") || strings.Contains(body, "secret-b") || strings.Contains(body, "b-missing") {
			t.Errorf("alice's %s (%d) shows brand-b or failed:\n%.1500s", page, code, body)
		}
	}
	// Its hit and when it last answered (RFC 3339, to the second).
	lastAnswered := regexp.MustCompile(`<td class="n">1</td><td>20\d\d-\d\d-\d\dT\d\d:\d\d:\d\dZ</td>`)
	if _, body := alice.get("/ui/rules?q=/a"); !strings.Contains(body, "www.brand-a.com") || !lastAnswered.MatchString(body) {
		t.Errorf("alice's own rule is not shown with its hit and last answer:\n%.3000s", body)
	}
	for _, page := range []string{"/ui/rules?host=www.brand-b.com", "/ui/rules?host=WWW.BRAND-B.COM&q=/a", "/ui/explain?url=http://www.brand-b.com/a",
		"/ui/explain?url=/a", "/ui/misses?host=www.brand-b.com"} {
		code, body := alice.get(page)
		if code != http.StatusForbidden || strings.Contains(body, "location:") || strings.Contains(body, "b-missing") {
			t.Errorf("alice's %s: %d, want 403 showing nothing of brand-b:\n%.1500s", page, code, body)
		}
	}
	for _, tc := range []struct {
		path string
		form url.Values
	}{
		{"/ui/drafts/d1/entries", url.Values{"op": {"add"}, "host": {"www.brand-b.com"}, "from": {"/z"}, "to": {"/y"}, "status": {"301"}}},
		{"/ui/drafts/d1/entries", url.Values{"op": {"add"}, "host": {""}, "from": {"/every-host"}, "to": {"/y"}, "status": {"301"}}},
		{"/ui/misses", url.Values{"pick": {"0"}, "host0": {"www.brand-b.com"}, "path0": {"/b-missing"}, "to0": {"/y"}, "status": {"301"}}},
		{"/ui/versions/rollback", url.Values{"to": {"1"}, "message": {"x"}}},
		{"/ui/drafts/d1/promote", url.Values{"message": {"x"}}},
	} {
		if code, body := alice.post(tc.path, tc.form); code != http.StatusForbidden {
			t.Errorf("alice's POST %s %v: %d, want 403\n%.600s", tc.path, tc.form, code, body)
		}
	}
	if code, body := alice.upload("/ui/drafts/d1/upload", "x.csv", "www.brand-a.com/ok,/y,301\nwww.brand-b.com/no,/y,301\n"); code != http.StatusForbidden {
		t.Errorf("alice's upload with a brand-b row: %d, want 403\n%.600s", code, body)
	}
	if code, body := alice.upload("/ui/drafts/d1/upload", "x.csv", "www.brand-a.com/ok,/y,301\n/every-host,/y,301\n"); code != http.StatusForbidden {
		t.Errorf("alice's upload with a row for every host: %d, want 403\n%.600s", code, body)
	}
	// Roles: a viewer changes nothing, an editor neither promotes nor
	// rolls back, a publisher does not unpin.
	vera, ed := consoleSignIn(t, n, "vera"), consoleSignIn(t, n, "ed")
	for _, tc := range []struct {
		who  *consoleUser
		path string
	}{
		{vera, "/ui/drafts"}, {vera, "/ui/drafts/d1/entries"}, {vera, "/ui/misses"}, {vera, "/ui/drafts/d1/delete"},
		{vera, "/ui/drafts/d1/promote"}, {ed, "/ui/drafts/d1/promote"}, {ed, "/ui/versions/rollback"}, {pub, "/ui/versions/unpin"},
	} {
		if code, _ := tc.who.post(tc.path, url.Values{"message": {"x"}, "to": {"1"}, "op": {"add"}, "from": {"/v"}, "to0": {"/y"}, "pick": {"0"}, "path0": {"/v"}}); code != http.StatusForbidden {
			t.Errorf("POST %s by a weaker role: %d, want 403", tc.path, code)
		}
	}
	if code, _ := vera.upload("/ui/drafts/d1/upload", "x.csv", "/v,/y,301\n"); code != http.StatusForbidden {
		t.Errorf("a viewer's upload: %d, want 403", code)
	}
	good := pub.csrf
	pub.csrf = "wrong"
	if code, _ := pub.upload("/ui/drafts/d1/upload", "x.csv", "www.brand-a.com/ok,/y,301\n"); code != http.StatusForbidden {
		t.Errorf("an upload with a wrong CSRF token: %d, want 403", code)
	}
	pub.csrf = good
	if _, body := pub.get("/ui/drafts/d1"); strings.Contains(body, "www.brand-a.com/ok") || !strings.Contains(body, "1 added") {
		t.Errorf("a refused upload added rows, or pub's entry is gone:\n%.1500s", body)
	}
	// The versions page's diff of the config's version with pub's
	// promoted brand-b entry: alice's shows nothing of it, pub's does.
	if code, body := pub.post("/ui/drafts/d1/promote", url.Values{"message": {"brand-b secret"}}); code != http.StatusSeeOther {
		t.Fatalf("pub's promote: %d %.600s", code, body)
	}
	var versions []struct {
		Hash    string `json:"hash"`
		Serving bool   `json:"serving"`
	}
	n.json("root", "GET", "/versions", nil, 200, &versions)
	if len(versions) != 2 || versions[1].Serving {
		t.Fatalf("versions after the promote: %+v, want the promoted one and the config's", versions)
	}
	diff := "/ui/versions/diff?from=" + versions[1].Hash
	if code, body := alice.get(diff); code != 200 || strings.Contains(body, "secret-b") || strings.Contains(body, "brand-b") || !strings.Contains(body, "0 added") {
		t.Errorf("alice's version diff (%d) shows brand-b, or failed:\n%.1500s", code, body)
	}
	if code, body := pub.get(diff); code != 200 || !strings.Contains(body, "/secret-b") || !strings.Contains(body, "1 added") {
		t.Errorf("pub's version diff (%d) does not show the promoted entry:\n%.1500s", code, body)
	}
}
