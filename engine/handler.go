package engine

import (
	"errors"
	"sync"
	"time"

	"github.com/panjf2000/gnet/v2"
	"github.com/redirectd/redirectd/httpparse"
	"github.com/redirectd/redirectd/matcher"
)

// handler implements gnet.EventHandler for a Server.
type handler struct {
	gnet.BuiltinEventEngine
	srv *Server
	// loops maps each gnet event loop to its state. It is read once per
	// connection, in OnOpen; the connection keeps the pointer.
	loops sync.Map // gnet.EventLoop -> *loop
}

// loop is the state one event loop owns. Only that loop's goroutine
// touches it.
type loop struct {
	req   httpparse.Request
	match matcher.Match
	out   []byte
}

// conn is the state of one client connection.
type conn struct {
	loop *loop
	// discard counts request body bytes still to be skipped: a body sent
	// with a request answered by a redirect is not needed, but its bytes
	// come before the next request.
	discard int64
}

func (h *handler) OnBoot(eng gnet.Engine) gnet.Action {
	s := h.srv
	s.engMu.Lock()
	s.eng = eng
	s.engMu.Unlock()
	close(s.ready)
	return gnet.None
}

func (h *handler) OnOpen(c gnet.Conn) ([]byte, gnet.Action) {
	el := c.EventLoop()
	l, ok := h.loops.Load(el)
	if !ok {
		l, _ = h.loops.LoadOrStore(el, &loop{out: make([]byte, 0, 4096)})
	}
	c.SetContext(&conn{loop: l.(*loop)})
	return nil, gnet.None
}

// OnTick refreshes the Date header once a second. It runs on gnet's ticker
// goroutine, not on a loop.
func (h *handler) OnTick() (time.Duration, gnet.Action) {
	h.srv.date.update(time.Now())
	return time.Second, gnet.None
}

// OnTraffic answers every complete request in the connection's buffer and
// writes the answers with one write. A partial request stays buffered
// until the rest arrives.
func (h *handler) OnTraffic(c gnet.Conn) gnet.Action {
	cs := c.Context().(*conn)
	buf, _ := c.Peek(-1)
	s := h.srv
	used, closing := cs.serve(buf, s.rules.Load(), s.date.get(), &s.limits)
	// gnet's Discard(0) drops the whole buffer, partial request included.
	if used > 0 {
		if _, err := c.Discard(used); err != nil {
			return gnet.Close
		}
	}
	if out := cs.loop.out; len(out) > 0 {
		if _, err := c.Write(out); err != nil {
			return gnet.Close
		}
	}
	if closing {
		return gnet.Close
	}
	return gnet.None
}

// serve answers the complete requests at the start of buf into the loop's
// output buffer. It returns how many bytes of buf it consumed and whether
// the connection must close after the answers are written.
func (cs *conn) serve(buf []byte, rules *matcher.Set, date []byte, limits *httpparse.Limits) (used int, closing bool) {
	l := cs.loop
	out := l.out[:0]
	for used < len(buf) && !closing {
		if cs.discard > 0 {
			n := min(cs.discard, int64(len(buf)-used))
			cs.discard -= n
			used += int(n)
			continue
		}
		req := &l.req
		n, err := httpparse.Parse(buf[used:], req, limits)
		if err != nil {
			out = appendParseError(out, err, req, date)
			closing = true
			break
		}
		if n == 0 {
			break
		}
		used += n
		switch {
		case req.Chunked:
			// The body's length is only known by decoding it; rather than
			// guess where the next request starts, answer and close.
			closing = true
		case req.ContentLength > 0:
			cs.discard = req.ContentLength
		}
		closing = closing || !req.KeepAlive
		if rules.Lookup(req.Host, req.Path, &l.match) {
			out = appendRedirect(out, &l.match, req, date, closing)
		} else {
			out = appendText(out, 404, "not found\n", isHead(req.Method), req, date, closing)
		}
	}
	l.out = out
	return used, closing
}

func isHead(method []byte) bool { return string(method) == "HEAD" }

// appendParseError answers a request that could not be parsed with the
// status the parser chose (400 for anything unclassified) and closes.
func appendParseError(dst []byte, err error, req *httpparse.Request, date []byte) []byte {
	status, msg := 400, "bad request\n"
	var pe *httpparse.Error
	if errors.As(err, &pe) {
		status = pe.Status
		msg = pe.Msg + "\n"
	}
	return appendText(dst, status, msg, false, req, date, true)
}
