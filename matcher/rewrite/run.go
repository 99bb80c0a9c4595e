package rewrite

// outcome is how a list of steps ended.
type outcome uint8

const (
	oNext  outcome = iota // ran to its end
	oLast                 // rewrite ... last: choose the location again
	oBreak                // rewrite ... break, or break: stop here
	oDone                 // answered: the Result is set
)

// maxURIChanges is nginx's NGX_HTTP_MAX_URI_CHANGES + 1, the count
// ngx_http_core_post_rewrite_phase takes one from per change and answers
// 500 at zero.
const maxURIChanges = 11

// Run processes req as nginx would and sets res. It allocates nothing
// once s has grown.
func (p *Program) Run(s *Scratch, req *Request, res *Result) {
	if !p.RunServer(s, req, res) {
		p.RunLocations(s, req, res)
	}
}

// ServerSteps reports whether p has steps of the server's own.
func (p *Program) ServerSteps() bool { return len(p.server) > 0 }

// RunServer is the first half of Run: it starts req and runs the
// server's steps, reporting whether they answered (res is set then).
// An answer that the server's error_page sends elsewhere is not one:
// RunLocations goes on from there.
func (p *Program) RunServer(s *Scratch, req *Request, res *Result) bool {
	*res = Result{}
	s.begin(p, req)
	return len(p.server) > 0 && p.runServer(s, req, res)
}

// runServer runs the server's steps, and reports whether they answered.
func (p *Program) runServer(s *Scratch, req *Request, res *Result) bool {
	if p.runSteps(s, req, p.server, res) != oDone {
		return false
	}
	if ep := s.pageFor(p.pages, res); ep != nil {
		return !p.sendErrorPage(s, req, ep, res, &s.named)
	}
	s.finish(res)
	return true
}

// RunLocations is the rest of Run, after RunServer with the same s, req
// and res: the location is chosen and its steps run.
func (p *Program) RunLocations(s *Scratch, req *Request, res *Result) {
	p.runLocations(s, req, res, s.named, maxURIChanges)
}

// Intercepts reports whether an upstream answer of status to a request
// that Run forwarded with res.Intercept goes to an error page.
func (p *Program) Intercepts(s *Scratch, status int) bool {
	if s.fwd == nil || !s.fwd.intercept || s.errorPage {
		return false
	}
	for i := range s.fwd.pages {
		if s.fwd.pages[i].status == status {
			return true
		}
	}
	return false
}

// InterceptStatus returns the i-th upstream status (from 0) that a
// request Run forwarded with res.Intercept sends to an error page, and
// false past the last.
func (p *Program) InterceptStatus(s *Scratch, i int) (int, bool) {
	if s.fwd == nil || !s.fwd.intercept || s.errorPage || i >= len(s.fwd.pages) {
		return 0, false
	}
	return s.fwd.pages[i].status, true
}

// RunIntercepted answers a request that Run forwarded with res.Intercept
// (s and req as Run left them) and whose upstream answered status, as
// nginx's proxy_intercept_errors: the location's error page for status
// is followed as for an error of its own. It reports false, res as it
// was, when no error page names status.
func (p *Program) RunIntercepted(s *Scratch, req *Request, res *Result, status int) bool {
	if !p.Intercepts(s, status) {
		return false
	}
	loc := s.fwd
	s.fwd = nil
	*res = Result{Action: Answer, Status: status, Where: loc.name}
	ep := s.pageFor(loc.pages, res)
	var named *location
	if !p.sendErrorPage(s, req, ep, res, &named) {
		s.finish(res)
		return true
	}
	if named == nil && p.runServer(s, req, res) {
		return true
	}
	p.runLocations(s, req, res, named, maxURIChanges-1)
	return true
}

