package casetest

import (
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/redirectd/redirectd/cmd/redirectd/internal/explain"
	"github.com/redirectd/redirectd/internal/plural"
	"github.com/redirectd/redirectd/matcher"
	"github.com/redirectd/redirectd/matcher/rewrite"
)

// caseResult is a case with what it got.
type caseResult struct {
	*testCase
	Got  caseAnswer
	Pass bool
	// Rule names what answered: a rule's "file:line", "no rule", a
	// no-redirect entry or https_redirect. Only for failed cases.
	Rule string
	// Near lists the rules whose path the case matches but whose
	// conditions it does not meet, with why. Only for failed cases.
	Near []string
	// Note explains a failure that the diff alone does not.
	Note string
	// Trace is explain's account of the location phase, when it
	// answered: the locations chosen, the steps that matched, the
	// answer. Only for failed cases.
	Trace []string
}

// judge compares each case with its answer, and names the rule behind
// each failed one.
func judge(cases []testCase, got []caseAnswer, env *testEnv, host string) []caseResult {
	res := make([]caseResult, len(cases))
	var m matcher.Match
	for i := range cases {
		c := &cases[i]
		r := caseResult{testCase: c, Got: got[i]}
		r.Pass = got[i].Err == "" && (c.Want.Forward && got[i].Forward ||
			!c.Want.Forward && !got[i].Forward && c.Want.Status == got[i].Status && c.Want.Location == got[i].Location)
		if !r.Pass {
			r.Rule, r.Near, r.Trace = env.explain(c, host, &m)
			switch {
			case c.Want.Forward && !env.forwarding && got[i].Status == 404:
				r.Note = "the config has no [upstream], so a request no rule answers gets 404, never forwarded; add [upstream] to test forwarding"
			case c.HTTPS && !env.httpsRedirect && slices.ContainsFunc(r.Near, func(n string) bool { return strings.Contains(n, "requires scheme = https;") }):
				r.Note = "an https:// case is sent marked X-Forwarded-Proto: https, which the server believes only with [server] https_redirect on; without it, rules with when.scheme = \"https\" do not answer it"
			}
		}
		res[i] = r
	}
	return res
}

// explain names what answers c, with the rule set the server answered
// from: the same Lookup the server's answer ran, for a request with c's
// scheme and header fields. It also returns the rules whose path c
// matches but whose conditions it does not meet, with why (a case over
// http for an https-only rule), and, when the location phase answered,
// its trace (explain's TraceLines).
func (e *testEnv) explain(c *testCase, host string, m *matcher.Match) (string, []string, []string) {
	if c.Host != "" {
		host = c.Host
	}
	if e.httpsRedirect && !c.HTTPS {
		return "[server] https_redirect (a request not marked https gets a 301 to https)", nil, nil
	}
	path, query, hasQuery := strings.Cut(c.Target, "?")
	var q []byte
	if hasQuery {
		q = []byte(query)
	}
	// The server believes the X-Forwarded-Proto an https:// case is
	// marked with only under https_redirect (engine's conn.https): say
	// what it saw.
	req := caseRequest(c, host, c.HTTPS && e.httpsRedirect)
	// The server's own steps run before the rules; the locations after
	// the rules miss (engine's serverPhase and runPhase).
	phase := explain.Phase(e.set, explain.PhaseRequest{Host: host, Path: path, Query: q, Method: c.Method, HTTPS: req.TLS, Fields: req})
	var trace []string
	if phase != nil {
		file := ""
		if hosts, _ := e.set.Locations().(*rewrite.Hosts); hosts != nil {
			file = hosts.File()
		}
		trace = explain.TraceLines(phase, file)
		if phase.Server {
			return fmt.Sprintf("the [[server_rewrite]] steps of host %q, before any rule", host), nil, trace
		}
	}
	now := time.Now()
	m.Req, m.Now = req, now.UnixNano()
	var near []string
	hit := e.set.Lookup([]byte(host), []byte(path), q, m)
	for _, n := range explain.Near(e.set, host, path, q, req, now) {
		if !hit || n.Rule.Kind == m.Rule().Kind && n.Rule.From == m.Rule().From && n.Rule.Host == m.Rule().Host {
			near = append(near, explain.NearText(&n))
		}
	}
	if hit {
		return explain.RuleText(m.Rule()), near, nil
	}
	if m.BadURI() {
		return fmt.Sprintf("bad path %q, which nginx's $uri refuses (uri = \"nginx\"): 400", path), nil, nil
	}
	miss := "404"
	if e.forwarding {
		miss = "forwarded"
	}
	if phase != nil { // it runs after the rules miss, a no-redirect entry too
		return fmt.Sprintf("no rule matches host %q path %q: the location phase answers", host, path), near, trace
	}
	if r := m.Passed(); r != nil {
		return fmt.Sprintf("%s, a no-redirect entry: %s", explain.RuleText(r), miss), near, nil
	}
	return fmt.Sprintf("no rule matches host %q path %q: %s", host, path, miss), near, nil
}

