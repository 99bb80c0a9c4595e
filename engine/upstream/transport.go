package upstream

import "github.com/valyala/fasthttp"

// asSet is every HostClient's transport: fasthttp's own, made to send the
// request target and Host header exactly as the caller set them.
//
// HostClient.Do parses the request URI (req.URI(), to compare its scheme
// with IsTLS) before the transport runs, and once it is parsed
// Request.Write rebuilds what it sends from the parse (fasthttp v1.78.0,
// http.go, Request.Write): the target from the parsed path and query, so a
// fragment is dropped and //internal.example/x:// becomes /x://, and the
// Host from the parsed authority, so that target also changes the Host,
// and a Host the parser refuses (a%41) is sent empty with the target /.
// Setting the target again drops the parse: Write then sends the
// header's target and Host, which the caller set, byte for byte. The
// copy is onto itself and allocates nothing.
type asSet struct{}

func (asSet) RoundTrip(hc *fasthttp.HostClient, req *fasthttp.Request, resp *fasthttp.Response) (bool, error) {
	req.SetRequestURIBytes(req.Header.RequestURI())
	return fasthttp.DefaultTransport.RoundTrip(hc, req, resp)
}
