package explain

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/redirectd/redirectd/httpparse"
	"github.com/redirectd/redirectd/matcher"
	"github.com/redirectd/redirectd/matcher/rewrite"
)

// PhaseRequest is a request as the location phase reads it.
type PhaseRequest struct {
	Host   string // the Host field, as sent (port and case as they come)
	Path   string
	Query  []byte // nil: no '?'
	Method string // "" is GET
	HTTPS  bool
	Fields matcher.Request
}

// Phase runs the location phase ([[server_rewrite]] and [[location]])
// of set for r, traced, as the engine runs it (engine's conn.program):
// nil when set has no Program for r's host. The port ($server_port) is
// the Host field's, else 443 or 80 by the scheme.
func Phase(set *matcher.Set, r PhaseRequest) *rewrite.Trace {
	hosts, _ := set.Locations().(*rewrite.Hosts)
	if hosts == nil {
		return nil
	}
	name, port := httpparse.SplitHostPort(r.Host)
	name = strings.ToLower(strings.TrimSuffix(name, "."))
	if port == "" {
		port = "80"
		if r.HTTPS {
			port = "443"
		}
	}
	var s rewrite.Scratch
	p := hosts.ChooseOn(&s, []byte(name), []byte(port), r.HTTPS)
	if p == nil {
		return nil
	}
	target := r.Path
	if r.Query != nil {
		target += "?" + string(r.Query)
	}
	method := r.Method
	if method == "" {
		method = "GET"
	}
	fields := r.Fields
	if fields == nil {
		fields = &matcher.FixedRequest{}
	}
	req := &rewrite.Request{Host: []byte(name), Target: []byte(target), Path: []byte(r.Path), Query: r.Query,
		Method: []byte(method), Port: []byte(port), HTTPS: r.HTTPS, Fields: fields, KeepSlashes: set.URI().KeepSlashes}
	return p.Explain(req)
}

// TraceLines writes t as explain shows it, one line each, with the
// config file's name (file) before each line number: the locations
// chosen and the steps that matched, then the answer.
func TraceLines(t *rewrite.Trace, file string) []string {
	at := func(line int) string {
		if file == "" {
			return "line " + strconv.Itoa(line)
		}
		return file + ":" + strconv.Itoa(line)
	}
	var out []string
	for _, s := range t.Steps {
		switch {
		case s.Text == "" && s.Location == "":
			out = append(out, fmt.Sprintf("chosen:   no location matches %s", s.URI))
		case s.Text == "":
			out = append(out, fmt.Sprintf("chosen:   %s location %s, for %s", at(s.Line), s.Location, s.URI))
		case s.NotHeld:
			out = append(out, fmt.Sprintf("step:     %s %s does not hold: %s is %q", at(s.Line), s.Text, ifVariable(s.Text), s.Value))
		case s.Changed:
			out = append(out, fmt.Sprintf("step:     %s %s; the URI is now %s", at(s.Line), s.Text, s.URI))
		default:
			out = append(out, fmt.Sprintf("step:     %s %s", at(s.Line), s.Text))
		}
	}
	return append(out, answerLines(t, at)...)
}

// ifVariable is the variable an if's text tests: "$host" of "if ($host
// = x)".
func ifVariable(text string) string {
	f := strings.Fields(strings.TrimPrefix(strings.TrimPrefix(text, "if"), " ("))
	if len(f) == 0 {
		return "its variable"
	}
	return strings.TrimSuffix(strings.TrimPrefix(f[0], "("), ")")
}

// answerLines writes what the phase answered.
func answerLines(t *rewrite.Trace, at func(int) string) []string {
	r := &t.Result
	var out []string
	if r.Where != "" {
		out = append(out, fmt.Sprintf("decided:  in location %s (%s)", r.Where, at(t.WhereLine)))
	} else if t.Server {
		out = append(out, "decided:  by the server's own steps, before the flat rules")
	}
	switch r.Action {
	case rewrite.Redirect:
		out = append(out, fmt.Sprintf("status:   %d", r.Status), fmt.Sprintf("location: %s", r.Location))
	case rewrite.Answer:
		s := fmt.Sprintf("status:   %d (answered here", r.Status)
		if r.Status == 500 && r.Body == nil && len(t.Steps) > 10 {
			s += ": the URI changed more than 10 times, as nginx refuses"
		}
		out = append(out, s+")")
		if r.Body != nil {
			out = append(out, fmt.Sprintf("body:     %q", r.Body))
		}
	case rewrite.Close:
		out = append(out, "status:   444 (the connection is closed with no answer)")
	case rewrite.Forward:
		group := "the upstream group the [[route]]s pick, else [upstream] (404 without one)"
		if r.Pass {
			group = "the default [upstream]"
			if r.Upstream != "" {
				group = fmt.Sprintf("upstream group %q", r.Upstream)
			}
		}
		out = append(out, fmt.Sprintf("forward:  to %s, with the target %s", group, r.URI))
	}
	return out
}

// explainPhase writes the location phase's trace for the request, and
// reports whether there was one. server: only when the server's own
// steps answered (they run before the flat rules).
func explainPhase(w io.Writer, set *matcher.Set, r PhaseRequest, server bool) bool {
	t := Phase(set, r)
	if t == nil || server && !t.Server {
		return false
	}
	if server {
		fmt.Fprintf(w, "phase:    the [[server_rewrite]] steps of host %q answer, before any rule\n", r.Host)
	} else {
		fmt.Fprintf(w, "phase:    no rule matches host %q path %q; the location phase answers\n", r.Host, r.Path)
	}
	file := ""
	if hosts, _ := set.Locations().(*rewrite.Hosts); hosts != nil {
		file = hosts.File()
	}
	for _, l := range TraceLines(t, file) {
		fmt.Fprintln(w, l)
	}
	return true
}
