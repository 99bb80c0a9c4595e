package engine

import (
	"bytes"
	"strconv"

	fw "github.com/redirectd/redirectd/engine/forward"
	"github.com/redirectd/redirectd/httpparse"
	"github.com/redirectd/redirectd/internal/ascii"
	"github.com/redirectd/redirectd/matcher"
	"github.com/redirectd/redirectd/matcher/rewrite"
)

// phase is a loop's working memory for the location phase: the request
// as package rewrite reads it, its Scratch and Result, and the target
// to send upstream when the phase changed it.
type phase struct {
	// host, port and target2 hold the request's $host, $server_port
	// and, for an absolute-form target, its origin form; rawHost is
	// the Host header host was made from.
	host, port, target2, rawHost []byte
	// portNum is the port that port holds in decimal: a loop's
	// connections mostly share one, so it is written once, not per
	// request.
	portNum uint16
	req     rewrite.Request
	scratch rewrite.Scratch
	res     rewrite.Result
	// target is what upstreamTarget sends instead of the client's, when
	// not nil; set by answerPhase for the request being answered.
	target []byte
	// started is the Program whose server steps serverPhase ran for the
	// request being answered, nil when none did.
	started *rewrite.Program
	// scratch2 and res2 replay a request for its error pages
	// (locations_intercept.go).
	scratch2 rewrite.Scratch
	res2     rewrite.Result
}

// forget drops what the phase keeps of the rules in use, which are being
// replaced (Server.Swap): between requests nothing of it is wanted, and
// kept it would hold the old config in memory until the loop's next
// request.
func (ph *phase) forget() {
	ph.scratch.Forget()
	ph.scratch2.Forget()
	ph.started = nil
}

// program finds the Program of req's host and readies the loop's phase
// to run it; nil when the rules carry none for the host.
func (cs *conn) program(rules *matcher.Set, hosts *rewrite.Hosts, req *httpparse.Request) *rewrite.Program {
	p, https := cs.chooseServer(hosts, req)
	if p != nil {
		cs.ready(rules, req, https)
	}
	return p
}

// chooseServer returns the Program of req's host, and whether req came
// over TLS (or a trusted proxy says so).
func (cs *conn) chooseServer(hosts *rewrite.Hosts, req *httpparse.Request) (*rewrite.Program, bool) {
	ph := &cs.loop.phase
	if !bytes.Equal(req.Host, ph.rawHost) || len(ph.rawHost) == 0 {
		// A loop's requests mostly send one Host: $host is kept.
		ph.rawHost = append(ph.rawHost[:0], req.Host...)
		name, _ := splitHostPort(req.Host)
		if n := len(name); n > 0 && name[n-1] == '.' {
			name = name[:n-1]
		}
		ph.host = ascii.AppendLower(ph.host[:0], name)
	}
	if port := cs.local.Port(); port != ph.portNum || len(ph.port) == 0 {
		ph.port, ph.portNum = strconv.AppendUint(ph.port[:0], uint64(port), 10), port
	}
	https := cs.https(req)
	if hosts.Schemed() {
		cs.readScheme(false) // servers split by scheme: the choice depends on it
	}
	return hosts.ChooseOn(&ph.scratch, ph.host, ph.port, https), https
}

// ready readies the loop's phase to run a Program for req.
func (cs *conn) ready(rules *matcher.Set, req *httpparse.Request, https bool) {
	ph := &cs.loop.phase
	target := req.Target
	if len(target) > 0 && target[0] != '/' {
		// An absolute-form target: nginx's $request_uri (and what it
		// forwards) is its path and query, as upstreamTarget sends.
		ph.target2 = append(ph.target2[:0], req.Path...)
		if req.Query != nil {
			ph.target2 = append(append(ph.target2, '?'), req.Query...)
		}
		target = ph.target2
	}
	ph.req = rewrite.Request{Host: ph.host, Target: target, Path: req.Path, Query: req.Query, Method: req.Method,
		Port: ph.port, HTTPS: https, Fields: &cs.loop.cond, KeepSlashes: rules.URI().KeepSlashes}
	// nginx's $uri, when the rules compare it, was built for the
	// request already (RefusesURI before the server steps, or the
	// lookup before the locations): once per request.
	if uri, ok := cs.loop.match.NginxURI(req.Path); ok {
		ph.req.URI = uri
	}
}

// serverSteps reports whether some host of rules has [[server_rewrite]]
// steps.
func serverSteps(rules *matcher.Set) bool {
	hosts, _ := rules.Locations().(*rewrite.Hosts)
	return hosts.ServerSteps()
}

// serverPhase runs the [[server_rewrite]] steps of req's host, when it
// has any, before the flat rules, as nginx's server rewrite phase; it
// reports whether they answered (into phase.res). The flat rules then
// see the request as sent.
func (cs *conn) serverPhase(rules *matcher.Set, req *httpparse.Request) bool {
	ph := &cs.loop.phase
	hosts, _ := rules.Locations().(*rewrite.Hosts)
	if !hosts.ServerSteps() {
		return false // no host has any: nothing to do before the rules
	}
	// The request is readied for the Program only when its server has
	// steps: most requests of a site whose other servers have some go
	// on to the rules.
	p, https := cs.chooseServer(hosts, req)
	if p == nil || !p.ServerSteps() {
		return false
	}
	cs.ready(rules, req, https)
	ph.started = p
	answered := p.RunServer(&ph.scratch, &ph.req, &ph.res)
	cs.phaseRead()
	return answered
}

