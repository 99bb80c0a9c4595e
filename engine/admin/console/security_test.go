package console

import (
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/redirectd/redirectd/engine/admin"
)

const token = "s3cret-token"

// TestSignIn walks the sign-in: a page without a session goes to the
// form, a stale form or a wrong token is refused, the right one gives a
// session cookie with the console's flags.
func TestSignIn(t *testing.T) {
	t.Parallel()
	base, _ := serve(t, admin.Options{Token: token}, newFake())
	b := newBrowser(t, base)
	if p := b.get("/ui/rules?q=x"); p.Status != http.StatusSeeOther || p.Location != "/ui/signin?next=%2Fui%2Frules%3Fq%3Dx" {
		t.Fatalf("rules without a session: %d %q", p.Status, p.Location)
	}
	if p := b.get("/rules"); p.Status != http.StatusUnauthorized {
		t.Errorf("the JSON /rules without a Bearer token: %d, want 401", p.Status)
	}
	csrf := b.csrf("/ui/signin")
	if p := b.post("/ui/signin", url.Values{"token": {token}}); p.Status != http.StatusForbidden {
		t.Errorf("sign-in without the form's CSRF token: %d, want 403", p.Status)
	}
	if p := b.post("/ui/signin", url.Values{"csrf": {csrf + "x"}, "token": {token}}); p.Status != http.StatusForbidden {
		t.Errorf("sign-in with a wrong CSRF token: %d, want 403", p.Status)
	}
	p := b.post("/ui/signin", url.Values{"csrf": {csrf}, "token": {"wrong"}})
	if p.Status != http.StatusUnauthorized || !strings.Contains(p.Body, "not one of the admin tokens") || b.cookie() != "" {
		t.Errorf("a wrong token: %d, cookie %q\n%.800s", p.Status, b.cookie(), p.Body)
	}
	p = b.post("/ui/signin", url.Values{"csrf": {b.csrf("/ui/signin")}, "token": {token}, "next": {"/ui/rules?q=old"}})
	if p.Status != http.StatusSeeOther || p.Location != "/ui/rules?q=old" {
		t.Fatalf("sign-in: %d %q", p.Status, p.Location)
	}
	var ck *http.Cookie
	for _, c := range p.Cookies {
		if c.Name == sessionCookie {
			ck = c
		}
	}
	if ck == nil || !ck.HttpOnly || ck.Secure || ck.SameSite != http.SameSiteStrictMode || ck.Path != "/" || len(ck.Value) != 43 {
		t.Fatalf("session cookie over plain HTTP: %+v", ck)
	}
	if p := b.get("/ui/rules?q=old"); p.Status != 200 || !strings.Contains(p.Body, "/old-a") {
		t.Errorf("rules after sign-in: %d\n%.800s", p.Status, p.Body)
	}
}

// TestSignInNext refuses to send a person who signed in off the console.
func TestSignInNext(t *testing.T) {
	t.Parallel()
	for _, next := range []string{"https://evil.example/", "//evil.example/", "/\\evil.example", "/ui/signin", "/rules", "javascript:alert(1)"} {
		if got := safeNext(next); got != "/" {
			t.Errorf("safeNext(%q) = %q, want /", next, got)
		}
	}
	for _, next := range []string{"/", "/ui/rules?q=a"} {
		if got := safeNext(next); got != next {
			t.Errorf("safeNext(%q) = %q", next, got)
		}
	}
}

// TestSessionCookieSecureOverTLS: served over TLS, the cookie is Secure.
func TestSessionCookieSecureOverTLS(t *testing.T) {
	t.Parallel()
	var h http.Handler
	s, err := admin.New(admin.Options{Listen: "127.0.0.1:0", Token: token, Pages: func(s *admin.Server) http.Handler { return New(s) }}, newFake())
	if err != nil {
		t.Fatal(err)
	}
	h = s.Handler()
	ts := httptest.NewTLSServer(h)
	defer ts.Close()
	b := newBrowser(t, ts.URL)
	b.c.Transport = ts.Client().Transport
	p := b.post("/ui/signin", url.Values{"csrf": {b.csrf("/ui/signin")}, "token": {token}})
	for _, c := range p.Cookies {
		if c.Name == sessionCookie && (!c.Secure || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode) {
			t.Errorf("session cookie over TLS: %+v", c)
		}
	}
	if p.Status != http.StatusSeeOther {
		t.Errorf("sign-in over TLS: %d", p.Status)
	}
}

