package engine

import (
	"bytes"
	"net/netip"

	"github.com/valyala/fasthttp"

	"github.com/redirectd/redirectd/httpparse"
)

// hopByHop lists the headers that describe one connection and are not
// forwarded (RFC 9110 7.6.1), in lower case.
var hopByHop = []string{"connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade"}

func isHopByHop(name []byte, connTokens []byte) bool {
	for _, h := range hopByHop {
		if len(name) == len(h) && bytes.EqualFold(name, []byte(h)) {
			return true
		}
	}
	// Headers named by Connection are hop-by-hop too.
	for tok := range bytes.SplitSeq(connTokens, []byte{','}) {
		if bytes.EqualFold(bytes.TrimSpace(tok), name) {
			return true
		}
	}
	return false
}

// proxyIdentity lists, in lower case, the fields by which a proxy tells
// its upstream who the client is, how it came or what it asked for
// (RFC 7239's Forwarded and the de facto ones the common proxies, CDNs
// and frameworks read), beside the X-Forwarded-For, -Proto and -Host that
// upstreamHeaders writes itself. An upstream believes them as it believes
// redirectd: from a client that is not a trusted proxy they are forgeries
// (Forwarded: for=127.0.0.1;host=admin.internal), so they are dropped
// unless the connection's peer is in trusted_proxies.
var proxyIdentity = []string{
	"forwarded", "x-real-ip", "x-forwarded-port", "x-forwarded-server", "x-forwarded-ssl",
	"x-forwarded-scheme", "x-forwarded-prefix", "x-forwarded-uri", "x-original-uri", "x-original-url",
	"x-rewrite-url", "x-scheme", "x-url-scheme", "front-end-https", "x-client-ip", "true-client-ip",
	"x-cluster-client-ip", "cf-connecting-ip", "fastly-client-ip", "x-original-forwarded-for",
}

func isProxyIdentity(name []byte) bool {
	for _, h := range proxyIdentity {
		if len(name) == len(h) && bytes.EqualFold(name, []byte(h)) {
			return true
		}
	}
	return false
}

// headerSink receives the header fields of a request going upstream, in
// order: a fasthttp request (forwards) or a raw head (tunnels).
type headerSink interface {
	add(name, value []byte)
}

// The names and fixed values upstreamHeaders gives its sink. They are
// package variables because sink is an interface: a []byte("Host")
// conversion in the call escapes, and cost one allocation per field and
// forward: 4 of the about 24 that redirectd made for a forwarded GET
// (BenchmarkForward/keepalive's memory profile; 55 -> 50 allocs/op there,
// client and origin included). Sinks copy them and never modify them.
var (
	hdrHost           = []byte("Host")
	hdrXForwardedFor  = []byte("X-Forwarded-For")
	hdrXForwardedProt = []byte("X-Forwarded-Proto")
	hdrXForwardedHost = []byte("X-Forwarded-Host")
	protoHTTP         = []byte("http")
	protoHTTPS        = []byte("https")
)

// upstreamHeaders is the header policy of every request sent upstream,
// forwarded or tunnelled (the tunnel had its own, which
// kept hop-by-hop headers and ignored host_header). It gives sink:
//   - Host: the request's host as redirectd matched it (the Host field, or
//     the authority of an absolute-form target), or the server's address
//     (srvAddr) with host_header = "upstream" or when the request has none;
//     never re-derived from the target;
//   - every field of the client's as sent, names in their case, except the
//     hop-by-hop ones (hopByHop and those Connection names), Host,
//     Content-Length (the forward frames the body itself), Expect (answered
//     here), the X-Forwarded-* this function sets, and the proxyIdentity
//     fields unless trusted (the connection's peer is in trusted_proxies);
//   - X-Forwarded-For: the client's list with the client appended;
//     X-Forwarded-Proto: https when the request came over https (the TLS
//     listener, or a TLS terminator's mark that https_redirect trusts),
//     else http; X-Forwarded-Host: the request's host.
//
// A tunnel adds its Upgrade and Connection after these.
func (s *Server) upstreamHeaders(sink headerSink, req *httpparse.Request, client netip.Addr, https, trusted bool, g *group, srvAddr string) {
	host := req.Host
	switch {
	case g.hostHeader != nil:
		host = g.hostHeader
	case g.HostFromUpstream || len(host) == 0:
		host = []byte(srvAddr)
	}
	sink.add(hdrHost, host)
	var connTokens, xff []byte
	for i := range req.Headers {
		if h := &req.Headers[i]; h.Is("connection") {
			connTokens = append(append(connTokens, h.Value...), ',')
		}
	}
	for i := range req.Headers {
		h := &req.Headers[i]
		switch {
		case isHopByHop(h.Name, connTokens),
			h.Is("host"),
			h.Is("content-length"),
			h.Is("expect"),
			h.Is("x-forwarded-proto"),
			h.Is("x-forwarded-host"):
		case h.Is("x-forwarded-for"):
			xff = append(append(xff, h.Value...), ", "...)
		case isProxyIdentity(h.Name):
			if trusted {
				sink.add(h.Name, h.Value)
			}
		default:
			sink.add(h.Name, h.Value)
		}
	}
	sink.add(hdrXForwardedFor, client.AppendTo(xff))
	proto := protoHTTP
	if https {
		proto = protoHTTPS
	}
	sink.add(hdrXForwardedProt, proto)
	if len(req.Host) > 0 {
		sink.add(hdrXForwardedHost, req.Host)
	}
}

// upstreamTarget is the request target sent upstream: the client's, byte
// for byte (fasthttp's URI parser read
// //internal.example/x:// as an absolute URI and sent /x:// to
// internal.example, and dropped a fragment). An absolute-form target is
// sent in origin form, its path and query as sent, since its authority is
// the Host. The result may alias req's buffer.
func upstreamTarget(req *httpparse.Request) []byte {
	if t := req.Target; len(t) > 0 && (t[0] == '/' || string(t) == "*") {
		return t
	}
	if req.Query == nil {
		return req.Path
	}
	return append(append(append([]byte(nil), req.Path...), '?'), req.Query...)
}

// upstreamTarget is the package-level upstreamTarget, unless the
// location phase changed the target of the request being forwarded.
func (cs *conn) upstreamTarget(req *httpparse.Request) []byte {
	if t := cs.loop.phase.target; t != nil {
		return t
	}
	return upstreamTarget(req)
}

// fasthttpHeaders adds fields to a fasthttp request as they are: its
// normalising is off, and its transport (upstream.Pool) sends the Host set
// here and the target set with SetRequestURIBytes without parsing either.
type fasthttpHeaders struct{ h *fasthttp.RequestHeader }

func (f fasthttpHeaders) add(name, value []byte) { f.h.AddBytesKV(name, value) }

// rawHead builds a request head in wire form.
type rawHead []byte

func (h *rawHead) add(name, value []byte) {
	*h = append(append(append(append(*h, name...), ": "...), value...), "\r\n"...)
}
