package console

import (
	"net/http"
	"strings"
)

// signinData is the sign-in form's: the CSRF token of the form (the
// sign-in cookie's value), where to go after, and whether the last
// token was wrong.
type signinData struct {
	CSRF, Next string
	Wrong      bool
}

// signinForm shows the form, with a fresh sign-in cookie whose value the
// form carries back (a double-submit token: a page on another site can
// neither read the cookie nor set it, so it cannot sign the browser in
// with a token of its own). On an open admin port there is nothing to
// sign in to.
func (c *Console) signinForm(w http.ResponseWriter, r *http.Request) {
	if c.srv.Open() {
		back(w, r, "/")
		return
	}
	c.showSignin(w, r, http.StatusOK, false)
}

func (c *Console) showSignin(w http.ResponseWriter, r *http.Request, status int, wrong bool) {
	tok := randomID()
	setCookie(w, r, signinCookie, tok, "/ui/signin", 600)
	c.render(w, status, "signin", "Sign in", nil, signinData{CSRF: tok, Next: safeNext(r.FormValue("next")), Wrong: wrong})
}

// signin checks the form's token and starts a session with a new id:
// whatever session cookie the browser sent is ended, never promoted, so
// an id planted before sign-in (session fixation) is worthless.
func (c *Console) signin(w http.ResponseWriter, r *http.Request) {
	if c.srv.Open() {
		back(w, r, "/")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	if err := r.ParseForm(); err != nil {
		c.fail(w, r, nil, http.StatusBadRequest, "cannot read the form: "+err.Error())
		return
	}
	ck, err := r.Cookie(signinCookie)
	if err != nil || !sameToken(r.PostFormValue("csrf"), ck.Value) {
		c.fail(w, r, nil, http.StatusForbidden, "the sign-in form is stale or came from another page: open /ui/signin and try again")
		return
	}
	if old, err := r.Cookie(sessionCookie); err == nil {
		c.st.remove(old.Value)
	}
	if !c.fails.allow(r.RemoteAddr, c.now()) {
		w.Header().Set("Retry-After", "1")
		c.fail(w, r, nil, http.StatusTooManyRequests, "too many wrong tokens lately: wait a few seconds and try again")
		return
	}
	token := strings.TrimSpace(r.PostFormValue("token"))
	if _, ok := c.srv.Identify(token); !ok {
		c.fails.failed(r.RemoteAddr, c.now())
		c.showSignin(w, r, http.StatusUnauthorized, true)
		return
	}
	s := c.st.create(token, false, c.now())
	setCookie(w, r, sessionCookie, s.id, "/", 0)
	setCookie(w, r, signinCookie, "", "/ui/signin", -1)
	back(w, r, safeNext(r.PostFormValue("next")))
}

// signout ends the session and forgets the cookie.
func (c *Console) signout(w http.ResponseWriter, r *http.Request, u *user) {
	c.st.remove(u.sess.id)
	setCookie(w, r, sessionCookie, "", "/", -1)
	back(w, r, "/ui/signin")
}

// safeNext returns next when it is a path of this console, else "/": a
// link "/ui/signin?next=https://evil.example" must not send a person
// who just signed in to another site (an open redirect).
func safeNext(next string) string {
	if next == "/" || strings.HasPrefix(next, "/ui/") && !strings.HasPrefix(next, "/ui/signin") &&
		!strings.ContainsAny(next, "\\\r\n") {
		return next
	}
	return "/"
}
