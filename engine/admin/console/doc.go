// Package console is the web console of the admin port, for the people
// who look after a site's redirects (SEO and content teams): pages to
// sign in with a token, see what serves (overview), search, edit and
// export the rules and see each one's daily hits (history.go), explain a
// URL, turn misses into draft entries, edit and promote drafts (asking
// first when their checks find problems), and compare and roll back
// versions.
//
// Its one job is the web pages. It renders them on the server with
// html/template from files embedded with embed.FS (no build step, no
// script framework, nothing fetched from elsewhere), and every form
// POSTs to a handler that calls the same Backend methods as the JSON
// endpoints of package admin, which mounts it at / and /ui/
// (admin.Options.Pages).
//
// Security: a token signs a person in (compared in constant time by
// admin.Server.Identify); the session is a random 32-byte id in an
// HttpOnly, SameSite=Strict cookie (Secure over TLS), a new one at every
// sign-in, ended by sign-out, an idle hour or twelve hours; every form
// carries the session's CSRF token and every POST without it gets 403.
// The admin port's own rules still apply in front of it: the loopback
// Host rule without a token, CrossOriginProtection always. Without a
// token (a loopback-only admin port) the console needs no sign-in, as
// the JSON endpoints need none, but still keeps a session for the CSRF
// token. A host-scoped token sees only its hosts on every page.
//
// Nothing here is a hot path: pages allocate freely. The rules page
// searches an index built once per rule-set version (index.go), so a
// search over a million rules does not copy a million rules.
package console