// caseRequest is a case as the conditions of rules and the server's
// steps read it: the Host field it is sent with (host), its header
// fields and method, and https for an https:// URL (sent marked so).
func caseRequest(c *testCase, host string, https bool) *matcher.FixedRequest {
	r := &matcher.FixedRequest{Verb: c.Method, TLS: https, Fields: []matcher.KeyValue{{Name: "Host", Value: host}}}
	for _, h := range c.Header {
		r.Fields = append(r.Fields, matcher.KeyValue(h))
	}
	return r
}

// writeTestText writes each failure as a diff, then the summary.
func writeTestText(w io.Writer, files []string, res []caseResult) error {
	var b strings.Builder
	for _, r := range res {
		if r.Pass {
			continue
		}
		b.WriteString("FAIL ")
		b.WriteString(r.where())
		b.WriteString(": ")
		b.WriteString(r.Text)
		b.WriteByte('\n')
		b.WriteString(r.diff())
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	return writeSummary(w, files, res)
}

// diff is the indented want/got lines of a failed case, with the rule
// that answered.
func (r *caseResult) diff() string {
	var b strings.Builder
	fmt.Fprintf(&b, "    - want: %s\n    + got:  %s\n      rule: %s\n", r.Want, r.Got, r.Rule)
	for _, n := range r.Near {
		fmt.Fprintf(&b, "      near: %s\n", n)
	}
	for _, l := range r.Trace {
		fmt.Fprintf(&b, "      %s\n", l)
	}
	if r.Note != "" {
		fmt.Fprintf(&b, "      note: %s\n", r.Note)
	}
	return b.String()
}

// writeSummary writes the one-line summary of a run.
func writeSummary(w io.Writer, files []string, res []caseResult) error {
	failed := 0
	for _, r := range res {
		if !r.Pass {
			failed++
		}
	}
	var err error
	if failed == 0 {
		_, err = fmt.Fprintf(w, "ok: %s passed (%s)\n", plural.Count(len(res), "case"), plural.Count(len(files), "case file"))
	} else {
		_, err = fmt.Fprintf(w, "FAIL: %d of %s failed (%s)\n", failed, plural.Count(len(res), "case"), plural.Count(len(files), "case file"))
	}
	return err
}

// The JUnit XML report, in the shape Jenkins, GitLab and GitHub's test
// reporters read: a testsuite per case file, a testcase per case, named
// by its file:line, with a failure holding the diff.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",cdata"`
}

// writeJUnit writes res as a JUnit XML report.
func writeJUnit(w io.Writer, files []string, res []caseResult) error {
	rep := junitSuites{Name: "redirectd test"}
	at := map[string]int{}
	for _, f := range files {
		at[f] = len(rep.Suites)
		rep.Suites = append(rep.Suites, junitSuite{Name: f})
	}
	for _, r := range res {
		s := &rep.Suites[at[r.File]]
		jc := junitCase{Name: r.where(), Classname: r.File}
		if !r.Pass {
			jc.Failure = &junitFailure{Message: fmt.Sprintf("want %s, got %s", r.Want, r.Got), Type: "mismatch",
				Text: r.Text + "\n" + r.diff()}
			s.Failures++
			rep.Failures++
		}
		s.Tests++
		rep.Tests++
		s.Cases = append(s.Cases, jc)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(rep); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
