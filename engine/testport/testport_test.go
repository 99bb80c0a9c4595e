package testport

import (
	"net"
	"testing"
)

// TestAddr checks that the address is free to listen on, and that the
// port is below the ephemeral range where there is room.
func TestAddr(t *testing.T) {
	addr, port := Addr(t)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("cannot listen on %s: %v", addr, err)
	}
	ln.Close()
	if low := ephemeralLow(); low > from+100 && (port < from || port >= low) {
		t.Errorf("port %d is outside [%d, %d), below the ephemeral range", port, from, low)
	}
}

// TestFree checks that Free's address is a loopback address free to
// listen on.
func TestFree(t *testing.T) {
	addr := Free(t)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("cannot listen on %s: %v", addr, err)
	}
	ln.Close()
}
