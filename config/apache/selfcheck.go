package apache

// The import's self-check: requests made from each redirecting
// directive (its path or a string its regex matches, with case, slash,
// query and encoding variants), answered by the config as loaded and by
// the model of Apache (model.go), every difference a note with the
// directive's file:line.

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/redirectd/redirectd/config/importer"
	"github.com/redirectd/redirectd/internal/regexsample"
	"github.com/redirectd/redirectd/matcher"
	"github.com/redirectd/redirectd/matcher/rewrite"
)

// The self-check's bounds: a 50,000-line .htaccess is checked on a
// sample of its directives, spread from first to last, so that the
// import stays within seconds.
const (
	maxCheckDirectives = 600
	maxProbes          = 4000
	maxCheckNotes      = 20
	// maxModelWork bounds the rules and regexes the model tries in all
	// (about a second of work): past it, the requests left are not asked.
	maxModelWork = 2_000_000
)

// CheckStats says what the self-check did, for the report.
type CheckStats struct {
	// Asked is the requests made; Compared those the model of Apache
	// answers (the rest reach what it does not follow); Differ those
	// answered otherwise by the loaded config.
	Asked, Compared, Differ int
}

// SelfCheck asks the loaded config (hosts, the [[server_rewrite]] and
// [[location]] tables as `serve` runs them) requests derived from the
// rules and compares each answer with the model of Apache's. It appends
// a note (importer.Differs) for each difference to r.Notes; the import
// exits 1 on them.
func (r *Result) SelfCheck(hosts *rewrite.Hosts) CheckStats {
	var st CheckStats
	if r.model == nil {
		return st
	}
	skip := map[string]bool{}
	for _, n := range r.Notes {
		if n.Kind == importer.LeftOut || n.Kind == importer.Served {
			skip[fmt.Sprintf("%s:%d", n.File, n.Line)] = true
		}
	}
	var scratch rewrite.Scratch
	seen := map[string]bool{}
	probes := r.model.probes()
	for i, p := range probes {
		if r.model.work > maxModelWork {
			r.Notes = append(r.Notes, Note{Kind: importer.Caveat, Msg: fmt.Sprintf("the self-check asked %d of the %d requests it made from the rules, within its bound of work", i, len(probes))})
			break
		}
		st.Asked++
		want := r.model.answer(p)
		if !want.known {
			continue
		}
		by := want.by
		if by == nil {
			by = p.from
		}
		if skip[by.Source()] || p.from != nil && skip[p.from.Source()] {
			continue
		}
		st.Compared++
		got := loadedAnswer(hosts, &scratch, p)
		if sameAnswer(got, want.String()) {
			continue
		}
		st.Differ++
		scheme := "http"
		if p.https {
			scheme = "https"
		}
		msg := fmt.Sprintf("%s %s://%s%s: Apache answers %s, the written config %s", by.Name, scheme, p.host, p.target, want, got)
		if !seen[msg] && len(seen) < maxCheckNotes {
			seen[msg] = true
			r.Notes = append(r.Notes, Note{File: by.File, Line: by.Line, Kind: importer.Differs, Msg: msg})
		}
	}
	return st
}

// Differs reports whether the self-check noted a difference.
func (r *Result) Differs() bool {
	for _, n := range r.Notes {
		if n.Kind == importer.Differs {
			return true
		}
	}
	return false
}

// answerString is how both sides' answers are compared: a redirect's
// status and Location, a refusal's status, else "no redirect".
func answerString(status int, loc string) string {
	switch {
	case status >= 300 && status < 400:
		return fmt.Sprintf("%d %s", status, loc)
	case status == 403 || status == 410:
		return fmt.Sprint(status)
	}
	return "no redirect"
}

var portInLocation = regexp.MustCompile(`^(https?://[^/:?#]+):\d+`)
var hexInLocation = regexp.MustCompile(`%[0-9a-fA-F]{2}`)

// sameAnswer compares as a client does: the port aside, escapes' hex
// without case (Apache writes %c3, redirectd %C3), a byte a URL cannot
// hold raw (Apache sends a RedirectMatch's query as it is) escaped.
func sameAnswer(a, b string) bool {
	norm := func(s string) string {
		status, loc, _ := strings.Cut(s, " ")
		loc = matcher.EncodeTarget(portInLocation.ReplaceAllString(loc, "$1"))
		return status + " " + hexInLocation.ReplaceAllStringFunc(loc, strings.ToUpper)
	}
	return norm(a) == norm(b)
}

// loadedAnswer is the loaded config's answer to p, as the server sends
// it: an absolute Location (absolute_redirect), encoded as the server
// encodes it.
func loadedAnswer(hosts *rewrite.Hosts, s *rewrite.Scratch, p probe) string {
	port := "80"
	scheme := "http"
	if p.https {
		port, scheme = "443", "https"
	}
	prog := hosts.ChooseOn(s, []byte(p.host), []byte(port), p.https)
	if prog == nil {
		return "no redirect"
	}
	path, query, hasQuery := strings.Cut(p.target, "?")
	rq := rewrite.Request{Host: []byte(p.host), Target: []byte(p.target), Path: []byte(path), Method: []byte("GET"), Port: []byte(port), HTTPS: p.https,
		Fields: &matcher.FixedRequest{Fields: []matcher.KeyValue{{Name: "Host", Value: p.host}}, TLS: p.https}}
	if hasQuery {
		rq.Query = []byte(query)
	}
	var res rewrite.Result
	prog.Run(s, &rq, &res)
	switch res.Action {
	case rewrite.Redirect:
		loc := matcher.EncodeTarget(string(res.Location))
		if strings.HasPrefix(loc, "/") && !strings.HasPrefix(loc, "//") {
			loc = scheme + "://" + p.host + loc
		}
		return answerString(res.Status, loc)
	case rewrite.Answer:
		return answerString(res.Status, "")
	}
	return "no redirect"
}

