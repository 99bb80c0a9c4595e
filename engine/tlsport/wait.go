package tlsport

import (
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// waitReadable waits, under the read deadline, until the TCP connection
// under c's TLS has bytes to read (or its end, or an error), without
// reading them: the goroutine that waits for a quiet connection's next
// request holds no buffer, and its stack stays at the 2 KiB a goroutine
// starts with (a crypto/tls Read grows it to 4 KiB). What it found is
// read afterwards by crypto/tls, and any error again by that read.
//
// It is right only after a read of c's TLS timed out: crypto/tls then
// holds no whole record (at most the start of one), so what comes next
// comes from the socket. After the handshake it may hold the client's
// first records already, so the first wait reads through crypto/tls.
func (c *Conn) waitReadable() {
	p := c.raw.(*progressConn)
	if len(p.pre) > 0 {
		return
	}
	sc, ok := p.Conn.(syscall.Conn)
	if !ok {
		return
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return
	}
	rc.Read(peekable)
}

// peekable reports whether fd has a byte to read, or an end or error a
// read would return (RawConn.Read waits for readiness while it reports
// false). A function, not a closure, and recvfrom called bare (unix.Recvfrom
// allocates the byte and the address it returns), so the wait allocates
// nothing.
func peekable(fd uintptr) bool {
	var b [1]byte
	_, _, errno := unix.Syscall6(unix.SYS_RECVFROM, fd, uintptr(unsafe.Pointer(&b[0])), 1, unix.MSG_PEEK|unix.MSG_DONTWAIT, 0, 0)
	return errno != unix.EAGAIN
}
