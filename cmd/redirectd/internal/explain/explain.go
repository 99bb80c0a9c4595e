// Package explain answers, for one URL and a rule set, which rule answers
// it and what it answers (status, Location, the header fields, the Vary
// line, the fallback and shadow rules), as the server would: for the
// explain command and the admin listener's /explain.
package explain

import (
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/redirectd/redirectd/httpparse"
	"github.com/redirectd/redirectd/matcher"
)

// HTTPSRedirect writes, under https_redirect, what the plain port
// answers raw (a URL without "https://": plain HTTP) before any rule, as
// the server does (engine's conn.answer), and returns the URL to explain the rules
// for: raw over https, as the redirect leads there.
func HTTPSRedirect(w io.Writer, raw string) (string, error) {
	if len(raw) > 8 && strings.EqualFold(raw[:8], "https://") {
		return raw, nil
	}
	host, path, query, err := splitURL(raw)
	if err != nil {
		return "", err
	}
	if path == "*" {
		return raw, nil // OPTIONS * is not redirected
	}
	shown := httpparse.HostName(host) // the plain port's own, not the https one's
	if shown == "" {
		shown = "HOST" // a request without a Host field gets 400
	}
	loc := "https://" + shown + path
	if query != nil {
		loc += "?" + string(query)
	}
	fmt.Fprintf(w, "https_redirect: status 301\nlocation: %s\n(the plain port answers so before any rule, unless a trusted proxy marks the request X-Forwarded-Proto: https; over https the rules answer:)\n", loc)
	if host == "" {
		return raw, nil
	}
	return "https://" + shown + strings.TrimPrefix(raw, raw[:strings.Index(raw, host)+len(host)]), nil
}

// URL writes which rule of set answers raw now, and what it answers.
func URL(w io.Writer, set *matcher.Set, raw string) error {
	return urlAt(w, set, raw, time.Now())
}

// urlAt writes which rule of set answers raw at the instant now.
func urlAt(w io.Writer, set *matcher.Set, raw string, now time.Time) error {
	return RequestAt(w, set, raw, now, nil)
}

// RequestAt writes which rule of set answers raw at the instant
// now, for a request with req's fields and client (nil: none, so rules
// with when conditions on them do not answer). The URL's scheme is the
// request's for when.scheme.
func RequestAt(w io.Writer, set *matcher.Set, raw string, now time.Time, req matcher.Request) error {
	return RequestNamed(w, set, raw, now, req, nil)
}

// RequestNamed is RequestAt naming each rule's origin by name (nil: its
// place in its file, Rule.Source): a fleet node names a rule an editor
// made by who made it ("version 3 by ed"), not by its line in the
// rule-set archive it loaded, as its /rules does.
func RequestNamed(w io.Writer, set *matcher.Set, raw string, now time.Time, req matcher.Request, name func(*matcher.Rule) string) error {
	host, path, query, err := splitURL(raw)
	if err != nil {
		return err
	}
	https := len(raw) > 8 && strings.EqualFold(raw[:8], "https://")
	switch r := req.(type) {
	case nil:
		req = &matcher.FixedRequest{Countries: set.Countries(), TLS: https}
	case *matcher.FixedRequest:
		r.TLS = https
	}
	req = WithHost(req, host)
	pr := PhaseRequest{Host: host, Path: path, Query: query, HTTPS: https, Fields: req}
	if explainPhase(w, set, pr, true) { // phase.go
		return nil
	}
	m := matcher.Match{Now: now.UnixNano(), Req: req}
	defer explainShadow(w, &m, query, name) // shadow.go
	if !set.Lookup([]byte(host), []byte(path), query, &m) {
		if m.BadURI() {
			fmt.Fprintf(w, "bad path %q: the rules compare nginx's $uri (uri = \"nginx\"), and nginx answers 400 to this path (an invalid escape, %%00 or a \"..\" above the root): the answer is 400\n", path)
			return nil
		}
		// The location phase runs after the rules miss, a no-redirect
		// entry's request too (engine's conn.answer).
		if explainPhase(w, set, pr, false) {
			explainNear(w, set, nil, host, path, query, req, now, name)
			return nil
		}
		if r := m.Passed(); r != nil {
			// An nginx map value of "": it decides the request, so no
			// later rule is tried.
			fmt.Fprintf(w, "no redirect: %s is a no-redirect entry (its value is \"\"): the answer is 404, or the upstream's when one is set\n",
				ruleText(r, name))
			return nil
		}
		fmt.Fprintf(w, "no rule matches host %q path %q: the answer is 404, or the upstream's when one is set\n", host, path)
		explainNear(w, set, nil, host, path, query, req, now, name)
		explainVary(w, &m)
		return nil
	}
	r := m.Rule()
	if !matcher.HasLocation(m.Status()) {
		fmt.Fprintf(w, "rule:     %s\nstatus:   %d\nlocation: none (a %d answer has none; its body is %q)\n", ruleText(r, name),
			m.Status(), m.Status(), matcher.StatusText(m.Status()))
	} else {
		fmt.Fprintf(w, "rule:     %s\nstatus:   %d\nlocation: %s\n", ruleText(r, name),
			m.Status(), m.AppendLocation(nil, query))
	}
	explainNear(w, set, r, host, path, query, req, now, name)
	explainVary(w, &m)
	explainHeaders(w, &m, set)
	explainFallback(w, &m) // fallback.go
	return nil
}

