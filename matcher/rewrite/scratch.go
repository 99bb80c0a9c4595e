package rewrite

import (
	"bytes"

	"github.com/redirectd/redirectd/matcher"
)

// span is a value held in Scratch.arena; n < 0 is a variable not set.
type span struct{ off, n int }

// Scratch is one event loop's working memory for Run. The zero value is
// ready; it grows to the largest request seen and is then reused. Not
// safe for concurrent use.
type Scratch struct {
	re matcher.Scratch
	// tmp receives a regex's captures; caps holds the last successful
	// ones as offsets into arena, ncaps groups of them (0: none yet).
	tmp, caps []int
	ncaps     int
	// arena holds every value of the request: its $uri and $args, the
	// subjects of regexes, the values of set.
	arena []byte
	vars  []span
	uri   span
	args  span
	// buf builds a value before it goes to arena; out is Result's;
	// low is a map's key in lower case.
	buf, out, low []byte
	// match is the map index's (mapindex.go).
	match matcher.Match
	// prog is the Program being run, for its maps.
	prog *Program
	// quoted is nginx's quoted_uri || plus_in_uri: the path as sent held
	// a '%' or a '+'.
	quoted bool
	// rewritten is !valid_unparsed_uri: a rewrite changed the URI.
	// validLoc is valid_location, which rewrite ... break clears.
	// changed is uri_changed: the location is chosen again.
	rewritten, validLoc, changed bool
	// trace records the run for Program.Explain (trace.go); nil on
	// the hot path.
	trace *tracer
	// errorPage is nginx's r->error_page: an error page was followed,
	// and no other is. errStatus is r->err_status for what answers
	// after it: the status a body or a forward is sent with (0: its
	// own).
	errorPage bool
	errStatus int
	// asGET: an error page's internal redirect made the method GET.
	asGET bool
	// named is the named location an error page of the server's steps
	// sends the request to, for RunLocations.
	named *location
	// fwd is the location the request was forwarded from, for
	// RunIntercepted.
	fwd *location
	// schemeRead: the run read $scheme (SchemeRead); xfpRead, the
	// X-Forwarded-Proto field (ForwardedProtoRead).
	schemeRead, xfpRead bool
	// chosen is the last server choice (Hosts.ChooseOn).
	chosen choice
	// hostRe is the regex server name Hosts.Choose chose by; begin
	// runs it again on $host for its captures.
	hostRe *rx
}

// bytes returns the value sp holds.
func (s *Scratch) bytes(sp span) []byte {
	if sp.n <= 0 {
		return nil
	}
	return s.arena[sp.off : sp.off+sp.n]
}

// keep copies b into arena and returns where.
func (s *Scratch) keep(b []byte) span {
	off := len(s.arena)
	s.arena = append(s.arena, b...)
	return span{off, len(b)}
}

// begin readies s for a request of p.
func (s *Scratch) begin(p *Program, req *Request) {
	s.arena = s.arena[:0]
	s.prog = p
	s.ncaps = 0
	if n := 2 * (p.maxCaps + 1); len(s.tmp) < n {
		s.tmp = make([]int, n)
		s.caps = make([]int, n)
	}
	if len(s.vars) < p.nvars {
		s.vars = make([]span, p.nvars)
	}
	for i := range s.vars[:p.nvars] {
		s.vars[i] = span{0, -1}
	}
	off := len(s.arena)
	if req.URI != nil {
		s.arena = append(s.arena, req.URI...) // built once per request
		s.quoted = bytes.IndexByte(req.Path, '%') >= 0 || bytes.IndexByte(req.Path, '+') >= 0
	} else if u, ok, quoted := matcher.AppendNginxURIQuoted(s.arena, req.Path, req.KeepSlashes); ok {
		s.arena, s.quoted = u, quoted
	} else {
		// A path nginx answers 400 (the engine does so first under
		// uri = "nginx"): decoded as the flat rules' path = "decoded".
		s.arena, s.quoted = matcher.AppendDecodedPath(s.arena[:off], req.Path), quoted
	}
	s.uri = span{off, len(s.arena) - off}
	s.args = s.keep(req.Query)
	s.rewritten, s.validLoc, s.changed, s.schemeRead, s.xfpRead = false, true, false, false, false
	s.errorPage, s.errStatus, s.named, s.fwd, s.asGET = false, 0, nil, nil, false
	if re := s.hostRe; re != nil {
		s.hostRe = nil
		host := s.keep(req.Host)
		s.matchRegex(re, s.bytes(host))
	}
	s.re.ResetSteps()
}

// matchRegex runs re on subject, which must be in arena; on a match the
// captures become the request's ($1..$9, named ones) and it reports
// true.
func (s *Scratch) matchRegex(re *rx, subject []byte) bool {
	n := 2 * (re.numCaps() + 1)
	caps := s.tmp[:n]
	if !re.match(&s.re, subject, caps) {
		return false
	}
	base := s.offsetOf(subject)
	for i, c := range caps {
		if c >= 0 {
			c += base
		}
		s.caps[i] = c
	}
	s.ncaps = n / 2
	for i, slot := range re.slots {
		switch {
		case slot < 0:
		case s.caps[2*i] < 0:
			s.vars[slot] = span{0, 0} // a group that took no part is empty
		default:
			s.vars[slot] = span{s.caps[2*i], s.caps[2*i+1] - s.caps[2*i]}
		}
	}
	return true
}

// matchedWhole records a match over subject of a regex without groups,
// as matchRegex would, without running it: such a match leaves the
// request one group, group 0, which no value reads (nginx has no $0),
// so its bounds are subject's.
func (s *Scratch) matchedWhole(subject []byte) {
	base := s.offsetOf(subject)
	s.caps[0], s.caps[1], s.ncaps = base, base+len(subject), 1
}

// offsetOf is the offset in arena where b starts (b is in arena).
func (s *Scratch) offsetOf(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	return cap(s.arena) - cap(b)
}

// capture returns group i of the last successful match, nil when there
// is none.
func (s *Scratch) capture(i int) []byte {
	if i >= s.ncaps || s.caps[2*i] < 0 {
		return nil
	}
	return s.arena[s.caps[2*i]:s.caps[2*i+1]]
}

// matchHost runs a server name's regex on host, before a Program's
// Scratch is sized for it.
func (s *Scratch) matchHost(re *rx, host []byte) bool {
	if n := 2 * (re.numCaps() + 1); len(s.tmp) < n {
		s.tmp, s.caps = make([]int, n), make([]int, n)
	}
	s.re.ResetSteps()
	return re.match(&s.re, host, s.tmp[:2*(re.numCaps()+1)])
}

// SchemeRead reports whether the last run on s read $scheme (a step's
// condition, a value, a map's source): its answer depends on
// Request.HTTPS, and a server that took the scheme from a proxy's
// header says the answer varies on that header.
func (s *Scratch) SchemeRead() bool { return s.schemeRead }

// ForwardedProtoRead reports whether the last run on s read the
// X-Forwarded-Proto field itself ($http_x_forwarded_proto in a step's
// condition, a value, a map's source): its answer depends on that
// field as the client sent it, whatever the server makes of the field,
// so a cache must keep one answer per value (Vary).
func (s *Scratch) ForwardedProtoRead() bool { return s.xfpRead }
