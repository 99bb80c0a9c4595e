package main

import (
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/redirectd/redirectd/httpparse"
	"github.com/redirectd/redirectd/matcher"
)

// explain prints which rule answers a URL and what it answers.
func explain(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("explain", stderr)
	file := configFlag(fs)
	at := fs.String("at", "", "answer as of this time (RFC 3339, such as 2026-12-24T12:00:00Z) instead of now, for rules with a time window")
	var fields explainFields
	fs.Var(&fields, "H", "a request header field 'Name: value' (repeatable), for rules with when conditions: 'Accept-Language: de', 'Cookie: lang=fr'")
	client := fs.String("client", "", "the client's IP address, for rules with when.country (looked up in the config's [geoip] database)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return parseExit(err)
	}
	if !needConfig(fs, *file, stderr) || !extraArgs(fs, pos, 1, "one URL", stderr) {
		return 2
	}
	if len(pos) == 0 {
		fmt.Fprintln(stderr, "redirectd explain: give one URL, such as http://example.com/old?x=1 or /old")
		return 2
	}
	now, err := parseAt(*at)
	if err != nil {
		fmt.Fprintf(stderr, "redirectd explain: %v\n", err)
		return 2
	}
	addr, err := parseClient(*client)
	if err != nil {
		fmt.Fprintf(stderr, "redirectd explain: %v\n", err)
		return 2
	}
	cfg, err := loadConfig(*file)
	if err != nil {
		fmt.Fprintf(stderr, "%v\n", err)
		return 1
	}
	raw := pos[0]
	if cfg.Server.HTTPSRedirect {
		var err error
		if raw, err = explainHTTPSRedirect(stdout, raw); err != nil {
			fmt.Fprintf(stderr, "redirectd explain: %v\n", err)
			return 2
		}
	}
	req := &explainRequest{fields: fields, client: addr, set: cfg.Set}
	if err := explainRequestAt(stdout, cfg.Set, raw, now, req); err != nil {
		fmt.Fprintf(stderr, "redirectd explain: %v\n", err)
		return 2
	}
	return 0
}

// explainHTTPSRedirect writes, under https_redirect, what the plain port
// answers raw (a URL without "https://": plain HTTP) before any rule, as
// the server does (answer.go), and returns the URL to explain the rules
// for: raw over https, as the redirect leads there.
func explainHTTPSRedirect(w io.Writer, raw string) (string, error) {
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

// explainURL writes which rule of set answers raw now, and what it answers.
func explainURL(w io.Writer, set *matcher.Set, raw string) error {
	return explainURLAt(w, set, raw, time.Now())
}

// explainURLAt writes which rule of set answers raw at the instant now.
func explainURLAt(w io.Writer, set *matcher.Set, raw string, now time.Time) error {
	return explainRequestAt(w, set, raw, now, nil)
}

// explainRequestAt writes which rule of set answers raw at the instant
// now, for a request with req's fields and client (nil: none, so rules
// with when conditions on them do not answer). The URL's scheme is the
// request's for when.scheme.
func explainRequestAt(w io.Writer, set *matcher.Set, raw string, now time.Time, req matcher.Request) error {
	host, path, query, err := splitURL(raw)
	if err != nil {
		return err
	}
	https := len(raw) > 8 && strings.EqualFold(raw[:8], "https://")
	switch r := req.(type) {
	case nil:
		req = &explainRequest{set: set, https: https}
	case *explainRequest:
		r.https = https
	}
	m := matcher.Match{Now: now.UnixNano(), Req: req}
	defer explainShadow(w, &m, query) // window.go
	if !set.Lookup([]byte(host), []byte(path), query, &m) {
		if r := m.Passed(); r != nil {
			// An nginx map value of "": it decides the request, so no
			// later rule is tried.
			fmt.Fprintf(w, "no redirect: %s (%s %q%s) is a no-redirect entry (its value is \"\"): the answer is 404, or the upstream's when one is set\n",
				r.Source(), r.Kind, r.From, hostNote(r))
			return nil
		}
		fmt.Fprintf(w, "no rule matches host %q path %q: the answer is 404, or the upstream's when one is set\n", host, path)
		explainVary(w, &m)
		return nil
	}
	r := m.Rule()
	if !matcher.HasLocation(m.Status()) {
		fmt.Fprintf(w, "rule:     %s (%s %q%s)\nstatus:   %d\nlocation: none (a %d answer has none; its body is %q)\n", r.Source(), r.Kind, r.From, hostNote(r),
			m.Status(), m.Status(), matcher.StatusText(m.Status()))
	} else {
		fmt.Fprintf(w, "rule:     %s (%s %q%s)\nstatus:   %d\nlocation: %s\n", r.Source(), r.Kind, r.From, hostNote(r),
			m.Status(), m.AppendLocation(nil, query))
	}
	explainVary(w, &m)
	explainHeaders(w, &m, set)
	explainFallback(w, &m) // explain_fallback.go
	return nil
}

// explainVary writes the Vary line an answer decided by conditions
// carries.
func explainVary(w io.Writer, m *matcher.Match) {
	if v := strings.TrimSpace(m.Vary()); v != "" {
		fmt.Fprintf(w, "header:   %s\n", v)
	}
}

// hostNote is ", host \"h\"" for a rule of one host, "" for any host.
func hostNote(r *matcher.Rule) string {
	if r.Host == "" {
		return ""
	}
	return fmt.Sprintf(", host %q", r.Host)
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
