package engine

import (
	"github.com/redirectd/redirectd/httpparse"
	"github.com/redirectd/redirectd/matcher"
)

// verdict is what answer decided for one request.
type verdict struct {
	// status and outcome are what the metrics and the access log record
	// of an answer the loop wrote.
	status  int
	outcome outcome
	// location (only with an access log) and rule are those of a
	// redirect.
	location []byte
	rule     string
	// closing: the answer says Connection: close although the request
	// did not; linger: the connection closes after a lingering read,
	// since the client may still be sending.
	closing, linger bool
	// upstream: nothing was written; the request goes to the upstream.
	upstream bool
	// challenge: nothing was written; the request is an ACME challenge.
	challenge bool
}

// answer decides what a parsed request gets, in this order: an ACME
// challenge, the https redirect, the host's [[server_rewrite]] steps, a
// rule, the host's locations, the upstream, 404; with rules on nginx's
// $uri, a path nginx refuses gets 400 before the https redirect and any
// rule. A local answer is appended to out;
// closing says whether it ends the connection. With the loop's dry set
// it only decides (h2conn.NeedsBody asks whether a request forwards
// before its body has come): the same decision, without its effects.
func (cs *conn) answer(out []byte, req *httpparse.Request, rules *matcher.Set, date []byte, closing bool) ([]byte, verdict) {
	l := cs.loop
	s := l.srv
	l.setCondReq(cs, req, rules)
	l.phase.target, l.phase.started = nil, nil
	l.match.ForgetURI() // the last request's $uri; this one's may lie where it did
	l.byProto, l.readXFP = false, false
	switch {
	case cs.isChallenge(req):
		return out, verdict{challenge: true}
	case s.opts.HTTPSRedirect && !cs.https(req) && !isAsterisk(req):
		if len(req.Host) == 0 {
			// There is no host to redirect to.
			return appendTextWith(out, 400, cs.fields(), rules.Headers(), "a Host header is needed to redirect to https\n", false, date, connClose),
				verdict{status: 400, outcome: outClientError, closing: true}
		}
		if rules.RefusesURI(req.Path, &l.match) {
			// nginx answers 400 before its server's `return 301`.
			return appendBadURI(out, cs, rules, date)
		}
		return appendHTTPSRedirect(out, req, cs.fields(), rules.Headers(), date, connFieldOf(req, closing)), verdict{status: 301, outcome: outRedirect}
	case serverSteps(rules) && rules.RefusesURI(req.Path, &l.match):
		// nginx answers 400 before its server's rewrite phase too.
		return appendBadURI(out, cs, rules, date)
	case cs.serverPhase(rules, req): // [[server_rewrite]] steps that answer (locations.go)
		return cs.answerPhase(out, req, rules, date, closing)
	case cs.lookup(rules, req): // the one call into the matcher
		m := &l.match
		if fb := m.Fallback(); fb != nil && cs.pickGroup(req) {
			return cs.startFallback(out, req, rules, fb, date) // forwarding.go
		}
		if !l.dry {
			m.Hit()
		}
		if st := m.Status(); !matcher.HasLocation(st) {
			return cs.appendNoLocation(out, req, rules, st, date, closing)
		}
		v := verdict{status: m.Status(), outcome: outRedirect, rule: l.ruleSource(m)}
		if l.alog != nil {
			l.loc = cs.appendLocation(l.loc[:0], m, req)
			v.location = l.loc
		}
		return cs.appendRedirect(out, m, req, ruleHeaders(m, rules), date, connFieldOf(req, closing)), v
	case l.match.BadURI():
		return appendBadURI(out, cs, rules, date)
	case cs.runPhase(rules, req): // the location phase (locations.go)
		return cs.answerPhase(out, req, rules, date, closing)
	case cs.pickGroup(req):
		l.miss(req)
		if max := l.group.MaxRequestBodyBytes; max > 0 && req.ContentLength > max {
			return appendTextWith(out, 413, cs.fields(), rules.Headers(), "request body too large\n", false, date, connClose),
				verdict{status: 413, outcome: outClientError, closing: true, linger: true}
		}
		return out, verdict{upstream: true}
	}
	l.miss(req)
	return appendTextVary(out, 404, l.match.Vary(), cs.fields(), rules.Headers(), "not found\n", isHead(req.Method), date, connFieldOf(req, closing)), verdict{status: 404, outcome: outMiss}
}

