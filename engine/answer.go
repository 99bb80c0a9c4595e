package engine

import (
	"bytes"

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
// challenge, the https redirect, a rule, the upstream, 404. A local answer is appended to out;
// closing says whether it ends the connection.
func (cs *conn) answer(out []byte, req *httpparse.Request, rules *matcher.Set, date []byte, closing bool) ([]byte, verdict) {
	l := cs.loop
	s := l.srv
	l.setCondReq(cs, req, rules)
	switch {
	case cs.isChallenge(req):
		return out, verdict{challenge: true}
	case s.opts.HTTPSRedirect && !cs.https(req) && !isAsterisk(req):
		if len(req.Host) == 0 {
			// There is no host to redirect to.
			return appendTextWith(out, 400, cs.fields(), rules.Headers(), "a Host header is needed to redirect to https\n", false, date, connClose),
				verdict{status: 400, outcome: outClientError, closing: true}
		}
		return appendHTTPSRedirect(out, req, cs.fields(), rules.Headers(), date, connFieldOf(req, closing)), verdict{status: 301, outcome: outRedirect}
	case cs.lookup(rules, req): // shadow.go
		m := &l.match
		if fb := m.Fallback(); fb != nil && s.up != nil {
			return cs.startFallback(out, req, rules, fb, date) // fallback.go
		}
		m.Hit()
		if st := m.Status(); !matcher.HasLocation(st) {
			return cs.appendNoLocation(out, req, rules, st, date, closing)
		}
		v := verdict{status: m.Status(), outcome: outRedirect, rule: m.Source()}
		if l.alog != nil {
			l.loc = cs.appendLocation(l.loc[:0], m, req)
			v.location = l.loc
		}
		return cs.appendRedirect(out, m, req, cs.fields(), ruleHeaders(m, rules), date, connFieldOf(req, closing)), v
	case s.up != nil:
		l.miss(req)
		if max := s.up.MaxRequestBodyBytes; max > 0 && req.ContentLength > max {
			return appendTextWith(out, 413, cs.fields(), rules.Headers(), "request body too large\n", false, date, connClose),
				verdict{status: 413, outcome: outClientError, closing: true, linger: true}
		}
		return out, verdict{upstream: true}
	}
	l.miss(req)
	return appendTextVary(out, 404, l.match.Vary(), cs.fields(), rules.Headers(), "not found\n", isHead(req.Method), date, connFieldOf(req, closing)), verdict{status: 404, outcome: outMiss}
}

// record counts an answer the loop wrote, and logs it with its bytes.
func (cs *conn) record(v *verdict, answer []byte) {
	l := cs.loop
	l.srv.m.answer(v.outcome, v.status)
	if l.alog != nil {
		l.log(cs.ip, &l.ri, logged{status: v.status, bytes: int64(len(answer)), bodyBytes: bodyBytes(answer, headLen(answer)),
			location: v.location, rule: v.rule})
	}
}

// https reports whether req came over https: through the TLS listener, or
// marked so by a TLS terminator in front that https_redirect trusts (a
// trusted proxy's X-Forwarded-Proto, clientaddr.go).
func (cs *conn) https(req *httpparse.Request) bool {
	return cs.tls || cs.loop.srv.opts.HTTPSRedirect && cs.forwardedHTTPS(req)
}

// fields are the header lines every answer on the connection carries:
// Strict-Transport-Security on the TLS port when hsts is set; on a plain
// connection whose X-Forwarded-Proto https_redirect believes, a Vary on
// it, since every answer there (the redirect to https, or what the rules
// and the upstream answer) depends on it. Without it a cache between the
// TLS terminator and redirectd would replay the 301 to https visitors,
// who would then loop.
func (cs *conn) fields() string {
	switch {
	case cs.tls:
		return cs.loop.srv.tls.hsts
	case cs.loop.srv.opts.HTTPSRedirect && cs.proxy.xfp:
		return varyForwardedProto
	}
	return ""
}

const varyForwardedProto = "Vary: X-Forwarded-Proto\r\n"

// isAsterisk reports whether req's target is "*" (OPTIONS * asks about
// the server, not a resource): no redirect applies to it.
func isAsterisk(req *httpparse.Request) bool {
	return len(req.Target) == 1 && req.Target[0] == '*'
}

// forwardedHTTPS reports whether a TLS terminator in front marked the
// request as received over https. Proxies append to X-Forwarded-Proto, so
// its first value is the client's.
func forwardedHTTPS(req *httpparse.Request) bool {
	v, _, _ := bytes.Cut(req.Header([]byte("x-forwarded-proto")), []byte{','})
	return bytes.EqualFold(bytes.TrimSpace(v), []byte("https"))
}
