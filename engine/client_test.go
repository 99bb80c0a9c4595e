package engine

import (
	"net/netip"
	"testing"

	"github.com/redirectd/redirectd/httpparse"
)

// xffConn is a connection from peer, with trusted as trusted_proxies, and
// the request carrying xff as its X-Forwarded-For field lines.
func xffConn(peer string, trusted []string, xff ...string) (*conn, *httpparse.Request) {
	s := &Server{}
	for _, p := range trusted {
		s.proxy.Trusted = append(s.proxy.Trusted, netip.MustParsePrefix(p))
	}
	cs := &conn{loop: &loop{srv: s}, ip: netip.MustParseAddr(peer)}
	cs.proxy.trust(&s.proxy, cs.ip)
	req := &httpparse.Request{Headers: []httpparse.Header{{Name: []byte("Host"), Value: []byte("h")}}}
	for _, v := range xff {
		req.Headers = append(req.Headers, httpparse.Header{Name: []byte("X-Forwarded-For"), Value: []byte(v)},
			httpparse.Header{Name: []byte("X-Other"), Value: []byte("192.0.2.99")})
	}
	return cs, req
}

func TestRequestClient(t *testing.T) {
	lb := []string{"10.0.0.0/8", "2001:db8:ffff::/48"}
	for _, tc := range []struct {
		name    string
		peer    string
		trusted []string
		xff     []string
		want    string
	}{
		{"no trusted proxies", "10.0.0.1", nil, []string{"198.51.100.1"}, "10.0.0.1"},
		{"untrusted peer", "192.0.2.1", lb, []string{"198.51.100.1"}, "192.0.2.1"},
		{"trusted peer, no header", "10.0.0.1", lb, nil, "10.0.0.1"},
		{"one hop", "10.0.0.1", lb, []string{"198.51.100.1"}, "198.51.100.1"},
		{"trusted hops skipped", "10.0.0.1", lb, []string{"198.51.100.1, 10.9.9.9,10.8.8.8"}, "198.51.100.1"},
		{"spoofed left of the client", "10.0.0.1", lb, []string{"1.1.1.1, 198.51.100.1, 10.9.9.9"}, "198.51.100.1"},
		{"several lines are one list", "10.0.0.1", lb, []string{"198.51.100.1", "10.9.9.9"}, "198.51.100.1"},
		{"last line's untrusted hop wins", "10.0.0.1", lb, []string{"198.51.100.1", "198.51.100.2"}, "198.51.100.2"},
		{"all trusted: the leftmost", "10.0.0.1", lb, []string{"10.1.1.1, 10.2.2.2"}, "10.1.1.1"},
		{"garbage stops the walk", "10.0.0.1", lb, []string{"198.51.100.1, unknown, 10.9.9.9"}, "10.9.9.9"},
		{"garbage at once", "10.0.0.1", lb, []string{"nonsense"}, "10.0.0.1"},
		{"empty entry", "10.0.0.1", lb, []string{"198.51.100.1,,"}, "10.0.0.1"},
		{"ports", "10.0.0.1", lb, []string{"198.51.100.1:4711, 10.9.9.9:80"}, "198.51.100.1"},
		{"ipv6 with port", "10.0.0.1", lb, []string{"[2001:db8::7]:4711"}, "2001:db8::7"},
		{"ipv6 trusted hop", "2001:db8:ffff::1", lb, []string{"2001:db8::7, 2001:db8:ffff::2"}, "2001:db8::7"},
		{"mapped entry", "10.0.0.1", lb, []string{"::ffff:198.51.100.1"}, "198.51.100.1"},
		{"bad bracket", "10.0.0.1", lb, []string{"[2001:db8::7]x"}, "10.0.0.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs, req := xffConn(tc.peer, tc.trusted, tc.xff...)
			if got := cs.requestClient(req); got != netip.MustParseAddr(tc.want) {
				t.Errorf("client = %v, want %s", got, tc.want)
			}
		})
	}
}

// TestTrustsProto: X-Forwarded-Proto from trusted proxies, or from
// loopback when none are configured.
func TestTrustsProto(t *testing.T) {
	for _, tc := range []struct {
		peer    string
		trusted []string
		want    bool
	}{
		{"127.0.0.1", nil, true},
		{"::1", nil, true},
		{"192.0.2.1", nil, false},
		{"127.0.0.1", []string{"10.0.0.0/8"}, false},
		{"10.1.2.3", []string{"10.0.0.0/8"}, true},
	} {
		cs, _ := xffConn(tc.peer, tc.trusted)
		if cs.proxy.xfp != tc.want {
			t.Errorf("peer %s, trusted %v: X-Forwarded-Proto believed = %v, want %v", tc.peer, tc.trusted, cs.proxy.xfp, tc.want)
		}
	}
}