// appendBadURI answers a path nginx answers 400 (an invalid escape, %00,
// a ".." above the root) where the rules compare nginx's $uri: as nginx,
// before any rule or upstream sees it, and the connection closes.
func appendBadURI(out []byte, cs *conn, rules *matcher.Set, date []byte) ([]byte, verdict) {
	return appendTextWith(out, 400, cs.fields(), rules.Headers(), "bad request\n", false, date, connClose),
		verdict{status: 400, outcome: outClientError, closing: true}
}

// pickGroup chooses the upstream group of req into the loop's group, and
// reports whether there is one: the routes of its host and path, else
// the default group (upstream_routes.go). The path is the one the
// lookup just compared with the rules (lookup runs first), so that a
// prefix matches "/%62log/" as a rule's "/blog/" does.
func (cs *conn) pickGroup(req *httpparse.Request) bool {
	l := cs.loop
	l.group = l.srv.routes.Load().pick(req.Host, l.match.Path())
	return l.group != nil
}

// lookup finds the rule for req as of the coarse clock, so that rules with
// a time window start and stop without a reload. A shadow rule that would
// have answered is counted, and noted for the access log line of whatever
// the request does get (a redirect, a 404, a forward).
func (cs *conn) lookup(rules *matcher.Set, req *httpparse.Request) bool {
	l := cs.loop
	m := &l.match
	m.Now = l.srv.clock.now()
	ok := rules.Lookup(req.Host, req.Path, req.Query, m)
	if l.dry {
		return ok
	}
	if m.OnePass() {
		l.srv.m.onePass.Inc()
	}
	if m.PCREAbandoned() {
		l.srv.m.pcreAbandoned.Inc()
	}
	if m.Shadowed() {
		m.ShadowHit()
		if l.alog != nil {
			l.ri.shadowRule = m.ShadowSource()
			l.ri.shadowLoc = m.AppendShadowLocation(l.ri.shadowLoc[:0], req.Query)
		}
	}
	return ok
}

// ruleSource is the matched rule's "file:line" for the access log, and
// empty without one: only the log reads a verdict's rule, and for a rule
// of a map file the matcher formats the string on each call, a tenth of
// the CPU of answering a pipelined exact hit.
func (l *loop) ruleSource(m *matcher.Match) string {
	if l.alog == nil {
		return ""
	}
	return m.Source()
}

// record counts an answer the loop wrote, and logs it with its bytes.
func (cs *conn) record(v *verdict, answer []byte) {
	cs.loop.srv.m.answer(v.outcome, v.status)
	cs.logAnswer(v, answer)
}

// recordIn is record for serve, which counts a read's answers in t.
func (cs *conn) recordIn(t *answerTally, v *verdict, answer []byte) {
	t.add(cs.loop.srv.m.answerCounter(v.outcome, v.status))
	cs.logAnswer(v, answer)
}

// logAnswer writes the access log line of an answer the loop wrote.
func (cs *conn) logAnswer(v *verdict, answer []byte) {
	l := cs.loop
	if l.alog != nil {
		l.log(cs.ip, &l.ri, logged{status: v.status, bytes: int64(len(answer)), bodyBytes: bodyBytes(answer, headLen(answer)),
			location: v.location, rule: v.rule})
	}
}

// isAsterisk reports whether req's target is "*" (OPTIONS * asks about
// the server, not a resource): no redirect applies to it.
func isAsterisk(req *httpparse.Request) bool {
	return len(req.Target) == 1 && req.Target[0] == '*'
}
