package engine

import (
	"github.com/valyala/fasthttp"

	fw "github.com/redirectd/redirectd/engine/forward"
	"github.com/redirectd/redirectd/engine/upstream"
	"github.com/redirectd/redirectd/httpparse"
)

// upstreamHeaders gives sink the fields of req for the upstream, by the
// policy of every request sent there (forward.RequestHeaders): the
// connection's client, whether it came over https and from a trusted
// proxy, and the Host that g sends to the server at srvAddr.
func (cs *conn) upstreamHeaders(sink fw.Sink, req *httpparse.Request, https bool, g *group, srvAddr string) {
	fw.RequestHeaders(sink, req, &fw.Request{Client: cs.ip, HTTPS: https, Trusted: cs.proxy.xff,
		HostHeader: g.hostHeader, HostFromUpstream: g.HostFromUpstream, ServerAddr: srvAddr})
}

// upstreamTarget is the request target sent upstream (forward.Target),
// unless the location phase changed the target of the request being
// forwarded.
func (cs *conn) upstreamTarget(req *httpparse.Request) []byte {
	if t := cs.loop.phase.target; t != nil {
		return t
	}
	return fw.Target(req)
}

// upstreamRequest is the request a forward sends to srv for req, on
// HTTP/1.1 and HTTP/2 alike: its method, target and fields, the body left
// to the caller. With no server (srv nil: the forward answers 502) it has
// no fields.
func (cs *conn) upstreamRequest(req *httpparse.Request, https bool, g *group, srv *upstream.Server) *fasthttp.Request {
	r := fasthttp.AcquireRequest()
	r.Header.DisableNormalizing()
	// Host, User-Agent, Content-Type and Cookie are fields like the others:
	// fasthttp would otherwise send them first (Cookie last), in its own
	// spelling, with several Cookie fields joined and each cookie's value
	// re-serialised (quotes dropped: `e="x y"` went out as `e=x y`). It
	// still frames the body (Content-Length or chunked).
	r.Header.DisableSpecialHeader()
	r.Header.SetMethodBytes(req.Method)
	// Sent as set: the pool's transport keeps fasthttp's URI parser from
	// rebuilding the target and Host (upstream.Pool).
	r.SetRequestURIBytes(cs.upstreamTarget(req))
	if srv != nil {
		cs.upstreamHeaders(fw.FasthttpHeaders{H: &r.Header}, req, https, g, srv.Addr)
	}
	return r
}
