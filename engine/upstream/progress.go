package upstream

import (
	"net"
	"time"
)

// MaxAnswerHead is the largest answer head (status line and fields) read
// from a server; a bigger one fails the exchange with a
// *fasthttp.ErrSmallBuffer. fasthttp reads a head into its read buffer
// whole, and its default of 4 KiB turned any answer with more than 4 KiB
// of fields into a 502. nginx's proxy_buffer_size is
// 4 or 8 KiB; 64 KiB leaves room for large cookies and CSP fields.
const MaxAnswerHead = 64 << 10

// progressConn is a connection to a server whose timeouts count time
// without progress: each Read may wait read, each Write write, from the
// moment it starts. fasthttp's own ReadTimeout and WriteTimeout are one
// deadline per exchange, set when the request is sent, so an upload
// slower than WriteTimeout, or an answer (a large download, server-sent
// events) still streaming ReadTimeout after it began, was cut. A deadline set before each call costs a clock read and no
// allocation.
//
// It also keeps one answer from reaching another client. A Write after a
// Read starts the next exchange on a connection that was idle in the
// pool; if anything came on it meanwhile (an upstream's unsolicited second
// answer, with a Set-Cookie meant for the last client, or its close), that
// socket is closed unused and the exchange goes on a freshly dialled one,
// so that any request, a streamed body included (which fasthttp would not
// retry), is only ever written where nothing is waiting. nginx closes a
// kept-alive upstream connection on which any byte arrives while idle.
type progressConn struct {
	net.Conn
	read, write time.Duration
	srv         *Server
	dial        func() (net.Conn, error)
	// answered: a Read since the last Write, so the next Write begins an
	// exchange on a connection back from the pool.
	answered bool
}

func (c *progressConn) Read(p []byte) (int, error) {
	c.answered = true
	if c.read > 0 {
		c.Conn.SetReadDeadline(time.Now().Add(c.read))
	}
	return c.Conn.Read(p)
}

func (c *progressConn) Write(p []byte) (int, error) {
	if c.answered {
		c.answered = false
		if dirty(c.Conn) {
			c.Conn.Close()
			if m := c.srv.stale.Load(); m != nil {
				m.Inc()
			}
			fresh, err := c.dial()
			if err != nil {
				return 0, err
			}
			c.Conn = fresh
		}
	}
	if c.write > 0 {
		c.Conn.SetWriteDeadline(time.Now().Add(c.write))
	}
	return c.Conn.Write(p)
}
