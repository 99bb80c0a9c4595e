package console

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"sync"
	"time"
)

// Session lifetimes: an hour without a request ends a session, and none
// lives past twelve hours, so a cookie left in a shared browser or copied
// from a disk stops working on its own.
const (
	sessionIdle = time.Hour
	sessionMax  = 12 * time.Hour
	// maxSessions bounds the store: sign-ins beyond it drop the session
	// seen longest ago, so a script signing in in a loop cannot grow
	// memory without end.
	maxSessions = 4096
)

// Cookie names. The session cookie is Path=/ (every page); the sign-in
// cookie only travels to the sign-in form's POST.
const (
	sessionCookie = "redirectd_session"
	signinCookie  = "redirectd_signin"
)

// session is one signed-in browser. token is what it signed in with,
// asked of admin.Server.Identify again on every request, so a token
// rotated or removed by a reload ends its sessions and a changed role
// or host list applies at once; "" for the local session of an open
// (tokenless, loopback) admin port.
type session struct {
	id, csrf string
	token    string
	local    bool
	created  time.Time
	seen     time.Time
}

// store holds the sessions in memory: a restart signs everyone out,
// which is the safe side for a console that can change what serves.
type store struct {
	mu sync.Mutex
	m  map[string]*session
}

func newStore() *store { return &store{m: map[string]*session{}} }

// randomID returns 32 random bytes, base64url: a session id or a CSRF
// token.
func randomID() string {
	var b [32]byte
	rand.Read(b[:]) // never fails (crypto/rand, Go 1.24+)
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// create makes a session with a fresh id; an id the browser brought is
// never reused (no session fixation).
func (st *store) create(token string, local bool, now time.Time) *session {
	s := &session{id: randomID(), csrf: randomID(), token: token, local: local, created: now, seen: now}
	st.mu.Lock()
	defer st.mu.Unlock()
	if len(st.m) >= maxSessions {
		st.evict(now)
	}
	st.m[s.id] = s
	return s
}

// evict drops the expired sessions, and when none was, the one seen
// longest ago. st.mu is held.
func (st *store) evict(now time.Time) {
	var oldest *session
	for id, s := range st.m {
		if expired(s, now) {
			delete(st.m, id)
			continue
		}
		if oldest == nil || s.seen.Before(oldest.seen) {
			oldest = s
		}
	}
	if len(st.m) >= maxSessions && oldest != nil {
		delete(st.m, oldest.id)
	}
}

func expired(s *session, now time.Time) bool {
	return now.Sub(s.seen) > sessionIdle || now.Sub(s.created) > sessionMax
}

// get returns the live session of id, marking it seen, or nil.
func (st *store) get(id string, now time.Time) *session {
	st.mu.Lock()
	defer st.mu.Unlock()
	s := st.m[id]
	if s == nil {
		return nil
	}
	if expired(s, now) {
		delete(st.m, id)
		return nil
	}
	s.seen = now
	return s
}

func (st *store) remove(id string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	delete(st.m, id)
}

// setCookie sends a cookie with the console's flags: HttpOnly (no script
// reads it), SameSite=Strict (no other site's link or form carries it),
// Secure when the page came over TLS. maxAge < 0 deletes it.
func setCookie(w http.ResponseWriter, r *http.Request, name, value, path string, maxAge int) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: value, Path: path, MaxAge: maxAge,
		HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode})
}

// sameToken compares a form's CSRF token with the expected one in
// constant time; an empty one never matches.
func sameToken(got, want string) bool {
	return want != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}
