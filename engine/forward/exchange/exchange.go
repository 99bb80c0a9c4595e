package exchange

import (
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/redirectd/redirectd/engine/upstream"
)

// failAnswerer is how a forward answers when the upstream could not be
// asked or did not answer: the HTTP/1.1 path (Forward) writes to its gnet
// connection, the HTTP/2 path (Stream) to its stream. What to answer
// is decided once, for both, by Forward.fail and Forward.upstreamFailed.
type failAnswerer interface {
	// answerError answers status with msg as its text body.
	answerError(status int, msg string)
	// writeFallback answers with the fallback rule's answer.
	writeFallback()
}

// answerer is a failAnswerer that also answers an exchange: relays the
// upstream's answer, or answers the error the exchange ended with, each
// path as its client takes it.
type answerer interface {
	failAnswerer
	// relay sends the upstream's answer.
	relay(resp *fasthttp.Response)
	// exchangeFailed answers an exchange with srv that failed with err.
	exchangeFailed(err error, srv *upstream.Server, um *ServerMetrics)
}

// exchangeAndAnswer is the exchange of req with srv, then its answer
// through w: the failure, the fallback rule's answer when it takes the
// upstream's, else the upstream's relayed; both paths, HTTP/1.1 and
// HTTP/2, go through it, so that they count and answer alike.
func (f *Forward) exchangeAndAnswer(w answerer, srv *upstream.Server, um *ServerMetrics, req *fasthttp.Request, resp *fasthttp.Response) {
	start, err := f.exchange(srv, req, resp)
	defer func() { f.m.Duration.Update(time.Since(start).Seconds()) }()
	if err != nil {
		w.exchangeFailed(err, srv, um)
		return
	}
	f.answered(um, resp.StatusCode(), start)
	if f.fallbackTakes(resp) { // fallback.go
		f.counted(true)
		w.writeFallback()
		return
	}
	w.relay(resp)
}

// fail answers through w an upstream that could not be asked or did not
// answer: with the fallback rule's answer when status is one of its
// statuses, else with status and msg.
func (f *Forward) fail(w failAnswerer, status int, msg string) {
	if f.useFallback(status) {
		w.writeFallback()
		return
	}
	w.answerError(status, msg)
}

// upstreamFailed answers through w when the exchange with srv failed with
// err: 502, 503 or 504 as err says, counted in um and the forwarded
// metrics, recorded as the upstream's status for the access log (as nginx
// logs a failed exchange) and logged.
func (f *Forward) upstreamFailed(w failAnswerer, err error, srv *upstream.Server, um *ServerMetrics) {
	status, msg, count := 502, "the upstream server could not be reached\n", um.Failed
	var ne net.Error
	var small *fasthttp.ErrSmallBuffer
	switch {
	case errors.Is(err, fasthttp.ErrNoFreeConns):
		// Every pooled connection stayed busy for pool_wait_timeout.
		status, msg, count = 503, "the upstream server is busy\n", um.PoolFull
	case errors.As(err, &small):
		count.Inc()
		f.m.Forwarded[5].Inc()
		f.h.Log.Warn("forwarding failed: the upstream answer's head is larger than 64 KiB", "group", f.g.Name, "server", srv.Addr, "status", 502, "limit", upstream.MaxAnswerHead)
		f.fail(w, 502, "the upstream server sent an answer head too large\n")
		return
	case errors.As(err, new(errInformational)):
		msg = "the upstream server answered with an informational status only\n"
	case errors.Is(err, fasthttp.ErrTimeout) || errors.As(err, &ne) && ne.Timeout() && !upstream.IsConnError(err):
		status, msg, count = 504, "the upstream server did not answer in time\n", um.TimedOut
	}
	count.Inc()
	f.m.Forwarded[5].Inc()
	f.upStatus.Store(int32(status))
	f.h.Log.Warn("forwarding failed", "group", f.g.Name, "server", srv.Addr, "status", status, "err", err)
	f.fail(w, status, msg)
}