// probes are the requests the self-check asks: for each redirecting
// directive of each server and .htaccess, its path or a sample of its
// regex, on the server's first name (the main server's: two names),
// over the schemes it answers.
func (m *apModel) probes() []probe {
	type src struct {
		d   *Directive
		dir string
		q   []string
	}
	var srcs []src
	collect := func(ds []*Directive, dir string) {
		var q []string
		for _, d := range ds {
			switch {
			case d.Is("RewriteCond") && len(d.Args) >= 2 && strings.EqualFold(d.Args[0], "%{QUERY_STRING}"):
				q = []string{sampleRegex(d.Args[1], false), sampleRegex(d.Args[1], true)}
			case d.Is("RewriteRule") || modelAlias(d):
				srcs = append(srcs, src{d, dir, q})
				q = nil
			}
		}
	}
	type target struct {
		host  string
		https bool
	}
	var targets []target
	for _, s := range m.servers {
		collect(s.rules, "/")
		collect(s.alias, "/")
		switch {
		case s.names == nil:
			targets = append(targets, target{"example.test", false}, target{"www.example.test", false}, target{"example.test", true})
		case !strings.ContainsAny(s.names[0], "*?"):
			targets = append(targets, target{s.names[0], s.tls})
		}
	}
	for _, d := range m.dirs {
		collect(d.dirs, d.path)
	}
	if len(srcs) > maxCheckDirectives {
		spread := make([]src, 0, maxCheckDirectives)
		for i := range maxCheckDirectives {
			spread = append(spread, srcs[i*(len(srcs)-1)/(maxCheckDirectives-1)])
		}
		srcs = spread
	}
	var out []probe
	for _, s := range srcs {
		for _, path := range probePaths(s.d, s.dir, s.q) {
			for _, t := range targets {
				out = append(out, probe{host: t.host, target: path, https: t.https, from: s.d})
			}
		}
	}
	if len(out) > maxProbes {
		spread := make([]probe, 0, maxProbes)
		for i := range maxProbes {
			spread = append(spread, out[i*(len(out)-1)/(maxProbes-1)])
		}
		out = spread
	}
	return out
}

// probePaths are a directive's requests: its path (a Redirect's) or a
// string its regex matches (below dir, for a .htaccess's RewriteRule),
// then variants of it, as TestImportApacheRealSites makes them.
func probePaths(d *Directive, dir string, queries []string) []string {
	var base, least string
	switch {
	case d.Is("RewriteRule") && len(d.Args) > 0:
		base, least = sampleRegex(d.Args[0], false), sampleRegex(d.Args[0], true)
		if !strings.HasPrefix(base, "/") || dir != "/" {
			base = strings.TrimSuffix(dir, "/") + "/" + strings.TrimPrefix(base, "/")
			least = strings.TrimSuffix(dir, "/") + "/" + strings.TrimPrefix(least, "/")
		}
	case d.Is("RedirectMatch") && len(d.Args) >= 2:
		base, least = sampleRegex(d.Args[len(d.Args)-2], false), sampleRegex(d.Args[len(d.Args)-2], true)
	case len(d.Args) >= 1:
		for _, a := range d.Args {
			if strings.HasPrefix(a, "/") {
				base = a
				break
			}
		}
	}
	if !strings.HasPrefix(base, "/") {
		return nil
	}
	p := encodeTarget(base)
	out := []string{p, p + "/", p + "/x", p + "x", strings.ToUpper(p), p + "?q=1", strings.Replace(p, "/", "//", 1), p + "%20a"}
	if least != base && strings.HasPrefix(least, "/") {
		out = append(out, encodeTarget(least), encodeTarget(least)+"?q=1")
	}
	for _, q := range queries {
		if q != "" {
			out = append(out, p+"?"+encodeTarget(q))
		}
	}
	return out
}

// encodeTarget percent-encodes what a client never sends raw in a
// request target.
func encodeTarget(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%' && i+2 < len(s) && unhex(s[i+1]) >= 0 && unhex(s[i+2]) >= 0:
			b.WriteByte(c)
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~!$&'()*+,;=:@/?", c) >= 0:
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// sampleRegex is a string the regex matches ("" where there is none Go's
// syntax reads): the first choice of each alternative, one of each
// repetition; with least, the fewest of each: "^k=(.*)$" gives "k=",
// whose empty group is a corner of its own. A RewriteCond's '!' is
// dropped: the probe is the request the negated condition refuses.
func sampleRegex(src string, least bool) string {
	src = strings.TrimPrefix(src, "!")
	sample := regexsample.Of
	if least {
		sample = regexsample.Least
	}
	s, _ := sample(src)
	return s
}

// Expect is the model of Apache's answer to a GET of target on host
// (over TLS when https), as the self-check compares it: "301 URL", "403",
// "no redirect"; ok is false where the model cannot say. Tests compare
// it with a real Apache's.
func (r *Result) Expect(host, target string, https bool) (string, bool) {
	if r.model == nil {
		return "", false
	}
	a := r.model.answer(probe{host: host, target: target, https: https})
	return a.String(), a.known
}

// SameAnswer compares two answers as Expect gives them, as a client
// does: the port aside, escapes' hex without case.
func SameAnswer(a, b string) bool { return sameAnswer(a, b) }
