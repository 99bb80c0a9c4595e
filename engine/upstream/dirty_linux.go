package upstream

import (
	"net"
	"syscall"
)

// dirty reports whether c, idle, has bytes waiting or its peer closed it:
// a peek that neither waits nor takes anything. For a TLS connection the
// socket is peeked: any record (data, an alert, a close_notify) counts.
func dirty(c net.Conn) bool {
	if t, ok := c.(interface{ NetConn() net.Conn }); ok {
		c = t.NetConn() // a *tls.Conn: its socket
	}
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	var b [1]byte
	n, perr := 0, error(nil)
	err = rc.Read(func(fd uintptr) bool {
		n, _, perr = syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		return true // never wait: an idle connection has nothing
	})
	if err != nil {
		return true
	}
	switch {
	case perr == syscall.EAGAIN || perr == syscall.EWOULDBLOCK:
		return false
	case perr != nil:
		return true // reset: not usable either
	}
	return n >= 0 // a byte, or 0: the end of stream
}
