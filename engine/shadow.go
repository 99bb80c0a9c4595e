package engine

import (
	"github.com/redirectd/redirectd/httpparse"
	"github.com/redirectd/redirectd/matcher"
)

// lookup finds the rule for req as of the coarse clock, so that rules with
// a time window start and stop without a reload. A shadow rule that would
// have answered is counted, and noted for the access log line of whatever
// the request does get (a redirect, a 404, a forward).
func (cs *conn) lookup(rules *matcher.Set, req *httpparse.Request) bool {
	l := cs.loop
	m := &l.match
	m.Now = l.srv.clock.now()
	ok := rules.Lookup(req.Host, req.Path, req.Query, m)
	if m.OnePass() {
		l.srv.m.onePass.Inc()
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