// WithHost returns req with the Host field a client sends for a URL of
// host (as written: port and case kept), unless req has one (an -H Host
// wins): the server's steps read it as $http_host and rules' when.header
// as Host, as the engine reads the request's own field. A request of
// another type, or a URL with no host, is returned as it is.
func WithHost(req matcher.Request, host string) matcher.Request {
	r, ok := req.(*matcher.FixedRequest)
	if !ok || host == "" || r.Header([]byte("Host")) != nil {
		return req
	}
	c := *r
	c.Fields = append([]matcher.KeyValue{{Name: "Host", Value: host}}, r.Fields...)
	return &c
}

// explainVary writes the Vary line an answer decided by conditions
// carries.
func explainVary(w io.Writer, m *matcher.Match) {
	if v := strings.TrimSpace(m.Vary()); v != "" {
		fmt.Fprintf(w, "header:   %s\n", v)
	}
}

// RuleText names a rule as explain, test and check show it: where it is,
// its kind and from, its host and its conditions (matcher's
// Rule.Conditions): `redirectd.toml:12 (exact "/a", host "x", scheme =
// https)`.
func RuleText(r *matcher.Rule) string { return ruleText(r, nil) }

// ruleText is RuleText with the rule's origin by name (nil: Source).
func ruleText(r *matcher.Rule, name func(*matcher.Rule) string) string {
	src := r.Source()
	if name != nil {
		src = name(r)
	}
	s := fmt.Sprintf("%s (%s %q", src, r.Kind, r.From)
	if r.Host != "" {
		s += fmt.Sprintf(", host %q", r.Host)
	}
	if c := r.ConditionsText(); c != "" {
		s += ", " + c
	}
	return s + ")"
}

// splitURL splits an absolute URL or an origin-form path into host, path
// and query, keeping the path as a client would send it. The query is nil
// when there is no '?', as the server passes it: rules compared with the
// request target (request_uri) tell "/a" from "/a?".
func splitURL(raw string) (host, path string, query []byte, err error) {
	if strings.HasPrefix(raw, "/") {
		path, q, hasQuery := strings.Cut(raw, "?")
		if hasQuery {
			query = []byte(q)
		}
		return "", path, query, nil
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "", "", nil, fmt.Errorf("cannot read %q as a URL; give http://host/path or /path", raw)
	}
	if u.ForceQuery || u.RawQuery != "" {
		query = []byte(u.RawQuery)
	}
	return u.Host, u.EscapedPath(), query, nil
}