// TestSessionFixation: an id the browser had before signing in, made up
// or a real session's, never becomes the signed-in session.
func TestSessionFixation(t *testing.T) {
	t.Parallel()
	base, _ := serve(t, admin.Options{Token: token}, newFake())
	b := newBrowser(t, base)
	planted := "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
	b.setCookie(planted)
	if p := b.get("/"); p.Status != http.StatusSeeOther {
		t.Fatalf("a planted id is a session: %d", p.Status)
	}
	b.signIn(token)
	first := b.cookie()
	if first == planted || first == "" {
		t.Fatalf("the planted id was kept: %q", first)
	}
	attacker := newBrowser(t, base)
	attacker.setCookie(planted)
	if p := attacker.get("/"); p.Status != http.StatusSeeOther {
		t.Errorf("the planted id works after the victim signed in: %d", p.Status)
	}
	b.signIn(token)
	if second := b.cookie(); second == first {
		t.Fatal("signing in again kept the session id")
	}
	stale := newBrowser(t, base)
	stale.setCookie(first)
	if p := stale.get("/"); p.Status != http.StatusSeeOther {
		t.Errorf("the session before a new sign-in still works: %d", p.Status)
	}
}

// TestCSRF: every POST of the console needs the session's CSRF token.
func TestCSRF(t *testing.T) {
	t.Parallel()
	f := newFake()
	base, _ := serve(t, admin.Options{Token: token}, f)
	b := newBrowser(t, base)
	b.signIn(token)
	good := b.csrf("/")
	other := newBrowser(t, base)
	other.signIn(token)
	foreign := other.csrf("/")
	for _, path := range []string{"/ui/signout", "/ui/versions/rollback", "/ui/versions/unpin", "/ui/misses", "/ui/rules/edit", "/ui/drafts/d1/entries", "/ui/drafts/d1/promote"} {
		for name, csrf := range map[string][]string{"missing": nil, "empty": {""}, "wrong": {good + "x"}, "another session's": {foreign}} {
			p := b.post(path, url.Values{"csrf": csrf, "to": {"aaaaaaaaaaaa"}})
			if p.Status != http.StatusForbidden {
				t.Errorf("POST %s with a %s CSRF token: %d, want 403", path, name, p.Status)
			}
		}
	}
	if f.rolled != "" {
		t.Fatalf("a rollback went through without the CSRF token: %q", f.rolled)
	}
	p := b.post("/ui/versions/rollback", url.Values{"csrf": {good}, "to": {"aaaaaaaaaaaa"}})
	if p.Status != http.StatusSeeOther || f.rolled != "aaaaaaaaaaaa" {
		t.Errorf("rollback with the CSRF token: %d, rolled %q", p.Status, f.rolled)
	}
	if p := newBrowser(t, base).post("/ui/versions/rollback", url.Values{"csrf": {good}}); p.Status != http.StatusForbidden {
		t.Errorf("POST without a session: %d, want 403", p.Status)
	}
}

// TestSignOutAndExpiry: a session ends at sign-out, after an idle hour,
// and after twelve hours however busy.
func TestSignOutAndExpiry(t *testing.T) {
	t.Parallel()
	base, c := serve(t, admin.Options{Token: token}, newFake())
	clock := time.Now()
	c.now = func() time.Time { return clock }
	b := newBrowser(t, base)
	b.signIn(token)
	if p := b.post("/ui/signout", url.Values{"csrf": {b.csrf("/")}}); p.Status != http.StatusSeeOther || p.Location != "/ui/signin" {
		t.Fatalf("sign-out: %d %q", p.Status, p.Location)
	}
	b.setCookie(b.cookie()) // whatever the jar kept
	if p := b.get("/"); p.Status != http.StatusSeeOther {
		t.Errorf("after sign-out: %d", p.Status)
	}
	b.signIn(token)
	clock = clock.Add(sessionIdle + time.Minute)
	if p := b.get("/"); p.Status != http.StatusSeeOther {
		t.Errorf("after an idle hour: %d", p.Status)
	}
	b.signIn(token)
	for i := range 13 { // 13 × 55 min: under twelve hours, never idle
		clock = clock.Add(55 * time.Minute)
		if p := b.get("/"); p.Status != 200 {
			t.Fatalf("a busy session after %d × 55 min: %d", i+1, p.Status)
		}
	}
	clock = clock.Add(55 * time.Minute)
	if p := b.get("/"); p.Status != http.StatusSeeOther {
		t.Errorf("after twelve busy hours: %d", p.Status)
	}
}

