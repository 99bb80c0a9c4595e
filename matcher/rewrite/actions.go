package rewrite

// rewrite runs one rewrite step: on a match the URI changes, or a
// redirect answers.
func (s *Scratch) rewrite(req *Request, st *step, res *Result) outcome {
	if !s.matchRegex(st.re, s.bytes(s.uri)) {
		return oNext
	}
	if s.trace != nil {
		s.trace.matched = true
	}
	if st.readsMap {
		s.prepare(req, st.uri.parts)
		s.prepare(req, st.args.parts)
	}
	if st.redirect {
		out := s.appendScriptLocation(s.out[:0], req, &st.uri, true)
		if st.hasArgs {
			out = append(out, '?')
			out = s.appendScriptLocation(out, req, &st.args, true)
		}
		if args := s.bytes(s.args); st.addArgs && len(args) > 0 {
			if st.hasArgs {
				out = append(out, '&')
			} else {
				out = append(out, '?')
			}
			out = appendLocationSafe(out, args)
		}
		s.out = out
		res.redirect(st.code, out)
		return oDone
	}
	start := len(s.arena)
	s.arena = s.appendScript(s.arena, req, &st.uri, false)
	uri := span{start, len(s.arena) - start}
	if st.hasArgs {
		a := len(s.arena)
		s.arena = s.appendScript(s.arena, req, &st.args, true)
		if st.addArgs && s.args.n > 0 {
			s.arena = append(s.arena, '&')
			s.arena = append(s.arena, s.bytes(s.args)...)
		}
		s.args = span{a, len(s.arena) - a}
	} else if !st.addArgs {
		s.args = span{} // a trailing '?' drops the query
	}
	s.uri, s.rewritten = uri, true
	switch st.flag {
	case flagBreak:
		s.validLoc, s.changed = false, false
		return oBreak
	case flagLast:
		s.changed = true
		return oLast
	}
	s.changed = true
	return oNext
}

// isRedirectStatus reports the statuses whose return argument is a
// Location, as ngx_http_send_response has them.
func isRedirectStatus(code int) bool {
	return code == 301 || code == 302 || code == 303 || code == 307 || code == 308
}

// ret runs a return step.
func (s *Scratch) ret(req *Request, st *step, res *Result) {
	where := res.Where
	s.prepare(req, st.value.parts)
	switch {
	case st.code == 444:
		*res = Result{Action: Close, Status: 444}
	case isRedirectStatus(st.code) && st.hasValue:
		// return copies captures as they are, where rewrite ...
		// redirect escapes them: "return 301 /to/$1" of /ret/a%20b
		// sends "/to/a b" (then made Location-safe), as nginx.
		s.out = s.appendScriptLocation(s.out[:0], req, &st.value, false)
		*res = Result{Action: Redirect, Status: st.code, Location: s.out}
	default:
		*res = Result{Action: Answer, Status: st.code}
		if st.hasValue {
			s.out = s.appendScript(s.out[:0], req, &st.value, false)
			res.Body = s.out
		}
	}
	res.Where = where
}

// forward sets res to forward the request as nginx's proxy module
// builds the upstream request line's URI: the target as sent while no
// rewrite changed the URI and the location has no URI part; else the
// URI part in place of the location's path (unless rewrite ... break
// ran), then the rest of $uri, escaped when the path as sent held an
// escape or a rewrite made it, then '?' and $args.
func (s *Scratch) forward(req *Request, loc *location, res *Result) {
	res.Action, res.Status, res.Location, res.Body = Forward, 0, nil, nil
	withURI := loc != nil && loc.hasURI && s.validLoc
	if loc != nil {
		res.Pass, res.Upstream = loc.pass, loc.upstream
		res.Intercept = loc.intercept && !s.errorPage
		s.fwd = loc
	}
	if !s.rewritten && !withURI {
		s.out = append(s.out[:0], req.Target...)
		res.URI = s.out
		return
	}
	uri := s.bytes(s.uri)
	out := s.out[:0]
	if withURI {
		out = append(out, loc.uri...)
		uri = uri[min(len(loc.path), len(uri)):]
	}
	if s.quoted || s.rewritten {
		out = appendEscaped(out, uri, &escapeURI)
	} else {
		out = append(out, uri...)
	}
	if args := s.bytes(s.args); len(args) > 0 {
		out = append(out, '?')
		out = append(out, args...)
	}
	s.out = out
	res.URI = out
}
