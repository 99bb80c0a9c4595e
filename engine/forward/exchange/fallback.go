package exchange

import (
	"io"

	"github.com/valyala/fasthttp"
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

// FallbackAnswer is a fallback rule's answer, built on the loop when its
// request is forwarded (the Match it comes from is the loop's, gone by
// the time the upstream answers) and written by the forward's goroutine
// if the upstream's status lets it.
type FallbackAnswer struct {
	FB FallbackRule
	// Next is another answer for other statuses: a location's error
	// pages give one per status they name (engine/locations_intercept.go).
	Next *FallbackAnswer
	// Answer is the whole answer without a Connection field, which is
	// decided when it is written: HeadEnd is where it goes, at the blank
	// line that ends the head.
	Answer  []byte
	HeadEnd int
	Status  int
	// Rule and Location are for the access log (Location only with one).
	Rule     string
	Location []byte
	// answered is set when the answer was written, for the access log.
	answered bool
}

// FallbackRule is what a fallback answer needs of its rule: the
// statuses it answers and its hit counter. *matcher.Fallback is one.
type FallbackRule interface {
	Applies(status int) bool
	Hit()
}

// useFallback reports whether the fallback rule the request matched, if
// any, answers instead of an answer of status (the upstream's, or the
// server's own when the upstream failed); a request whose rule does not is
// counted as relayed.
func (f *Forward) useFallback(status int) bool {
	if f.fallback == nil {
		return false
	}
	for a := f.fallback; a != nil; a = a.Next {
		if a.FB.Applies(status) {
			f.fallback = a // the one writeFallback writes
			return true
		}
	}
	f.m.Fallback[FallbackRelayed].Inc()
	return false
}

// fallbackTakes reports whether the fallback rule answers instead of
// resp; when it does, resp's body is read (up to maxFallbackDiscard) and
// dropped, and its stream closed.
func (f *Forward) fallbackTakes(resp *fasthttp.Response) bool {
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
func (f *Forward) fallbackAnswered() *FallbackAnswer {
	a := f.fallback
	a.answered = true
	a.FB.Hit()
	f.status.Store(int32(a.Status))
	f.m.Fallback[FallbackAnswered].Inc()
	return a
}

// writeFallback writes the fallback rule's answer and hands the
// connection back to the loop.
func (f *Forward) writeFallback() {
	a := f.fallbackAnswered()
	if f.hasBody && !f.bodyDone.Load() {
		f.closing = true // the rest of the body would be read as a request
	}
	b := make([]byte, 0, len(a.Answer)+len("Connection: keep-alive\r\n"))
	b = append(b, a.Answer[:a.HeadEnd]...)
	b = appendConnection(b, f.http10, f.closing)
	b = append(b, a.Answer[a.HeadEnd:]...)
	f.writeLast(b)
}
