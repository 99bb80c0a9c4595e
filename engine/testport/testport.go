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
//
// Tests run in parallel, and packages in parallel processes, so two of
// them could draw the same free port before either binds it. A drawn port
// is therefore held until the test ends by a lock on a file named after
// it, in a folder every test process on the machine shares (lock.go); a
// port another test holds is passed over, whether or not its server has
// bound it yet.
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
		if !hold(tb, port) {
			continue
		}
		ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err != nil {
			continue
		}
		ln.Close()
		return ln.Addr().String(), port
	}
	for range 100 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			tb.Fatal(err)
		}
		ln.Close()
		if port := ln.Addr().(*net.TCPAddr).Port; hold(tb, port) {
			return ln.Addr().String(), port
		}
	}
	tb.Fatal("testport: no free loopback port that no other test holds")
	return "", 0
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
