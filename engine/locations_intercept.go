package engine

import (
	"bytes"

	"github.com/redirectd/redirectd/engine/forward/exchange"
	"github.com/redirectd/redirectd/httpparse"
	"github.com/redirectd/redirectd/matcher"
	"github.com/redirectd/redirectd/matcher/rewrite"
)

// A location with intercept_errors (nginx's proxy_intercept_errors on)
// sends the upstream's answers of the statuses its error_page names to
// the error page. The answer is built here, on the loop, before the
// request is forwarded, as a fallback rule's is (forwarding.go): one per
// status, by replaying the request on the phase's second Scratch and
// asking rewrite for the error page's answer. An error page whose
// target forwards cannot be built ahead: the upstream's answer is then
// relayed as it is.

// pageStatus is the fallback rule of one intercepted status.
type pageStatus int

func (p pageStatus) Applies(status int) bool { return int(p) == status }
func (pageStatus) Hit()                      {}

// interceptPages readies an answer for each status the location that
// forwards req sends to an error page.
func (cs *conn) interceptPages(req *httpparse.Request, rules *matcher.Set, date []byte) {
	ph := &cs.loop.phase
	hosts, _ := rules.Locations().(*rewrite.Hosts)
	p := hosts.ChooseOn(&ph.scratch2, ph.host, ph.port, ph.req.HTTPS)
	if p == nil {
		return
	}
	var first *exchange.FallbackAnswer
	for i := 0; ; i++ {
		// ph.scratch is as Run left it: the forwarding location.
		status, ok := p.InterceptStatus(&ph.scratch, i)
		if !ok {
			break
		}
		hosts.ChooseOn(&ph.scratch2, ph.host, ph.port, ph.req.HTTPS)
		p.Run(&ph.scratch2, &ph.req, &ph.res2)
		if !p.RunIntercepted(&ph.scratch2, &ph.req, &ph.res2, status) {
			continue
		}
		res := &ph.res2
		a := &exchange.FallbackAnswer{FB: pageStatus(status), Status: res.Status, Rule: res.Where, Next: first}
		switch res.Action {
		case rewrite.Redirect:
			b := append([]byte(nil), redirectLines[res.Status-300]...)
			b = append(b, "Location: "...)
			mark := len(b)
			b = cs.appendPhaseLocation(b, res.Location, req)
			if cs.loop.alog != nil {
				a.Location = append([]byte(nil), b[mark:]...)
			}
			b = append(b, "\r\nContent-Length: 0\r\n"...)
			b = append(b, cs.fields()...)
			b = append(b, rules.Headers()...)
			b = append(b, date...)
			a.Answer = append(b, "\r\n"...)
		case rewrite.Answer:
			a.Answer = appendBody(nil, res.Status, cs.fields(), rules.Headers(), res.Body, isHead(req.Method), date, connDefault)
		default:
			continue // a forward or a close: the upstream's answer goes as it is
		}
		a.HeadEnd = bytes.Index(a.Answer, []byte("\r\n\r\n")) + 2
		first = a
	}
	if first != nil {
		cs.fallback = first
	}
}
