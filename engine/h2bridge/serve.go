package h2bridge

import (
	"log/slog"
	"strconv"
	"time"

	"github.com/redirectd/redirectd/engine/h2"
	"github.com/redirectd/redirectd/engine/tlsport"
)

// bridge serves the streams of one TLS connection that negotiated h2
// (engine/h2 does the framing). Each stream becomes the HTTP/1.1 head it
// stands for (RFC 9113 8.3.1: :method, :path and :authority as the
// request line and Host), decided by the engine (Conn.Decide) exactly as
// a request on the HTTP/1.1 path is: the same checks, rules, conditions,
// answers, headers, HSTS, access log and metrics. The answer bytes that
// path writes are framed by h2.Stream.Answer. One decision, two
// framings: nothing of the decision is written twice.
type bridge struct {
	c   *tlsport.Conn
	e   Conn
	log *slog.Logger
	// head is the stream's request as an HTTP/1.1 head; out a copy of its
	// answer, made under the loop's lock and framed after it. Both are
	// the connection goroutine's.
	head, out []byte
	// reset: the answer is none (return 444); the stream is reset, as
	// the connection is closed on HTTP/1.1.
	reset bool
}

// Serve serves c as HTTP/2 under o on fresh goroutines, the handshake's
// stack left behind, each stream decided by e, until it ends; the last
// one tears c down. log gets the reason a connection ended, at debug
// level.
func Serve(c *tlsport.Conn, e Conn, o h2.Options, log *slog.Logger) {
	new(Bridge).Serve(c, e, o, log)
}

// Bridge is the state the package keeps for one connection, for the
// engine to hold in its own side of the connection (its Conn), so that
// the two are one allocation. Allocated on its own, the 88-byte bridge
// falls in the runtime's 96-byte size class, which a handshake churns
// with some 60 short-lived objects: kept by an idle connection, the
// bridges hold spans of 85 slots in use, mostly empty once those are
// collected (about 1 MB more heap in use with 2,000 idle connections,
// some 500 bytes each).
type Bridge struct{ x bridge }

// Serve is the package's Serve, with b as the connection's state.
func (b *Bridge) Serve(c *tlsport.Conn, e Conn, o h2.Options, log *slog.Logger) {
	b.x = bridge{c: c, e: e, log: log}
	b.x.run(h2.NewConn(c.TLS(), &b.x, o, c.Closing), false)
}

// Options returns the HTTP/2 bounds that apply for the TLS listener:
// those set (the [tls] table's), the server's timeouts where it sets
// none (idle, and header for the preface and for a body dropped after an
// answer from its head), and h2's defaults for the rest. Only
// SendTimeout is set per connection (the engine's ServeH2), as the
// HTTP/1.1 path's send_timeout follows reloads.
func Options(set h2.Options, idle, header time.Duration) h2.Options {
	o := set
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = idle
	}
	if o.PrefaceTimeout <= 0 {
		o.PrefaceTimeout = header
	}
	if o.BodyTimeout <= 0 {
		o.BodyTimeout = header
	}
	return o.WithDefaults()
}

// run runs hc's Serve on a fresh goroutine, and again on another each
// time it goes quiet (woken): the goroutine that waits for an idle
// connection's next frame waits on the raw socket (WaitReadable) with
// the 2 KiB stack it started with, holding no buffer, not with a stack
// grown by serving (engine/h2/buffers.go). x's buffers are let go while
// it waits.
func (x *bridge) run(hc *h2.Conn, woken bool) {
	c := x.c
	c.Go("h2 connection", func() {
		if woken {
			c.WaitReadable()
		}
		quiet, err := hc.Serve()
		if quiet {
			x.head, x.out = nil, nil
			x.run(hc, true)
			return
		}
		if err != nil {
			x.log.Debug("HTTP/2 connection ended", "client", c.RemoteAddr().String(), "err", err)
		}
		c.SetPeerClosed(hc.PeerClosed())
		c.Teardown()
	})
}

