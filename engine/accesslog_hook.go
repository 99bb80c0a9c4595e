package engine

import (
	"bytes"
	"time"

	"github.com/redirectd/redirectd/engine/accesslog"
	"github.com/redirectd/redirectd/httpparse"
)

// requestInfo is what the access log needs of a request besides its
// answer; for a forwarded request it is copied, since the answer comes
// after the loop's buffer has moved on.
type requestInfo struct {
	method, target, userAgent, referer []byte
	proto                              string
}

func (ri *requestInfo) from(req *httpparse.Request) {
	ri.method, ri.target = req.Method, req.Target
	ri.userAgent, ri.referer = nil, nil
	for i := range req.Headers {
		h := &req.Headers[i]
		switch {
		case len(h.Name) == len("user-agent") && bytes.EqualFold(h.Name, []byte("user-agent")):
			ri.userAgent = h.Value
		case len(h.Name) == len("referer") && bytes.EqualFold(h.Name, []byte("referer")):
			ri.referer = h.Value
		}
	}
	ri.proto = "HTTP/1.1"
	if req.Minor == 0 {
		ri.proto = "HTTP/1.0"
	}
}

// copy returns ri with its bytes copied out of the loop's buffer.
func (ri requestInfo) copy() requestInfo {
	ri.method = bytes.Clone(ri.method)
	ri.target = bytes.Clone(ri.target)
	ri.userAgent = bytes.Clone(ri.userAgent)
	ri.referer = bytes.Clone(ri.referer)
	return ri
}

// logLocal logs an answer the loop wrote: answer is its bytes, location
// its Location (redirects), rule the matched rule's source.
func (cs *conn) logLocal(ri *requestInfo, status int, answer, location []byte, rule string) {
	l := cs.loop
	e := &l.entry
	*e = accesslog.Entry{
		Time: time.Unix(0, l.srv.clock.now()), Client: cs.ip,
		Method: ri.method, Target: ri.target, Proto: ri.proto, UserAgent: ri.userAgent, Referer: ri.referer,
		Status: status, Location: location, Bytes: int64(len(answer)), Rule: rule,
	}
	l.alog.Append(e)
}

// logForwarded logs a forwarded request once its answer is written; it
// runs on the loop.
func (f *forward) logForwarded() {
	l := f.cs.loop
	if l.alog == nil {
		return
	}
	e := &l.entry
	*e = accesslog.Entry{
		Time: time.Now(), Client: f.cs.ip,
		Method: f.info.method, Target: f.info.target, Proto: f.info.proto, UserAgent: f.info.userAgent, Referer: f.info.referer,
		Status: int(f.status.Load()), Upstream: f.server, Bytes: f.sent.Load(), Duration: time.Since(f.start),
	}
	l.alog.Append(e)
}
