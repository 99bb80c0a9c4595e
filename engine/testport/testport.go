// Package testport gives tests (and the benchmark harness: Reserve)
// loopback ports to listen on later, when a port must be known before
// the server that binds it starts (a config file for the binary, a
// challenge port told to an ACME server).
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
	"errors"
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

// Addr returns a free loopback address and its port, held until the
// test ends.
func Addr(tb testing.TB) (string, int) {
	tb.Helper()
	addr, port, err := draw(func(port int) bool { return hold(port, tb.Cleanup) })
	if err != nil {
		tb.Fatal(err)
	}
	return addr, port
}

// Reserve is Addr for a program that is not a test (the benchmark
// harness, which starts servers on ports it must write into their
// configs): the port is held until the process ends. A port the kernel
// hands out (":0") must not be chosen there either: a server that binds
// with SO_REUSEPORT (HAProxy's default, redirectd's own listeners) would
// share it with a test's listener that got it from the kernel meanwhile,
// and the kernel would then split that test's connections between the two.
func Reserve() (string, int, error) {
	return draw(func(port int) bool { return hold(port, nil) })
}

// draw picks a port below the kernel's ephemeral range that held takes
// and that is free to bind, or, where there is no room below the range,
// one the kernel hands out.
func draw(held func(port int) bool) (string, int, error) {
	low := ephemeralLow()
	for range 100 {
		if low <= from+100 {
			break // no room below the range: the kernel's choice
		}
		port := from + rand.IntN(low-from)
		if !held(port) {
			continue
		}
		ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err != nil {
			continue
		}
		ln.Close()
		return ln.Addr().String(), port, nil
	}
	for range 100 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return "", 0, err
		}
		ln.Close()
		if port := ln.Addr().(*net.TCPAddr).Port; held(port) {
			return ln.Addr().String(), port, nil
		}
	}
	return "", 0, errors.New("testport: no free loopback port that no other test holds")
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