// runLocations chooses the location (or takes named) and runs its
// steps, with changes URI changes left.
func (p *Program) runLocations(s *Scratch, req *Request, res *Result, named *location, changes int) {
	for {
		s.changed, s.validLoc = false, true
		loc := named
		found := rcDeclined
		if named == nil {
			found = p.root.find(s, s.bytes(s.uri), &loc)
		}
		if s.trace != nil {
			s.trace.chose(s, loc)
		}
		// nginx's internal: only a request a rewrite, error page or
		// try_files changed may use it (r->internal); 404 before the
		// auto-redirect, which an error page may catch.
		denied := loc != nil && loc.internal && named == nil && !s.rewritten
		if found == rcDone && !denied {
			s.autoRedirect(loc, res)
			return
		}
		named = nil
		res.Where = ""
		if loc != nil {
			res.Where = loc.name
			done := denied
			if denied {
				*res = Result{Action: Answer, Status: 404, Where: loc.name}
			} else {
				done = p.runSteps(s, req, loc.steps, res) == oDone
			}
			if !done && !s.changed && loc.try != nil {
				// try_files finds no file (redirectd has none): its
				// fallback answers, or is a URI change as below.
				if done = p.runTryFiles(s, req, loc, res, &named); !done {
					if changes--; changes == 0 {
						*res = Result{Action: Answer, Status: 500, Where: res.Where}
						return
					}
					if named == nil && p.runServer(s, req, res) {
						return
					}
					continue
				}
			}
			if done {
				var ep *errorPage
				if len(loc.pages) > 0 { // no call for most locations
					ep = s.pageFor(loc.pages, res)
				}
				if ep == nil || !p.sendErrorPage(s, req, ep, res, &named) {
					s.finish(res)
					return
				}
				// An error page is a URI change: a named location's
				// steps run next, or the server's and the location
				// chosen anew.
				if changes--; changes == 0 {
					*res = Result{Action: Answer, Status: 500, Where: res.Where}
					return
				}
				if named == nil && p.runServer(s, req, res) {
					return
				}
				continue
			}
		}
		if !s.changed {
			s.forward(req, loc, res)
			s.finish(res)
			return
		}
		changes--
		if changes == 0 {
			*res = Result{Action: Answer, Status: 500, Where: res.Where}
			return
		}
	}
}

// runSteps runs steps in order.
func (p *Program) runSteps(s *Scratch, req *Request, steps []step, res *Result) outcome {
	for i := range steps {
		st := &steps[i]
		var o outcome
		switch st.kind {
		case stRewrite:
			o = s.rewrite(req, st, res)
		case stReturn:
			s.ret(req, st, res)
			o = oDone
		case stSet:
			s.prepare(req, st.value.parts)
			start := len(s.arena)
			s.arena = s.appendScript(s.arena, req, &st.value, false)
			if st.slot == slotArgs {
				s.args = span{start, len(s.arena) - start}
			} else {
				s.vars[st.slot] = span{start, len(s.arena) - start}
			}
		case stBreak:
			if s.changed {
				s.validLoc, s.changed = false, false
			}
			o = oBreak
		case stIf:
			if s.holds(req, &st.cond) {
				if s.trace != nil {
					s.trace.step(s, st, res)
				}
				o = p.runSteps(s, req, st.body, res)
			} else if s.trace != nil {
				s.trace.notHeld(s, req, st)
			}
		}
		if s.trace != nil && st.kind != stIf {
			s.trace.step(s, st, res)
		}
		if o != oNext {
			return o
		}
	}
	return oNext
}

// autoRedirect answers a request for a forwarding location's path
// without its '/' with a 301 to the path, as nginx's NGX_DONE.
func (s *Scratch) autoRedirect(loc *location, res *Result) {
	s.buf = append(s.buf[:0], loc.path...)
	if args := s.bytes(s.args); len(args) > 0 {
		s.buf = append(s.buf, '?')
		s.buf = append(s.buf, args...)
	}
	s.out = appendLocationSafe(s.out[:0], s.buf)
	*res = Result{Action: Redirect, Status: 301, Location: s.out, Where: loc.name}
}