// errorFields are the fields of the server's own answer of status to a
// forwarded request: the connection's, and for 503 and 429 Retry-After,
// since a full pool, or this client's share of it, empties in about a
// request's time (RFC 9110 10.2.3, RFC 6585 4).
func (f *Forward) errorFields(status int) string {
	fields := f.own
	if status == 503 || status == 429 {
		fields += "Retry-After: 1\r\n"
	}
	return fields
}

// noServer answers through w a request for which no server was up when
// it was decided.
func (f *Forward) noServer(w failAnswerer) {
	f.m.Forwarded[5].Inc()
	f.fail(w, 502, "no upstream server is available\n")
}

// takeSlot takes one of the client's max_conns_per_client slots for the
// exchange with srv; when none is free it answers 429 through w, gives
// srv's pick back and reports false.
func (f *Forward) takeSlot(w failAnswerer, srv *upstream.Server, um *ServerMetrics) bool {
	if f.g.Slots.Take(f.client) {
		return true
	}
	srv.Cancel()
	um.ClientLimit.Inc()
	f.m.Forwarded[4].Inc()
	f.fail(w, 429, "too many requests of this client are being forwarded\n")
	return false
}

// exchange sends req to srv and reads resp's head, recording the exchange
// time for the access log and the outcome for srv's health; it returns
// when it started, for the duration metrics.
func (f *Forward) exchange(srv *upstream.Server, req *fasthttp.Request, resp *fasthttp.Response) (time.Time, error) {
	resp.Header.SetNoDefaultContentType(true)
	start := time.Now()
	err := srv.Client.Do(req, resp)
	f.upTime.Store(int64(time.Since(start)))
	srv.Done(err != nil && upstream.IsConnError(err))
	if err == nil && resp.StatusCode() < 200 {
		// fasthttp reads past 100 Continue, so a 1xx here is the answer
		// itself, most often a 101 to a request that asked for no
		// upgrade (upgrades go through tunnel.go, never here). No client
		// of this path can take it: HTTP/2 forbids 101, and an HTTP/1.1
		// client that asked for nothing would read what follows as
		// another protocol.
		err = errInformational{code: resp.StatusCode()}
	}
	return start, err
}

// errInformational is an upstream's final answer with a 1xx status,
// answered 502 as a failed exchange.
type errInformational struct{ code int }

func (e errInformational) Error() string {
	return fmt.Sprintf("the upstream answered %d to a request that asked for no protocol switch; it is answered 502", e.code)
}

// answered records that an exchange that started at start got the head
// of an answer of code (for the access log and the duration metrics). The
// answer is counted by counted once its body is read whole or found cut
// short.
func (f *Forward) answered(um *ServerMetrics, code int, start time.Time) {
	um.Dur.Update(time.Since(start).Seconds())
	f.upStatus.Store(int32(code))
	f.um, f.upCode = um, code
}

// counted counts the upstream's answer, once: whole (or abandoned by the
// client) as answered with its status class, cut short (the upstream
// closed or failed within its body) as a failed forward.
func (f *Forward) counted(whole bool) {
	if f.um == nil || f.countDone {
		return
	}
	f.countDone = true
	if !whole {
		f.um.Failed.Inc()
		f.m.Forwarded[5].Inc()
		return
	}
	f.um.OK.Inc()
	if c := f.upCode / 100; c >= 1 && c <= 5 {
		f.m.Forwarded[c].Inc()
	}
}

// cutShort records an answer whose body the upstream cut short with err:
// a failed forward, logged. Nothing of it has reached the client when
// nothingSent, which then gets 502 (upStatus says so in the access log).
func (f *Forward) cutShort(err error, nothingSent bool) {
	f.counted(false)
	f.h.Log.Warn("upstream answer cut short", "group", f.g.Name, "server", f.server, "status", f.upCode, "err", err, "client_answered_502", nothingSent)
	if nothingSent {
		f.upStatus.Store(502)
	}
}

// msgCutShort is the body of the 502 for an answer cut short before any
// of it was sent.
const msgCutShort = "the upstream server's answer was cut short\n"
