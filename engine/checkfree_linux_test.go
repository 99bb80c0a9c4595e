package engine

import (
	"net"
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseProcAddr(t *testing.T) {
	for in, want := range map[string]string{
		"0100007F:1F90":                         "127.0.0.1:8080",
		"00000000:0050":                         "0.0.0.0:80",
		"00000000000000000000000000000000:01BB": "[::]:443",
		"00000000000000000000000001000000:0016": "[::1]:22",
		"0000000000000000FFFF00000100007F:1F90": "[::ffff:127.0.0.1]:8080",
	} {
		got, ok := parseProcAddr(in)
		if !ok || got.String() != want {
			t.Errorf("%s: %v %v, want %s", in, got, ok, want)
		}
	}
}

func TestOverlaps(t *testing.T) {
	a := netip.MustParseAddr
	tests := []struct {
		x, y string
		want bool
	}{
		{"127.0.0.1", "127.0.0.1", true}, {"127.0.0.1", "127.0.0.2", false},
		{"0.0.0.0", "127.0.0.1", true}, {"::", "127.0.0.1", true}, {"::", "::1", true},
		{"0.0.0.0", "::1", false}, {"::1", "127.0.0.1", false}, {"::ffff:127.0.0.1", "127.0.0.1", true},
		{"0.0.0.0", "::", true},
	}
	for _, tc := range tests {
		if got := []bool{overlaps(a(tc.x), a(tc.y)), overlaps(a(tc.y), a(tc.x))}; !cmp.Equal(got, []bool{tc.want, tc.want}) {
			t.Errorf("%s, %s: %v, want %v both ways", tc.x, tc.y, got, tc.want)
		}
	}
}

// TestCheckFree: a listener on the address, or on its wildcard, makes it
// in use; one that was closed, leaving TIME_WAIT connections behind, does
// not.
func TestCheckFree(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	if err := checkFree(addr); err == nil {
		t.Errorf("%s is free while listened on", addr)
	}
	// A connection the server side closes first stays in TIME_WAIT.
	go func() {
		if c, err := ln.Accept(); err == nil {
			c.Close()
		}
	}()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 1)
	c.Read(buf) // until the server's close
	c.Close()
	ln.Close()
	if err := checkFree(addr); err != nil {
		t.Errorf("after the listener closed: %v", err)
	}
}

// TestListenerDiag: sock_diag finds what the /proc tables find, for a
// listener on an address, on the IPv4 wildcard and (where there is IPv6)
// on the IPv6 wildcard, asked about the same and other addresses of the
// port, and about a port nobody listens on.
func TestListenerDiag(t *testing.T) {
	tables := func(ap netip.AddrPort) (netip.AddrPort, bool) {
		for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
			l, found, err := listenerOn(table, ap)
			if err != nil {
				t.Fatal(err)
			}
			if found {
				return l, true
			}
		}
		return netip.AddrPort{}, false
	}
	for _, listen := range []string{"127.0.0.1:0", "0.0.0.0:0", "[::]:0"} {
		ln, err := net.Listen("tcp", listen)
		if err != nil {
			t.Logf("%s: %v (no IPv6 here?)", listen, err)
			continue
		}
		port := uint16(ln.Addr().(*net.TCPAddr).Port)
		for _, ask := range []string{"127.0.0.1", "127.0.0.2", "0.0.0.0", "::1", "::"} {
			ap := netip.AddrPortFrom(netip.MustParseAddr(ask), port)
			l, found, err := listenerDiag(ap)
			if err != nil {
				t.Skipf("sock_diag refused here: %v", err)
			}
			wl, wfound := tables(ap)
			if found != wfound || found && l != wl {
				t.Errorf("listening on %s, asked %s: sock_diag %v %v, tables %v %v", ln.Addr(), ap, l, found, wl, wfound)
			}
		}
		ln.Close()
		if _, found, _ := listenerDiag(netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), port)); found {
			t.Errorf("port %d still listened on after close", port)
		}
	}
}
