package engine

import (
	"bytes"
	"net/netip"
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
	// client is the request's client (requestClient), if decided.
	client netip.Addr
	// shadowRule and shadowLoc are the shadow rule that would have
	// answered and its Location (shadow.go), "" and empty when none.
	shadowRule string
	shadowLoc  []byte
}

func (ri *requestInfo) from(req *httpparse.Request) {
	ri.method, ri.target = req.Method, req.Target
	ri.userAgent, ri.referer = nil, nil
	ri.shadowRule, ri.shadowLoc = "", ri.shadowLoc[:0]
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
	ri.shadowLoc = bytes.Clone(ri.shadowLoc)
	return ri
}

// logged is what the access log records of an answer besides its request.
type logged struct {
	status   int
	bytes    int64
	location []byte // a redirect's Location
	rule     string // the source of the rule that matched
	upstream string // the upstream server a forward went to
	// start is when a forward began (its duration is logged); zero for
	// an answer the loop wrote, whose time is the loop's coarse clock.
	start time.Time
}

// log appends the access-log line of one answer; it runs on the loop, for
// answers it wrote and for forwards once their answer is written.
func (l *loop) log(client netip.Addr, ri *requestInfo, a logged) {
	e := &l.entry
	*e = accesslog.Entry{
		Client: ri.clientOr(client),
		Method: ri.method, Target: ri.target, Proto: ri.proto, UserAgent: ri.userAgent, Referer: ri.referer,
		Status: a.status, Location: a.location, Bytes: a.bytes, Rule: a.rule, Upstream: a.upstream,
		ShadowRule: ri.shadowRule, ShadowLocation: ri.shadowLoc,
	}
	if a.start.IsZero() {
		e.Time = time.Unix(0, l.srv.clock.now())
	} else {
		e.Time = time.Now()
		e.Duration = e.Time.Sub(a.start)
	}
	l.alog.Append(e)
}

// logForwarded logs a forwarded request once its answer is written; it
// runs on the loop.
func (f *forward) logForwarded() {
	if l := f.cs.loop; l.alog != nil {
		a := logged{status: int(f.status.Load()), bytes: f.sent.Load(), upstream: f.server, start: f.start}
		if fa := f.fallback; fa != nil && fa.answered {
			a.rule, a.location = fa.rule, fa.location // fallback.go
		}
		l.log(f.cs.ip, &f.info, a)
	}
}
