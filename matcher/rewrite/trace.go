package rewrite

import (
	"strconv"
	"strings"
)

// Trace is Program.Explain's account of one run, for explain and test:
// each location chosen and each step that matched, in order, and the
// answer.
type Trace struct {
	// Steps are what ran: the server's steps that matched, then each
	// choice of a location and the steps of it that matched.
	Steps []TraceStep
	// Server says the server's own steps answered, before any location
	// (and before the flat rules, which then do not run).
	Server bool
	// Result is Run's answer, its slices copied.
	Result Result
	// WhereLine is the config line of the location Result.Where names,
	// 0 when none was chosen.
	WhereLine int
}

// TraceStep is one line of a Trace.
type TraceStep struct {
	// Line is the config line of the step or location.
	Line int
	// Location is set for the choice of a location: the one chosen as
	// nginx writes it, "" when no location matches the URI.
	Location string
	// Text is the step as written ("rewrite ^/a /b last", "if ($host =
	// x)"), "" for the choice of a location.
	Text string
	// URI is $uri (and "?" and $args when there are any) after the step,
	// or the URI a location was chosen for.
	URI string
	// Changed says the step changed the URI.
	Changed bool
	// NotHeld is set for an if whose condition did not hold (its steps
	// did not run); Value is then its variable's value.
	NotHeld bool
	Value   string
}

// tracer is what a traced run records into; Scratch.trace points to it.
type tracer struct {
	t *Trace
	// matched says the rewrite being run matched (set by rewrite).
	matched bool
	// last is the URI after the last step recorded, to tell a change.
	last  string
	where *location
}

// uriNow is the URI as a trace shows it: $uri, then "?" and $args.
func (s *Scratch) uriNow() string {
	u := string(s.bytes(s.uri))
	if a := s.bytes(s.args); len(a) > 0 {
		u += "?" + string(a)
	}
	return u
}

// chose records the choice of loc (nil: none) for the current URI.
func (tr *tracer) chose(s *Scratch, loc *location) {
	ts := TraceStep{URI: s.uriNow()}
	tr.where = loc
	if loc != nil {
		ts.Location, ts.Line = loc.name, loc.line
	}
	tr.last = ts.URI
	tr.t.Steps = append(tr.t.Steps, ts)
}

// step records st after it ran, unless it is a rewrite that did not
// match.
func (tr *tracer) step(s *Scratch, st *step, res *Result) {
	if st.kind == stRewrite && !tr.matched {
		return
	}
	tr.matched = false
	ts := TraceStep{Line: st.line, Text: st.text, URI: s.uriNow()}
	ts.Changed = ts.URI != tr.last
	tr.last = ts.URI
	tr.t.Steps = append(tr.t.Steps, ts)
}

// notHeld records an if whose condition did not hold, with its
// variable's value, to say why.
func (tr *tracer) notHeld(s *Scratch, req *Request, st *step) {
	v := string(s.appendVar(nil, req, &st.cond.left))
	tr.t.Steps = append(tr.t.Steps, TraceStep{Line: st.line, Text: st.text, URI: s.uriNow(), NotHeld: true, Value: v})
}

// Explain runs req as Run does, recording what it does. It allocates
// freely: it is for explain and test, off the hot path.
func (p *Program) Explain(req *Request) *Trace {
	t := &Trace{}
	s := &Scratch{}
	tr := &tracer{t: t}
	s.trace = tr
	var res Result
	s.begin(p, req)
	tr.last = s.uriNow()
	if p.RunServer(s, req, &res) {
		t.Server = true
	} else {
		p.RunLocations(s, req, &res)
	}
	t.Result = res
	t.Result.Location = clone(res.Location)
	t.Result.Body = clone(res.Body)
	t.Result.URI = clone(res.URI)
	if tr.where != nil && tr.where.name == res.Where {
		t.WhereLine = tr.where.line
	}
	return t
}

func clone(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte{}, b...)
}

// directiveText writes a directive's words as nginx's config has them,
// quoting the quoted ones.
func directiveText(args []token) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		if a.quoted {
			b.WriteString(strconv.Quote(a.word))
		} else {
			b.WriteString(a.word)
		}
	}
	return b.String()
}

// File is the config file the Hosts were compiled from, as SetFile
// gave it.
func (h *Hosts) File() string {
	if h == nil {
		return ""
	}
	return h.file
}

// SetFile names the config file the specs were read from, for explain
// and List to write file:line.
func (h *Hosts) SetFile(file string) {
	if h != nil {
		h.file = file
	}
}