// TestAdminPortRulesHold: the console keeps the admin port's guards: the
// loopback Host rule without a token and CrossOriginProtection.
func TestAdminPortRulesHold(t *testing.T) {
	t.Parallel()
	base, _ := serve(t, admin.Options{}, newFake())
	b := newBrowser(t, base)
	req, _ := http.NewRequest("GET", base+"/", nil)
	req.Host = "rebind.example"
	if p := b.do(req); p.Status != http.StatusMisdirectedRequest {
		t.Errorf("Host rebind.example without a token: %d, want 421", p.Status)
	}
	if p := b.get("/"); p.Status != 200 || !strings.Contains(p.Body, "local (admin)") {
		t.Fatalf("an open admin port's console without sign-in: %d\n%.600s", p.Status, p.Body)
	}
	csrf := b.csrf("/ui/versions")
	req, _ = http.NewRequest("POST", base+"/ui/versions/rollback", strings.NewReader(url.Values{"csrf": {csrf}, "to": {"aaaaaaaaaaaa"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	if p := b.do(req); p.Status != http.StatusForbidden {
		t.Errorf("a cross-site POST: %d, want 403", p.Status)
	}
	if p := b.get("/ui/signin"); p.Status != http.StatusSeeOther {
		t.Errorf("sign-in on an open port: %d, want 303 to /", p.Status)
	}
	for _, h := range []string{"Content-Security-Policy", "X-Frame-Options", "Cache-Control"} {
		resp, _ := b.c.Get(base + "/")
		resp.Body.Close()
		if resp.Header.Get(h) == "" {
			t.Errorf("no %s header", h)
		}
	}
}

// TestSignInLimit: after a burst of wrong tokens, sign-ins get 429 (the
// right token too) until the bucket refills.
func TestSignInLimit(t *testing.T) {
	t.Parallel()
	base, c := serve(t, admin.Options{Token: token}, newFake())
	clock := time.Now()
	c.now = func() time.Time { return clock }
	b := newBrowser(t, base)
	try := func(tok string) int {
		return b.post("/ui/signin", url.Values{"csrf": {b.csrf("/ui/signin")}, "token": {tok}}).Status
	}
	for i := range failBurst {
		if got := try("guess"); got != http.StatusUnauthorized {
			t.Fatalf("wrong token %d: %d, want 401", i+1, got)
		}
	}
	if got := try(token); got != http.StatusTooManyRequests {
		t.Errorf("after %d wrong tokens: %d, want 429", failBurst, got)
	}
	clock = clock.Add(time.Second)
	if got := try(token); got != http.StatusSeeOther {
		t.Errorf("a second later: %d, want 303", got)
	}
}

// TestSignInLimitPerClient: a stranger's wrong tokens, from another
// address, at any rate, never refuse a right token from this one; the
// stranger is limited.
func TestSignInLimitPerClient(t *testing.T) {
	t.Parallel()
	base, c := serve(t, admin.Options{Token: token}, newFake())
	clock := time.Now()
	c.now = func() time.Time { return clock }
	stranger := newBrowser(t, base)
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}}
	stranger.c.Transport = &http.Transport{DialContext: d.DialContext}
	try := func(b *browser, tok string) int {
		return b.post("/ui/signin", url.Values{"csrf": {b.csrf("/ui/signin")}, "token": {tok}}).Status
	}
	for i := range failBurst + 10 {
		want := http.StatusUnauthorized
		if i >= failBurst {
			want = http.StatusTooManyRequests
		}
		if got := try(stranger, "guess"); got != want {
			t.Fatalf("the stranger's wrong token %d: %d, want %d", i+1, got, want)
		}
	}
	for i := range 6 {
		if got := try(newBrowser(t, base), token); got != http.StatusSeeOther {
			t.Errorf("right token %d from 127.0.0.1 after a stranger's failures: %d, want 303", i+1, got)
		}
	}
}

// TestFailLimitsBounded: a flood of failures from more networks than are
// kept costs at most maxFailClients buckets, and full ones are dropped.
func TestFailLimitsBounded(t *testing.T) {
	var l failLimits
	now := time.Now()
	for i := range maxFailClients + 500 {
		l.failed(netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}).String()+":1", now)
	}
	if len(l.by) != maxFailClients {
		t.Fatalf("%d buckets, want %d", len(l.by), maxFailClients)
	}
	now = now.Add(time.Minute) // every bucket full again
	l.failed("[2001:db8::1]:1", now)
	if len(l.by) != 1 || !l.allow("[2001:db8::2]:9", now) {
		t.Fatalf("after a minute: %d buckets, want the new one alone", len(l.by))
	}
}
