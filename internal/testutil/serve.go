package testutil

import (
	"net"
	"testing"
)

// Serve listens on a kernel-chosen loopback port, calls handle on a
// goroutine of its own for each connection accepted, and returns the
// address. The listener is closed when the test ends; a handler closes
// its connection itself.
func Serve(tb testing.TB, handle func(net.Conn)) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go handle(c)
		}
	}()
	return ln.Addr().String()
}
