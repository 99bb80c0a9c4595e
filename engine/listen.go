package engine

import (
	"fmt"
	"net"
	"net/netip"
	"strconv"
)

// resolveListen turns a listen address in any form net.Listen takes into
// the literal one handed to gnet and looked for by listeners: a host name
// is resolved once (to its first IPv4 address when it has one, as
// net.Listen does), a port name becomes its number, and port 0 becomes a
// free port (with SO_REUSEPORT every loop binds its own socket, and port 0
// would give each a different one). An empty host stays empty, which gnet
// binds as [::] with IPv6-only off: every address, IPv4 and IPv6.
// 0.0.0.0 and [::] keep gnet's meaning, every IPv4 or every IPv6 address.
//
// Resolving here rather than in gnet means the address bound and the one
// listeners matches are the same: "localhost:80" and ":80" used to reach
// gnet as written, so the drain and defer_accept, which compare literal
// addresses, found no socket.
func resolveListen(addr string) (string, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("cannot use listen address %q: %w; write host:port, such as 127.0.0.1:8080", addr, err)
	}
	ta, err := net.ResolveTCPAddr("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("cannot resolve listen address %q: %w", addr, err)
	}
	if host != "" {
		host = ta.AddrPort().Addr().Unmap().String()
	}
	port := ta.Port
	if port == 0 {
		ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
		if err != nil {
			return "", fmt.Errorf("cannot find a free port on %q: %w", host, err)
		}
		port = ln.Addr().(*net.TCPAddr).Port
		ln.Close()
	}
	return net.JoinHostPort(host, strconv.Itoa(port)), nil
}

// boundAddr is the address the listening sockets of addr, a result of
// resolveListen, are bound to: for an empty host, [::] (see resolveListen).
func boundAddr(addr string) (netip.AddrPort, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return netip.AddrPort{}, err
	}
	if host == "" {
		host = "::"
	}
	return netip.ParseAddrPort(net.JoinHostPort(host, port))
}

// CheckListen reports an error for a listen address serve would refuse
// before binding it: one that does not parse, a port out of range, a name
// that does not resolve. redirectd check calls it.
func CheckListen(addr string) error {
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return fmt.Errorf("cannot use listen address %q: %w; write host:port, such as 127.0.0.1:8080", addr, err)
	}
	if _, err := net.ResolveTCPAddr("tcp", addr); err != nil {
		return fmt.Errorf("cannot resolve listen address %q: %w", addr, err)
	}
	return nil
}
