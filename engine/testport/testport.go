// Package testport gives tests loopback ports to listen on later, when a
// port must be known before the server that binds it starts (a config
// file for the binary, a challenge port told to an ACME server).
//
// A port the kernel hands out (listening on ":0", or the local end of an
// outgoing connection anywhere on the machine) can be handed out again
// between the test's check and the server's bind, and the server then
// fails with "address already in use". Ports below the kernel's ephemeral
// range are reached only by an explicit bind, so Addr draws from there
// and checks that the port is free.
package testport

import (
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
)

// from is the lowest port drawn: above the well-known and most
// registered services' ports.
const from = 10000

// Addr returns a free loopback address and its port.
func Addr(tb testing.TB) (string, int) {
	tb.Helper()
	low := ephemeralLow()
	for range 100 {
		if low <= from+100 {
			break // no room below the range: the kernel's choice
		}
		port := from + rand.IntN(low-from)
		ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err != nil {
			continue
		}
		ln.Close()
		return ln.Addr().String(), port
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String(), ln.Addr().(*net.TCPAddr).Port
}

// ephemeralLow is the first port of the kernel's ephemeral range.
func ephemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if n, err := strconv.Atoi(f[0]); err == nil {
				return n
			}
		}
	}
	return 32768 // Linux's default
}

// Free is Addr for a caller that needs only the address.
func Free(tb testing.TB) string {
	tb.Helper()
	addr, _ := Addr(tb)
	return addr
}
