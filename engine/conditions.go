package engine

import (
	"net/netip"

	"github.com/redirectd/redirectd/httpparse"
	"github.com/redirectd/redirectd/matcher"
)

// condReq is the request as rule conditions (matcher.When) see it. Each
// loop holds one, set on its Match once, and refills its three pointers
// per request: the matcher reads fields and the client's country only when
// a rule with conditions is tried, so other requests pay three stores.
type condReq struct {
	cs    *conn
	req   *httpparse.Request
	rules *matcher.Set
}

// setCondReq points the loop's condition view at this request.
func (l *loop) setCondReq(cs *conn, req *httpparse.Request, rules *matcher.Set) {
	if l.match.Req == nil {
		l.match.Req = &l.cond
	}
	l.cond = condReq{cs: cs, req: req, rules: rules}
}

// Header returns the first value of the field named name (ASCII case
// ignored). A repeated Accept-Language or X-Device is rare and its later
// lines are ignored; a Cookie split over lines (HTTP/2 style, not sent
// over HTTP/1.1) likewise.
func (c *condReq) Header(name []byte) []byte {
	return c.req.Header(name)
}

// HTTPS reports whether the request came over TLS, or from a TLS
// terminator in front that https_redirect trusts (conn.https).
func (c *condReq) HTTPS() bool {
	c.cs.readScheme(false) // a rule's when.scheme: the answer depends on it
	return c.cs.https(c.req)
}

// Country looks the request's client address (as the proxy settings
// decide it: PROXY protocol, trusted X-Forwarded-For) up in the Set's
// country database.
func (c *condReq) Country() string {
	db := c.rules.Countries()
	if db == nil {
		return ""
	}
	return db.Country(c.cs.requestClient(c.req))
}

// ClientAddr is the request's client address as the proxy settings decide
// it (matcher.ClientRequest), for when.ip and when.sample.
func (c *condReq) ClientAddr() netip.Addr { return c.cs.requestClient(c.req) }

// Method is the request's method as sent, for when.method.
func (c *condReq) Method() []byte { return c.req.Method }

var _ matcher.ClientRequest = (*condReq)(nil)
