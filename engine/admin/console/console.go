package console

import (
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/redirectd/redirectd/engine/admin"
	"github.com/redirectd/redirectd/engine/admin/edit"
)

// Console is the web console's handler. New makes it; admin mounts it.
type Console struct {
	srv *admin.Server
	b   admin.Backend
	// ed is the editing model the JSON endpoints ask too: drafts,
	// versions and who may do what to them.
	ed    *edit.Service
	st    *store
	pages func() pages // parsePages, once, at the first page asked for
	rules *ruleCache
	rates *rateSampler
	fails failLimits
	now   func() time.Time
	mux   *http.ServeMux
	// wait returns what a promote's form waits on before it answers
	// with the operation's page: time.After(promptWait), a test's
	// channel in tests.
	wait func() <-chan time.Time
	// refresh is how often, in seconds, the operation's page loads
	// itself again: refreshEvery, longer in a test that reads the page
	// in a browser (a reload in the middle of the keyboard check would
	// start it again on a new page).
	refresh int
	// hist is the rules' hit history (nil: none kept).
	hist *hitHistory
}

// Options are the console's settings beyond the admin server's.
type Options struct {
	// HistoryDir keeps the rules' daily hit history (history.go); ""
	// keeps none.
	HistoryDir string
}

// NewWith returns a New for admin.Options.Pages with o. A history
// folder that cannot be made leaves the history off, said on its page.
func NewWith(o Options) func(*admin.Server) http.Handler {
	return func(srv *admin.Server) http.Handler {
		c := New(srv).(*Console)
		if o.HistoryDir == "" {
			return c
		}
		if h, err := newHitHistory(o.HistoryDir); err == nil {
			c.setHistory(h)
			c.sample()
		}
		return c
	}
}

// setHistory makes h the hit history, fed every index built.
func (c *Console) setHistory(h *hitHistory) {
	c.hist = h
	c.rules.built = func(x *index) { h.observe(x, c.now()) }
}

// New returns the console of srv, for admin.Options.Pages.
func New(srv *admin.Server) http.Handler {
	c := &Console{srv: srv, b: srv.Backend(), ed: srv.Edit(), st: newStore(), pages: sync.OnceValue(parsePages),
		rates: &rateSampler{}, now: time.Now, wait: func() <-chan time.Time { return time.After(promptWait) },
		refresh: refreshEvery}
	c.rules = &ruleCache{b: c.b}
	c.mux = c.routes()
	return c
}

func (c *Console) routes() *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("GET /ui/assets/", assetHandler())
	mux.HandleFunc("GET /ui/signin", c.signinForm)
	mux.HandleFunc("POST /ui/signin", c.signin)
	mux.HandleFunc("POST /ui/signout", c.action(c.signout))
	mux.HandleFunc("GET /{$}", c.page(c.overview))
	mux.HandleFunc("GET /ui/rules", c.page(c.rulesPage))
	mux.HandleFunc("GET /ui/rules/hits", c.page(c.hitsPage))
	mux.HandleFunc("GET /ui/rules/export.csv", c.page(c.exportCSV))
	mux.HandleFunc("GET /ui/rules/export.toml", c.page(c.exportTOML))
	mux.HandleFunc("GET /ui/explain", c.page(c.explainPage))
	mux.HandleFunc("GET /ui/misses", c.page(c.missesPage))
	mux.HandleFunc("GET /ui/versions", c.page(c.versionsPage))
	mux.HandleFunc("GET /ui/versions/diff", c.page(c.versionDiffPage))
	mux.HandleFunc("POST /ui/versions/rollback", c.act(edit.Rollback, c.rollback))
	mux.HandleFunc("POST /ui/versions/unpin", c.act(edit.Unpin, c.unpin))
	c.draftRoutes(mux)
	mux.HandleFunc("/ui/", func(w http.ResponseWriter, r *http.Request) {
		c.fail(w, r, nil, http.StatusNotFound, "no such page")
	})
	return mux
}

// ServeHTTP sets the headers every answer carries, then routes. The
// Content-Security-Policy allows nothing but this origin's style sheet
// and forms posting back to it: a rule's target or a miss's path shown
// on a page is hostile text, and even if an escape were missed no
// script would run. no-store: pages show rules and tokens' names, which
// a shared machine's cache must not keep.
func (c *Console) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	c.mux.ServeHTTP(w, r)
}

// user is the person behind a request: their session and identity,
// asked again of the admin server on every request.
type user struct {
	sess *session
	who  edit.Identity
}

// current returns the request's user, or nil when it has no live
// session. On an open admin port a request without one gets a local
// session, made here and sent as a cookie.
func (c *Console) current(w http.ResponseWriter, r *http.Request, create bool) *user {
	now := c.now()
	if ck, err := r.Cookie(sessionCookie); err == nil {
		if s := c.st.get(ck.Value, now); s != nil {
			if s.local && c.srv.Open() {
				return &user{sess: s, who: c.srv.Local()}
			}
			if who, ok := c.srv.Identify(s.token); ok && !s.local {
				return &user{sess: s, who: who}
			}
			c.st.remove(s.id) // its token was rotated or removed
		}
	}
	if !c.srv.Open() || !create {
		return nil
	}
	s := c.st.create("", true, now)
	setCookie(w, r, sessionCookie, s.id, "/", 0)
	return &user{sess: s, who: c.srv.Local()}
}

// page wraps a GET handler: a signed-in user (every role sees every
// page; what a page offers, and what its forms may do, the editing
// model decides), or to the sign-in form.
func (c *Console) page(fn func(http.ResponseWriter, *http.Request, *user)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		u := c.current(w, r, true)
		if u == nil {
			http.Redirect(w, r, "/ui/signin?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
			return
		}
		fn(w, r, u)
	}
}

// maxForm bounds a form's body; uploads have their own bound
// ([admin] max_upload_bytes, uploadAction).
const maxForm = 1 << 20

// action wraps a POST handler: a live session, its CSRF token in the
// form (403 without: a request another page made the browser send
// carries the cookie but cannot know the token). Who may do what is
// the editing model's: act.
func (c *Console) action(fn func(http.ResponseWriter, *http.Request, *user)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		u := c.current(w, r, false)
		if u == nil {
			c.fail(w, r, nil, http.StatusForbidden, "your session has ended: sign in again")
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxForm)
		if err := r.ParseForm(); err != nil {
			c.fail(w, r, u, http.StatusBadRequest, "cannot read the form: "+err.Error())
			return
		}
		if !sameToken(r.PostFormValue("csrf"), u.sess.csrf) {
			c.fail(w, r, u, http.StatusForbidden, "the form's CSRF token is missing or wrong: reload the page and try again")
			return
		}
		fn(w, r, u)
	}
}

// act is action for an operation of the editing model: it asks the
// model whether the user may (the table of who may do what is the
// model's, the JSON endpoints' too), after the session and CSRF checks.
func (c *Console) act(op edit.Op, fn func(http.ResponseWriter, *http.Request, *user)) http.HandlerFunc {
	return c.action(func(w http.ResponseWriter, r *http.Request, u *user) {
		if err := c.ed.May(u.who, op); err != nil {
			c.fail(w, r, u, edit.Status(err), err.Error())
			return
		}
		fn(w, r, u)
	})
}

// back sends the browser to path after a POST (303), so that reloading
// the page does not post again.
func back(w http.ResponseWriter, r *http.Request, path string) {
	http.Redirect(w, r, path, http.StatusSeeOther)
}
