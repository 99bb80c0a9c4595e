package engine

import (
	"fmt"
	"net/netip"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// stopAccepting closes the traffic port's listening sockets while the
// event loops keep serving their connections: gnet closes listeners only
// as part of Stop, which also closes every connection.
//
// Each listening socket's descriptor is replaced (dup2) by one of an idle,
// non-blocking listening socket of our own. The replaced socket is closed
// with its last descriptor, which takes it out of the SO_REUSEPORT group
// (new connections go to the other instances of a zero-downtime upgrade)
// and, with net.ipv4.tcp_migrate_req, hands its queued connections to
// them; epoll forgets it by itself. An accept that gnet still attempts on
// the descriptor gets EAGAIN from the idle socket, which gnet ignores.
func (s *Server) stopAccepting() error {
	fds, err := s.listeners()
	if err != nil {
		return err
	}
	for _, fd := range fds {
		idle, err := idleListener()
		if err != nil {
			return err
		}
		err = unix.Dup3(idle, fd, unix.O_CLOEXEC)
		unix.Close(idle)
		if err != nil {
			return fmt.Errorf("cannot replace listener %d: %w", fd, err)
		}
	}
	if len(fds) == 0 {
		return fmt.Errorf("no listening socket for %s found", s.addr)
	}
	return nil
}

// listeners returns the descriptors of the traffic port's listening
// sockets, one per event loop: gnet does not hand them out.
func (s *Server) listeners() ([]int, error) {
	want, err := boundAddr(s.addr)
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return nil, fmt.Errorf("cannot list descriptors: %w", err)
	}
	var fds []int
	for _, e := range entries {
		if fd, err := strconv.Atoi(e.Name()); err == nil && isListener(fd, want) {
			fds = append(fds, fd)
		}
	}
	return fds, nil
}

// isListener reports whether fd is a listening TCP socket bound to want.
func isListener(fd int, want netip.AddrPort) bool {
	if v, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ACCEPTCONN); err != nil || v != 1 {
		return false
	}
	sa, err := unix.Getsockname(fd)
	if err != nil {
		return false
	}
	want = netip.AddrPortFrom(want.Addr().Unmap().WithZone(""), want.Port())
	switch a := sa.(type) {
	case *unix.SockaddrInet4:
		return netip.AddrPortFrom(netip.AddrFrom4(a.Addr), uint16(a.Port)) == want
	case *unix.SockaddrInet6:
		return netip.AddrPortFrom(netip.AddrFrom16(a.Addr).Unmap(), uint16(a.Port)) == want
	}
	return false
}

// idleListener returns a non-blocking listening socket on a loopback port
// of its own, which nobody connects to.
func idleListener() (int, error) {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	if err := unix.Bind(fd, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		unix.Close(fd)
		return -1, err
	}
	if err := unix.Listen(fd, 1); err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

// deferAccept sets TCP_DEFER_ACCEPT (one second) and delayed ACKs
// (TCP_QUICKACK off, which accepted sockets inherit) on the traffic port's
// listening sockets; see Options.DeferAccept. A failure costs only speed,
// so it is logged, not fatal.
func (s *Server) deferAccept() {
	fds, err := s.listeners()
	if err != nil {
		s.log.Warn("defer_accept: cannot find the listening sockets", "err", err)
		return
	}
	for _, fd := range fds {
		if err := unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_DEFER_ACCEPT, 1); err != nil {
			s.log.Warn("defer_accept: cannot set TCP_DEFER_ACCEPT", "err", err)
		}
		if err := unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_QUICKACK, 0); err != nil {
			s.log.Warn("defer_accept: cannot set TCP_QUICKACK", "err", err)
		}
	}
}

// deferTLSAccept sets TCP_DEFER_ACCEPT and delayed ACKs on the TLS
// listening socket, as deferAccept does on the traffic port's: the
// connection is accepted with its ClientHello already in the socket, so
// the handshake's first read finds it instead of failing with EAGAIN and
// parking the goroutine until the poller wakes it, and the ClientHello's
// ACK rides on the ServerHello flight.
func deferTLSAccept(fd int) error {
	if err := unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_DEFER_ACCEPT, 1); err != nil {
		return fmt.Errorf("cannot set TCP_DEFER_ACCEPT: %w", err)
	}
	if err := unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_QUICKACK, 0); err != nil {
		return fmt.Errorf("cannot set TCP_QUICKACK: %w", err)
	}
	return nil
}
