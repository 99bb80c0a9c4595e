package engine

import (
	"bytes"
	"net/netip"
	"time"

	"github.com/redirectd/redirectd/engine/accesslog"
	fw "github.com/redirectd/redirectd/engine/forward"
	"github.com/redirectd/redirectd/httpparse"
)

// requestInfo is what the access log needs of a request besides its
// answer; for a forwarded request it is copied, since the answer comes
// after the loop's buffer has moved on.
type requestInfo struct {
	method, target, path, query, host, userAgent, referer []byte
	// fields are the header values the log's format names with
	// $http_NAME (accesslog.Format.Fields), nil for one not sent.
	fields        [][]byte
	proto, scheme string
	// client is the request's client (requestClient), if decided.
	client netip.Addr
	// start is when the read that brought the request's first byte
	// began: nginx's $request_time counts from there.
	start time.Time
	// shadowRule and shadowLoc are the shadow rule that would have
	// answered and its Location (conn.lookup), "" and empty when none.
	shadowRule string
	shadowLoc  []byte
}

// from takes what the log needs of req; names are the header fields of
// the format (the loop's fieldNames, the length of ri.fields).
func (ri *requestInfo) from(req *httpparse.Request, names []string) {
	ri.method, ri.target, ri.path, ri.query, ri.host = req.Method, req.Target, req.Path, req.Query, req.Host
	ri.userAgent, ri.referer = nil, nil
	ri.shadowRule, ri.shadowLoc = "", ri.shadowLoc[:0]
	clear(ri.fields)
	for i := range req.Headers {
		h := &req.Headers[i]
		switch {
		case h.Is("user-agent"):
			ri.userAgent = h.Value
		case h.Is("referer"):
			ri.referer = h.Value
		}
		for j, n := range names {
			// The first field of a name, as nginx's $http_NAME.
			if ri.fields[j] == nil && accesslog.FieldMatches(h.Name, n) {
				ri.fields[j] = h.Value
			}
		}
	}
	ri.proto = "HTTP/1.1"
	if req.Minor == 0 {
		ri.proto = "HTTP/1.0"
	}
}

// reset forgets the request, for a head that did not parse, keeping the
// slices for the next one.
func (ri *requestInfo) reset() {
	fields, loc := ri.fields, ri.shadowLoc[:0]
	clear(fields)
	*ri = requestInfo{fields: fields, shadowLoc: loc}
}

// copy returns ri with its bytes copied out of the loop's buffer.
func (ri requestInfo) copy() requestInfo {
	ri.method = bytes.Clone(ri.method)
	ri.target = bytes.Clone(ri.target)
	ri.path = bytes.Clone(ri.path)
	ri.query = bytes.Clone(ri.query) // nil stays nil: no '?'
	ri.host = bytes.Clone(ri.host)
	ri.userAgent = bytes.Clone(ri.userAgent)
	ri.referer = bytes.Clone(ri.referer)
	ri.shadowLoc = bytes.Clone(ri.shadowLoc)
	if ri.fields != nil {
		fields := make([][]byte, len(ri.fields))
		for i, v := range ri.fields {
			fields[i] = bytes.Clone(v)
		}
		ri.fields = fields
	}
	return ri
}

// clientOr is the request's client decided by requestClient, or ip for a
// request that got no further than its parse.
func (ri *requestInfo) clientOr(ip netip.Addr) netip.Addr {
	if ri.client.IsValid() {
		return ri.client
	}
	return ip
}

// logged is what the access log records of an answer besides its request.
type logged struct {
	status    int
	bytes     int64 // the answer's, head included
	bodyBytes int64
	location  []byte // a redirect's Location
	rule      string // the source of the rule that matched
	upstream  string // the upstream server a forward went to
	// upStatus and upTime are the upstream's status and the time its
	// exchange took.
	upStatus int
	upTime   time.Duration
	// start is when a forward began, the start of its duration if the
	// request's own is not known.
	start time.Time
}

// log appends the access-log line of one answer; it runs on the loop, for
// answers it wrote and for forwards once their answer is written.
func (l *loop) log(client netip.Addr, ri *requestInfo, a logged) {
	e := &l.entry
	*e = accesslog.Entry{
		Client: ri.clientOr(client),
		Method: ri.method, Target: ri.target, Path: ri.path, Query: ri.query, Proto: ri.proto, Scheme: ri.scheme,
		Host: ri.host, UserAgent: ri.userAgent, Referer: ri.referer, Fields: ri.fields,
		Status: a.status, Location: a.location, Bytes: a.bytes, BodyBytes: a.bodyBytes, Rule: a.rule,
		Upstream: a.upstream, UpstreamStatus: a.upStatus, UpstreamTime: a.upTime,
		ShadowRule: ri.shadowRule, ShadowLocation: ri.shadowLoc,
	}
	// Every answer is timed, a local one too: two clock reads are a few
	// per cent of a logged answer's cost, and an always-zero duration
	// hides a slow loop.
	e.Time = time.Now()
	start := ri.start
	if start.IsZero() {
		start = a.start
	}
	if !start.IsZero() {
		e.Duration = e.Time.Sub(start)
	}
	l.alog.Append(e)
}

// bodyBytes returns the bytes of an answer's body in p, which holds the
// answer from its first byte: what follows the head's CRLF CRLF (none
// when p ends inside the head).
func bodyBytes(p []byte, headLen int) int64 {
	return int64(len(p) - headLen)
}

// headLen is the length of the answer head at the start of p
// (forward.HeadLen, which exchanges count their answers by too).
func headLen(p []byte) int { return fw.HeadLen(p) }
