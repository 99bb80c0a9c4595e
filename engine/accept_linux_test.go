package engine

import (
	"net"
	"testing"

	"golang.org/x/sys/unix"
)

// TestAcceptAddress checks the peer address x/sys's Accept4 gives gnet
// with socketProtocol answering for the kernel (accept_linux.go), over
// IPv4 and IPv6 loopback.
func TestAcceptAddress(t *testing.T) {
	for _, network := range []string{"tcp4", "tcp6"} {
		t.Run(network, func(t *testing.T) {
			host := "127.0.0.1:0"
			if network == "tcp6" {
				host = "[::1]:0"
			}
			ln, err := net.Listen(network, host)
			if err != nil {
				t.Skipf("no %s loopback: %v", network, err)
			}
			defer ln.Close()
			f, err := ln.(*net.TCPListener).File()
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			c, err := net.Dial(network, ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			fd, sa, err := unix.Accept4(int(f.Fd()), unix.SOCK_CLOEXEC)
			if err != nil {
				t.Fatal(err)
			}
			defer unix.Close(fd)
			port := c.LocalAddr().(*net.TCPAddr).Port
			switch a := sa.(type) {
			case *unix.SockaddrInet4:
				if network != "tcp4" || a.Port != port || a.Addr != [4]byte{127, 0, 0, 1} {
					t.Errorf("accepted %v port %d over %s, want 127.0.0.1 port %d", a.Addr, a.Port, network, port)
				}
			case *unix.SockaddrInet6:
				if network != "tcp6" || a.Port != port || net.IP(a.Addr[:]).String() != "::1" {
					t.Errorf("accepted %v port %d over %s, want ::1 port %d", a.Addr, a.Port, network, port)
				}
			default:
				t.Errorf("accepted a %T over %s", sa, network)
			}
		})
	}
}
