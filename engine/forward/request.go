package forward

import (
	"bytes"
	"net/netip"

	"github.com/valyala/fasthttp"

	"github.com/redirectd/redirectd/httpparse"
)

// proxyIdentity lists, in lower case, the fields by which a proxy tells
// its upstream who the client is, how it came or what it asked for
// (RFC 7239's Forwarded and the de facto ones the common proxies, CDNs
// and frameworks read), beside the X-Forwarded-For, -Proto and -Host that
// RequestHeaders writes itself. An upstream believes them as it believes
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

// Sink receives the header fields of a request going upstream, in order:
// a fasthttp request (forwards) or a raw head (tunnels).
type Sink interface {
	Add(name, value []byte)
}

// The names and fixed values RequestHeaders gives its sink. They are
// package variables because the sink is an interface: a []byte("Host")
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

// Request is what RequestHeaders needs to know of a request beside its
// fields: who sent it and how, and the Host its group sends.
type Request struct {
	// Client is the connection's client (the PROXY header's, or the
	// peer), appended to X-Forwarded-For.
	Client netip.Addr
	// HTTPS: the request came over https (the TLS listener, or a TLS
	// terminator's mark that https_redirect trusts).
	HTTPS bool
	// Trusted: the connection's peer is in trusted_proxies, so that the
	// proxyIdentity fields it sends are passed on.
	Trusted bool
	// HostHeader, when set, is sent as Host (the group's host_header);
	// else ServerAddr with HostFromUpstream or when the request has no
	// host; else the request's host.
	HostHeader       []byte
	HostFromUpstream bool
	ServerAddr       string
}

// RequestHeaders is the header policy of every request sent upstream,
// forwarded or tunnelled (the tunnel had its own, which kept hop-by-hop
// headers and ignored host_header). It gives sink:
//   - Host: the request's host as redirectd matched it (the Host field, or
//     the authority of an absolute-form target), or the server's address
//     with host_header = "upstream" or when the request has none, or the
//     group's host_header; never re-derived from the target;
//   - every field of the client's as sent, names in their case, except the
//     hop-by-hop ones (IsHopByHop), Host, Content-Length (the forward
//     frames the body itself), Expect (answered here), the X-Forwarded-*
//     this function sets, and the proxyIdentity fields unless trusted;
//   - X-Forwarded-For: the client's list with the client appended;
//     X-Forwarded-Proto: https when the request came over https, else
//     http; X-Forwarded-Host: the request's host.
//
// A tunnel adds its Upgrade and Connection after these.
func RequestHeaders(sink Sink, req *httpparse.Request, r *Request) {
	host := req.Host
	switch {
	case r.HostHeader != nil:
		host = r.HostHeader
	case r.HostFromUpstream || len(host) == 0:
		host = []byte(r.ServerAddr)
	}
	sink.Add(hdrHost, host)
	var connTokens, xff []byte
	for i := range req.Headers {
		if h := &req.Headers[i]; h.Is("connection") {
			connTokens = append(append(connTokens, h.Value...), ',')
		}
	}
	for i := range req.Headers {
		h := &req.Headers[i]
		switch {
		case IsHopByHop(h.Name, connTokens),
			h.Is("host"),
			h.Is("content-length"),
			h.Is("expect"),
			h.Is("x-forwarded-proto"),
			h.Is("x-forwarded-host"):
		case h.Is("x-forwarded-for"):
			xff = append(append(xff, h.Value...), ", "...)
		case isProxyIdentity(h.Name):
			if r.Trusted {
				sink.Add(h.Name, h.Value)
			}
		default:
			sink.Add(h.Name, h.Value)
		}
	}
	sink.Add(hdrXForwardedFor, r.Client.AppendTo(xff))
	proto := protoHTTP
	if r.HTTPS {
		proto = protoHTTPS
	}
	sink.Add(hdrXForwardedProt, proto)
	if len(req.Host) > 0 {
		sink.Add(hdrXForwardedHost, req.Host)
	}
}

// Target is the request target sent upstream: the client's, byte for
// byte (fasthttp's URI parser read //internal.example/x:// as an
// absolute URI and sent /x:// to internal.example, and dropped a
// fragment). An absolute-form target is sent in origin form, its path
// and query as sent, since its authority is the Host. The result may
// alias req's buffer.
func Target(req *httpparse.Request) []byte {
	if t := req.Target; len(t) > 0 && (t[0] == '/' || string(t) == "*") {
		return t
	}
	if req.Query == nil {
		return req.Path
	}
	return append(append(append([]byte(nil), req.Path...), '?'), req.Query...)
}

// FasthttpHeaders adds fields to a fasthttp request as they are: its
// normalising is off, and its transport (upstream.Pool) sends the Host set
// here and the target set with SetRequestURIBytes without parsing either.
type FasthttpHeaders struct{ H *fasthttp.RequestHeader }

// Add adds the field.
func (f FasthttpHeaders) Add(name, value []byte) { f.H.AddBytesKV(name, value) }

// RawHead builds a request head in wire form.
type RawHead []byte

// Add appends the field line.
func (h *RawHead) Add(name, value []byte) {
	*h = append(append(append(append(*h, name...), ": "...), value...), "\r\n"...)
}
