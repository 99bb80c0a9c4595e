package engine

import (
	"bytes"
	"io"

	"github.com/valyala/fasthttp"

	fw "github.com/redirectd/redirectd/engine/forward"
	"github.com/redirectd/redirectd/httpparse"
	"github.com/redirectd/redirectd/matcher"
)

// A fallback rule (matcher.Rule.Fallback) answers only where the upstream
// has no page, as Netlify's rules without `!` answer only where the site
// has no file, and as nginx's `error_page 404 = @redirect` does: the
// request is forwarded as a miss would be, and when the upstream answers
// one of the rule's statuses (404 by default) the rule's answer is
// written instead of the upstream's, whose body is read and dropped.
// Any other upstream answer is relayed as usual. An upstream that cannot
// be reached gets the server's own 502, 503 or 504, as nginx answers it;
// the rule answers instead only when that status is one of its own (as
// `error_page 502 = @redirect` would). Requests that match no fallback
// rule pay one nil check (matcher.Match.Fallback).

// fallbackAnswer is a fallback rule's answer, built on the loop when its
// request is forwarded (the Match it comes from is the loop's, gone by
// the time the upstream answers) and written by the forward's goroutine
// if the upstream's status lets it.
type fallbackAnswer struct {
	fb fallbackRule
	// next is another answer for other statuses: a location's error
	// pages give one per status they name (locations_intercept.go).
	next *fallbackAnswer
	// answer is the whole answer without a Connection field, which is
	// decided when it is written: headEnd is where it goes, at the blank
	// line that ends the head.
	answer  []byte
	headEnd int
	status  int
	// rule and location are for the access log (location only with one).
	rule     string
	location []byte
	// answered is set when the answer was written, for the access log.
	answered bool
}

// fallbackRule is what a fallback answer needs of its rule: the
// statuses it answers and its hit counter. *matcher.Fallback is one.
type fallbackRule interface {
	Applies(status int) bool
	Hit()
}

// startFallback readies the answer of the fallback rule m matched for
// req, to be written if the upstream's answer lets it; the request is
// then forwarded as a miss is.
func (cs *conn) startFallback(out []byte, req *httpparse.Request, rules *matcher.Set, fb *matcher.Fallback, date []byte) ([]byte, verdict) {
	l := cs.loop
	if max := l.group.MaxRequestBodyBytes; max > 0 && req.ContentLength > max {
		return appendTextWith(out, 413, cs.fields(), rules.Headers(), "request body too large\n", false, date, connClose),
			verdict{status: 413, outcome: outClientError, closing: true, linger: true}
	}
	if fw.IsWebSocket(req) {
		// A tunnel relays whatever the upstream answers: there is no
		// answer to replace once the connection is upgraded.
		return out, verdict{upstream: true}
	}
	if l.dry {
		return out, verdict{upstream: true} // the answer is readied when it is decided
	}
	m := &l.match
	a := &fallbackAnswer{fb: fb, status: m.Status(), rule: m.Source()}
	if matcher.HasLocation(a.status) {
		a.answer = cs.appendRedirect(nil, m, req, ruleHeaders(m, rules), date, connDefault)
		if l.alog != nil {
			a.location = m.AppendLocation(nil, req.Query)
		}
	} else {
		a.answer = appendTextVary(nil, a.status, m.Vary(), cs.fields(), ruleHeaders(m, rules), matcher.StatusText(a.status), isHead(req.Method), date, connDefault)
	}
	a.headEnd = bytes.Index(a.answer, []byte("\r\n\r\n")) + 2
	cs.fallback = a
	return out, verdict{upstream: true}
}

// fallbackFor takes the answer startFallback readied for the request now
// being forwarded, if any.
func (cs *conn) fallbackFor() *fallbackAnswer {
	a := cs.fallback
	cs.fallback = nil
	return a
}

// useFallback reports whether the fallback rule the request matched, if
// any, answers instead of an answer of status (the upstream's, or the
// server's own when the upstream failed); a request whose rule does not is
// counted as relayed.
func (f *forward) useFallback(status int) bool {
	if f.fallback == nil {
		return false
	}
	for a := f.fallback; a != nil; a = a.next {
		if a.fb.Applies(status) {
			f.fallback = a // the one writeFallback writes
			return true
		}
	}
	f.s.m.fallback[fallbackRelayed].Inc()
	return false
}

// fallbackTakes reports whether the fallback rule answers instead of
// resp; when it does, resp's body is read (up to maxFallbackDiscard) and
// dropped, and its stream closed.
func (f *forward) fallbackTakes(resp *fasthttp.Response) bool {
	if !f.useFallback(resp.StatusCode()) {
		return false
	}
	if stream := resp.BodyStream(); stream != nil {
		io.CopyN(io.Discard, stream, maxFallbackDiscard)
		resp.CloseBodyStream() // before the write: see relayBody
	}
	return true
}

// fallbackAnswered records that the fallback rule answered, for its
// counters, the metrics and the access log, and returns its answer.
func (f *forward) fallbackAnswered() *fallbackAnswer {
	a := f.fallback
	a.answered = true
	a.fb.Hit()
	f.status.Store(int32(a.status))
	f.s.m.fallback[fallbackAnswered].Inc()
	return a
}

// writeFallback writes the fallback rule's answer and hands the
// connection back to the loop.
func (f *forward) writeFallback() {
	a := f.fallbackAnswered()
	if f.hasBody && !f.bodyDone.Load() {
		f.closing = true // the rest of the body would be read as a request
	}
	b := make([]byte, 0, len(a.answer)+len("Connection: keep-alive\r\n"))
	b = append(b, a.answer[:a.headEnd]...)
	b = appendConnection(b, connFieldFor(f.http10, f.closing))
	b = append(b, a.answer[a.headEnd:]...)
	f.writeLast(b)
}

// Indexes of serverMetrics.fallback.
const (
	fallbackAnswered = iota
	fallbackRelayed
)

func init() {
	metricHelp["redirectd_fallback_total"] = "Requests that matched a fallback rule and were forwarded, by result: the rule answered (the upstream answered one of its fallback_status) or the upstream's answer was relayed. They are counted as forwarded in redirectd_requests_total too."
}

// newFallbackMetrics makes the fallback counters.
func (m *serverMetrics) newFallbackMetrics() {
	m.fallback[fallbackAnswered] = m.set.NewCounter(`redirectd_fallback_total{result="answered"}`)
	m.fallback[fallbackRelayed] = m.set.NewCounter(`redirectd_fallback_total{result="relayed"}`)
}