// Serve answers st (h2.Handler), or starts its forward.
func (x *bridge) Serve(st *h2.Stream) {
	x.head = appendH2Head(x.head[:0], st, !st.BodyTooLarge && !st.HeadOnly)
	if x.decide(st) {
		if x.reset {
			x.reset = false
			st.Abort()
			return
		}
		st.Answer(x.out)
	}
}

// decide has the engine decide st's answer into x.out, or start its
// forward (false), with the tlsport.Loop locked while it uses the loop's
// state. After a panic, which the engine recovers and which closes the
// connection, the stream gets a 500 (x.out is left empty).
func (x *bridge) decide(st *h2.Stream) (local bool) {
	tl := x.c.Loop()
	tl.Lock()
	defer tl.Unlock()
	out, d := x.e.Decide(st, x.head)
	switch d {
	case Forwarded:
		return false
	case Reset:
		x.reset = true
	}
	x.out = append(x.out[:0], out...)
	return true
}

// NeedsBody (h2.HeadDecider) has the engine tell, from st's head alone,
// whether st needs its body still to come (Conn.NeedsBody), with the
// tlsport.Loop locked.
func (x *bridge) NeedsBody(st *h2.Stream) (need bool, timeout time.Duration, minRate int64) {
	tl := x.c.Loop()
	tl.Lock()
	defer tl.Unlock()
	if st.HeadersTooLarge {
		return false, 0, 0
	}
	x.head = appendH2Head(x.head[:0], st, false)
	var b Body
	b, x.out = x.e.NeedsBody(x.head, x.out[:0])
	x.out = x.out[:0]
	return b.Need, b.Timeout, b.MinRate
}

// TakeBody and PutBody (h2.BodyBudget) are the engine's budget of the
// bodies buffered for the client (Conn).
func (x *bridge) TakeBody(n int) bool { return x.e.TakeBody(n) }
func (x *bridge) PutBody(n int)       { x.e.PutBody(n) }

// appendH2Head appends st's request as an HTTP/1.1 head. engine/h2 has
// refused the fields HTTP/2 forbids and any value holding CR, LF or NUL,
// so no field can end a line early here; the rest (the target's bytes,
// the Host, the field values) httpparse checks as it checks a head read
// from the plain port. Cookie fields, which HTTP/2 sends one per cookie,
// are joined with "; " (RFC 9113 8.2.3). The body's length is the one
// received when whole says st.Body is all of it, else the one the
// content-length field declares, if any.
func appendH2Head(dst []byte, st *h2.Stream, whole bool) []byte {
	target := st.Path
	if string(st.Method) == "CONNECT" {
		target = st.Authority // refused by the parser, as CONNECT is on HTTP/1.1
	}
	dst = append(dst, st.Method...)
	dst = append(dst, ' ')
	dst = append(dst, target...)
	dst = append(dst, " HTTP/1.1\r\n"...)
	host := st.Authority
	if host == nil {
		for _, f := range st.Fields {
			if string(f.Name) == "host" {
				host = f.Value
				break
			}
		}
	}
	if host != nil {
		dst = append(append(append(dst, "Host: "...), host...), "\r\n"...)
	}
	cookies := false
	for _, f := range st.Fields {
		switch string(f.Name) {
		case "host", "content-length":
			continue
		case "cookie":
			cookies = true
			continue
		}
		dst = append(append(append(append(dst, f.Name...), ": "...), f.Value...), "\r\n"...)
	}
	if cookies {
		dst = append(dst, "cookie: "...)
		first := true
		for _, f := range st.Fields {
			if string(f.Name) == "cookie" {
				if !first {
					dst = append(dst, "; "...)
				}
				first = false
				dst = append(dst, f.Value...)
			}
		}
		dst = append(dst, "\r\n"...)
	}
	switch {
	case !whole && st.ContentLength >= 0:
		dst = appendContentLength(dst, st.ContentLength) // to come, streamed (exchange.Stream) or dropped
	case whole && (len(st.Body) > 0 || st.ContentLength >= 0):
		dst = appendContentLength(dst, int64(len(st.Body)))
	}
	return append(dst, "\r\n"...)
}

func appendContentLength(dst []byte, n int64) []byte {
	dst = append(dst, "Content-Length: "...)
	return append(strconv.AppendInt(dst, n, 10), "\r\n"...)
}