// runPhase runs the location phase (config [[location]] and
// [[server_rewrite]]) for req, when the rules carry one with a Program
// for its host, into the loop's phase.res; it reports false when there
// is none, and req goes on as a miss. After serverPhase it goes on from
// there.
func (cs *conn) runPhase(rules *matcher.Set, req *httpparse.Request) bool {
	ph := &cs.loop.phase
	if p := ph.started; p != nil {
		p.RunLocations(&ph.scratch, &ph.req, &ph.res)
	} else {
		hosts, _ := rules.Locations().(*rewrite.Hosts)
		if hosts == nil {
			return false
		}
		p := cs.program(rules, hosts, req)
		if p == nil {
			return false
		}
		p.Run(&ph.scratch, &ph.req, &ph.res)
	}
	cs.phaseRead()
	return true
}

// phaseRead notes what of the request the phase's run read that the
// answer varies on: $scheme (readScheme), or the X-Forwarded-Proto
// field itself, on which it varies whoever sent it.
func (cs *conn) phaseRead() {
	sc := &cs.loop.phase.scratch
	if sc.SchemeRead() {
		cs.readScheme(false)
	}
	if sc.ForwardedProtoRead() {
		cs.loop.readXFP = true
	}
}

// answerPhase answers what runPhase decided: a redirect (its Location
// made absolute as a rule's is, appendLocation), a local answer, a
// closed connection (444), or a forward to the location's group or, for
// a location that names none, the group the routes pick (404 without).
func (cs *conn) answerPhase(out []byte, req *httpparse.Request, rules *matcher.Set, date []byte, closing bool) ([]byte, verdict) {
	l := cs.loop
	res := &l.phase.res
	cf := connFieldOf(req, closing)
	switch res.Action {
	case rewrite.Redirect:
		out = append(out, redirectLines[res.Status-300]...)
		out = append(out, "Location: "...)
		mark := len(out)
		out = cs.appendPhaseLocation(out, res.Location, req)
		v := verdict{status: res.Status, outcome: outRedirect, rule: res.Where}
		if l.alog != nil {
			l.loc = append(l.loc[:0], out[mark:]...)
			v.location = l.loc
		}
		out = append(out, "\r\nContent-Length: 0\r\n"...)
		out = append(out, cs.fields()...)
		out = append(out, rules.Headers()...)
		out = append(out, date...)
		out = appendConnection(out, cf)
		return append(out, "\r\n"...), v
	case rewrite.Answer:
		o := outRedirect
		if res.Status >= 500 {
			o = outServerError
		}
		return appendBody(out, res.Status, cs.fields(), rules.Headers(), res.Body, isHead(req.Method), date, cf),
			verdict{status: res.Status, outcome: o, rule: res.Where}
	case rewrite.Close:
		return out, verdict{status: 444, outcome: outClientError, closing: true, rule: res.Where}
	}
	l.phase.target = nil
	if string(res.URI) != string(l.phase.req.Target) {
		l.phase.target = res.URI
	}
	if res.Pass {
		l.group = l.srv.routes.Load().named(res.Upstream)
	} else {
		l.group = l.srv.routes.Load().pick(req.Host, l.match.Path())
	}
	if l.group == nil {
		l.miss(req)
		return appendTextVary(out, 404, l.match.Vary(), cs.fields(), rules.Headers(), "not found\n", isHead(req.Method), date, cf), verdict{status: 404, outcome: outMiss}
	}
	l.miss(req)
	if max := l.group.MaxRequestBodyBytes; max > 0 && req.ContentLength > max {
		return appendTextWith(out, 413, cs.fields(), rules.Headers(), "request body too large\n", false, date, connClose),
			verdict{status: 413, outcome: outClientError, closing: true, linger: true}
	}
	if res.Intercept && !fw.IsWebSocket(req) {
		cs.interceptPages(req, rules, date) // locations_intercept.go
	}
	if !fw.IsWebSocket(req) {
		cs.pageStatus = res.Status // an error page's status, 0 for none
	}
	return out, verdict{upstream: true}
}

// appendPhaseLocation appends a Location the phase built; a path gets
// the origin with absolute_redirect, as appendLocation gives a rule's.
// "//x" is a path here too: nginx prefixes any Location that starts with
// '/' (ngx_http_header_filter), so a step's "//docs/x" goes out as
// http://host//docs/x, never as the host "docs".
func (cs *conn) appendPhaseLocation(dst, loc []byte, req *httpparse.Request) []byte {
	if cs.loop.srv.opts.AbsoluteRedirect && len(loc) > 0 && loc[0] == '/' {
		dst = cs.appendOrigin(dst, req)
	}
	return append(dst, loc...)
}

// appendBody is appendTextWith for a body in bytes (a return's text):
// no Content-Type beyond text/plain, as nginx's default_type.
func appendBody(dst []byte, status int, fields, extra string, body []byte, head bool, date []byte, cf connField) []byte {
	return appendTextVary(dst, status, "", fields, extra, body, head, date, cf)
}

// named returns the group a location forwards to: "" the default one,
// else the group of that name (nil when a reload dropped it).
func (t *routeTable) named(name string) *group {
	if name == "" {
		return t.Default
	}
	for _, g := range t.groups {
		if g.Name == name {
			return g
		}
	}
	return nil
}
