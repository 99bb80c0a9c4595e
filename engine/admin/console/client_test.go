package console

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/redirectd/redirectd/engine/admin"
)

// serve starts an admin server with the console on a loopback port and
// returns its base URL and the console, whose clock a test may move.
func serve(t *testing.T, opts admin.Options, b admin.Backend) (string, *Console) {
	t.Helper()
	var c *Console
	opts.Listen = "127.0.0.1:0"
	opts.Pages = func(s *admin.Server) http.Handler {
		c = New(s).(*Console)
		return c
	}
	s, err := admin.New(opts, b)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.Shutdown(ctx)
	})
	return "http://" + s.Addr(), c
}

// browser is a client that keeps cookies and does not follow
// redirects, so a test sees each answer.
type browser struct {
	t    *testing.T
	base string
	c    *http.Client
}

func newBrowser(t *testing.T, base string) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, base: base, c: &http.Client{Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// page is one answer as a test reads it.
type page struct {
	Status   int
	Location string
	Body     string
	Cookies  []*http.Cookie
}

func (b *browser) do(req *http.Request) page {
	b.t.Helper()
	resp, err := b.c.Do(req)
	if err != nil {
		b.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return page{resp.StatusCode, resp.Header.Get("Location"), string(body), resp.Cookies()}
}

func (b *browser) get(path string) page {
	req, _ := http.NewRequest("GET", b.base+path, nil)
	return b.do(req)
}

func (b *browser) post(path string, form url.Values) page {
	req, _ := http.NewRequest("POST", b.base+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return b.do(req)
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// csrf returns the CSRF token of the first form on path.
func (b *browser) csrf(path string) string {
	b.t.Helper()
	p := b.get(path)
	m := csrfField.FindStringSubmatch(p.Body)
	if m == nil {
		b.t.Fatalf("GET %s (%d) has no csrf field:\n%.1500s", path, p.Status, p.Body)
	}
	return m[1]
}

// signIn signs in with token and fails the test unless it works.
func (b *browser) signIn(token string) {
	b.t.Helper()
	p := b.post("/ui/signin", url.Values{"csrf": {b.csrf("/ui/signin")}, "token": {token}})
	if p.Status != http.StatusSeeOther || p.Location != "/" {
		b.t.Fatalf("sign-in with %q: %d %q\n%.1500s", token, p.Status, p.Location, p.Body)
	}
}

// cookie returns the jar's value of the session cookie.
func (b *browser) cookie() string {
	u, _ := url.Parse(b.base)
	for _, ck := range b.c.Jar.Cookies(u) {
		if ck.Name == sessionCookie {
			return ck.Value
		}
	}
	return ""
}

func (b *browser) setCookie(value string) {
	u, _ := url.Parse(b.base)
	b.c.Jar.SetCookies(u, []*http.Cookie{{Name: sessionCookie, Value: value, Path: "/"}})
}
