package testport

import (
	"net"
	"runtime"
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

// TestHeldPortsDiffer checks that a port one test holds is not handed to
// another before the first test ends, whether its server has bound it or
// not: many draws in one test are all different ports.
func TestHeldPortsDiffer(t *testing.T) {
	seen := map[int]bool{}
	for range 500 {
		_, port := Addr(t)
		if seen[port] {
			t.Fatalf("port %d handed out twice while held", port)
		}
		seen[port] = true
	}
}

// TestHoldRefusesAHeldPort checks the lock itself: a second hold of a
// held port is refused, and granted once the holder's test has ended.
func TestHoldRefusesAHeldPort(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("no flock(2): the bind check alone")
	}
	_, port := Addr(t)
	if hold(port, t.Cleanup) {
		t.Fatalf("port %d held twice", port)
	}
	var inner int
	t.Run("holder", func(t *testing.T) { _, inner = Addr(t) })
	if !hold(inner, t.Cleanup) {
		t.Fatalf("port %d still held after its test ended", inner)
	}
}

// TestReserve: a port Reserve hands out is below the ephemeral range
// where there is room (never one the kernel gives a test's ":0" listener),
// free to listen on, and held: a test cannot draw it.
func TestReserve(t *testing.T) {
	addr, port, err := Reserve()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("cannot listen on %s: %v", addr, err)
	}
	ln.Close()
	if low := ephemeralLow(); low > from+100 && (port < from || port >= low) {
		t.Errorf("port %d is outside [%d, %d), below the ephemeral range", port, from, low)
	}
	if runtime.GOOS != "windows" && runtime.GOOS != "plan9" && hold(port, t.Cleanup) {
		t.Errorf("port %d is not held after Reserve", port)
	}
}
