//go:build !linux

package engine

import (
	"errors"
	"fmt"
	"net"
	"syscall"
)

// checkFree reports an error when addr is already bound: it binds it once
// without SO_REUSEPORT, which the kernel refuses beside another listener.
// (Linux reads its socket table instead, see checkfree_linux.go.)
func checkFree(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return fmt.Errorf("cannot serve on %s: address already in use (another redirectd, or another server, listens there): stop it first, or start this one with serve -upgrade to take over from it without downtime", addr)
		}
		return fmt.Errorf("cannot serve on %s: %w", addr, err)
	}
	return ln.Close()
}
