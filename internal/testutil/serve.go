package testutil

import (
	"net"
	"testing"
)

// Serve listens on a kernel-chosen loopback port and serves it as ServeOn
// does, returning the address.
func Serve(tb testing.TB, handle func(net.Conn)) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	ServeOn(tb, ln, handle)
	return ln.Addr().String()
}

// ServeOn calls handle on a goroutine of its own for each connection ln
// accepts, until the test ends and ln is closed; a handler closes its
// connection itself.
func ServeOn(tb testing.TB, ln net.Listener, handle func(net.Conn)) {
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
}
