package redisstore

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"syscall"
	"time"
)

// What one Redis reply may announce. go-redis allocates what a reply's
// header announces before reading it: a bulk string of
// $9000000000000000000 makes it call make([]byte, n+2), a panic, and one
// of a few GB takes that memory. The storage holds certificates, keys and
// small JSON files, and lists their names: nothing near these bounds.
const (
	maxReplyBulk  = 16 << 20 // bytes of one bulk string or blob
	maxReplyCount = 1 << 20  // elements of one array, set, map or push
	maxReplyLine  = 64 << 10 // bytes of one line: a simple string, an error, a number
)

// dialer dials Redis as go-redis's own dialer does (TLS when tc is not
// nil) and guards each connection's replies (respGuard).
func dialer(tc *tls.Config) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		d := &net.Dialer{Timeout: timeout, KeepAlive: 5 * time.Minute}
		var c net.Conn
		var err error
		if tc == nil {
			c, err = d.DialContext(ctx, network, addr)
		} else {
			c, err = (&tls.Dialer{NetDialer: d, Config: tc}).DialContext(ctx, network, addr)
		}
		if err != nil {
			return nil, err
		}
		if sc, ok := c.(syscall.Conn); ok {
			return &guardedSysConn{guardedConn{Conn: c}, sc}, nil
		}
		return &guardedConn{Conn: c}, nil
	}
}

// guardedSysConn is a guardedConn over a plain TCP connection, which
// go-redis's pool checks for a peer that closed while it was idle (a
// non-consuming peek at the socket, through SyscallConn) before reusing
// it: without it, every pooled connection failed once after a Redis
// restart and the node took Redis for down.
type guardedSysConn struct {
	guardedConn
	sc syscall.Conn
}

func (c *guardedSysConn) SyscallConn() (syscall.RawConn, error) { return c.sc.SyscallConn() }

// guardedConn reads a Redis connection through a respGuard: the bytes
// reach go-redis only while every reply header in them is within bounds.
type guardedConn struct {
	net.Conn
	g respGuard
}

func (c *guardedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if gerr := c.g.scan(p[:n]); gerr != nil {
		c.Conn.Close()
		return 0, gerr
	}
	return n, err
}

// respGuard follows a stream of RESP2 and RESP3 replies as it is read
// and refuses one whose header announces more than the bounds above, or
// is not RESP. Aggregates need no stack: their headers are lines, and
// their elements are replies that follow.
type respGuard struct {
	state   uint8 // guardType, guardLine, guardSkip
	typ     byte
	n       int64 // the number a length line holds so far
	neg     bool
	digits  int
	lineLen int
	skip    int64 // bytes of a bulk payload (and its CRLF) still to pass
}

const (
	guardType = iota // at the type byte of a reply
	guardLine        // in a reply's first line
	guardSkip        // in a bulk payload
)

// scan follows p, the next bytes of the stream.
func (g *respGuard) scan(p []byte) error {
	for i := 0; i < len(p); i++ {
		switch g.state {
		case guardSkip:
			k := min(int64(len(p)-i), g.skip)
			g.skip -= k
			i += int(k) - 1
			if g.skip == 0 {
				g.state = guardType
			}
		case guardType:
			switch c := p[i]; c {
			case '+', '-', ':', '_', '#', ',', '(', '$', '!', '=', '*', '%', '~', '>', '|':
				g.typ, g.state, g.n, g.neg, g.digits, g.lineLen = c, guardLine, 0, false, 0, 0
			default:
				return fmt.Errorf("redis: the reply starts with byte %#x, which is not RESP; the connection is closed", c)
			}
		case guardLine:
			if err := g.line(p[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// line takes one byte of a reply's first line.
func (g *respGuard) line(c byte) error {
	if g.lineLen++; g.lineLen > maxReplyLine {
		return fmt.Errorf("redis: a reply line is longer than %d bytes; the connection is closed", maxReplyLine)
	}
	if c != '\n' {
		if !g.counted() || c == '\r' {
			return nil
		}
		switch {
		case c == '-' && g.digits == 0 && !g.neg:
			g.neg = true
		case c >= '0' && c <= '9' && g.digits < 19:
			g.n = g.n*10 + int64(c-'0')
			g.digits++
		default:
			return fmt.Errorf("redis: a %q reply's length holds %q, or too many digits; the connection is closed", g.typ, c)
		}
		return nil
	}
	g.state = guardType
	if !g.counted() {
		return nil
	}
	switch {
	case g.digits == 0:
		return fmt.Errorf("redis: a %q reply has no length; the connection is closed", g.typ)
	case g.neg && g.n != 1:
		return fmt.Errorf("redis: a %q reply announces length -%d; the connection is closed", g.typ, g.n)
	case g.neg:
		return nil // a null
	case g.bulk() && g.n > maxReplyBulk:
		return fmt.Errorf("redis: a reply announces %d bytes, over the %d this storage takes; the connection is closed", g.n, maxReplyBulk)
	case !g.bulk() && g.n > maxReplyCount:
		return fmt.Errorf("redis: a reply announces %d elements, over the %d this storage takes; the connection is closed", g.n, maxReplyCount)
	case g.bulk():
		g.state, g.skip = guardSkip, g.n+2
	}
	return nil
}

// counted reports whether the reply's line is a length or a count.
func (g *respGuard) counted() bool {
	switch g.typ {
	case '$', '!', '=', '*', '%', '~', '>', '|':
		return true
	}
	return false
}

// bulk reports whether the reply's length is of a payload that follows.
func (g *respGuard) bulk() bool { return g.typ == '$' || g.typ == '!' || g.typ == '=' }

// recovered, deferred by each storage method, turns a panic in go-redis
// into the method's error, whatever goroutine called it (certmagic's own
// among them): the guard above keeps the known one (an allocation a
// reply announces) from happening, and a reply go-redis chokes on some
// other way is trouble with Redis like any other, which the layered
// storage answers from its local copy.
func recovered(op string, err *error) {
	if v := recover(); v != nil {
		*err = fmt.Errorf("redis %s: the client panicked on the reply: %v", op, v)
	}
}
