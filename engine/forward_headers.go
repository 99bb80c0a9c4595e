package engine

import (
	"github.com/valyala/fasthttp"

	fw "github.com/redirectd/redirectd/engine/forward"
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

// fasthttpHeaders is the sink of a forward's fasthttp request.
func fasthttpHeaders(h *fasthttp.RequestHeader) fw.FasthttpHeaders { return fw.FasthttpHeaders{H: h} }
