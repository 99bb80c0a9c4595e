package engine

import (
	"github.com/redirectd/redirectd/httpparse"
	"github.com/redirectd/redirectd/matcher"
)

// ruleHeaders are the configured header lines of an answer m decides: the
// rule's own (merged with the server's when the config was read), else
// the server's. Both are strings built at load, so this costs no
// allocation.
func ruleHeaders(m *matcher.Match, rules *matcher.Set) string {
	if h := m.Headers(); h != "" {
		return h
	}
	return rules.Headers()
}

// appendNoLocation answers a rule whose status has no Location (410 Gone,
// 451): a short text body, left out for HEAD, and the connection kept as
// for a redirect.
func (cs *conn) appendNoLocation(out []byte, req *httpparse.Request, rules *matcher.Set, status int, date []byte, closing bool) ([]byte, verdict) {
	m := &cs.loop.match
	v := verdict{status: status, outcome: outRedirect, rule: m.Source()}
	return appendTextVary(out, status, m.Vary(), cs.fields(), ruleHeaders(m, rules), matcher.StatusText(status), isHead(req.Method), date, connFieldOf(req, closing)), v
}
