package engine

import (
	_ "unsafe" // go:linkname

	"golang.org/x/sys/unix"
)

// socketProtocol is golang.org/x/sys/unix's hook that Accept4 (gnet's
// accept) calls for every IPv4 and IPv6 connection, to tell an L2TP
// socket's address from a TCP one's: a getsockopt(SO_PROTOCOL) per
// connection, one system call in eight of a connection that sends one
// request (nginx makes six). redirectd opens no L2TP socket, so
// everything it accepts has the plain address form, and the hook answers
// without asking the kernel. TestAcceptAddress checks the addresses
// accepted; if x/sys renames the hook, the build fails here.
//
//go:linkname socketProtocol golang.org/x/sys/unix.socketProtocol
var socketProtocol func(fd int) (int, error)

func init() {
	socketProtocol = func(int) (int, error) { return unix.IPPROTO_TCP, nil }
}
