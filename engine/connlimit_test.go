package engine

import (
	"net/netip"
	"testing"
)

// TestConnLimiterIPv6Prefix checks the per-client count without sockets,
// where TestPerIPLimitIPv6Prefix (cmd/redirectd) cannot get a network
// namespace: IPv6 addresses count by their prefix, IPv4 ones (mapped ones
// too) by themselves, and closing uncounts the same client.
func TestConnLimiterIPv6Prefix(t *testing.T) {
	for _, tt := range []struct {
		bits int
		from []string
		want []rejectReason
	}{
		{64, []string{"2001:db8::1", "2001:db8::2", "2001:db8::3", "2001:db8:0:1::1", "fe80::1%eth0", "fe80::2%eth1", "fe80::3"},
			[]rejectReason{accepted, accepted, overPerIP, accepted, accepted, accepted, overPerIP}},
		{48, []string{"2001:db8::1", "2001:db8:0:1::1", "2001:db8:0:2::1", "2001:db9::1"},
			[]rejectReason{accepted, accepted, overPerIP, accepted}},
		{128, []string{"2001:db8::1", "2001:db8::2", "2001:db8::3", "2001:db8::1", "2001:db8::1"},
			[]rejectReason{accepted, accepted, accepted, accepted, overPerIP}},
		{64, []string{"192.0.2.1", "192.0.2.2", "192.0.2.3", "::ffff:192.0.2.4", "::ffff:192.0.2.5"},
			[]rejectReason{accepted, accepted, accepted, accepted, accepted}},
	} {
		var l connLimiter
		l.init(100, 2, tt.bits)
		var open []netip.Addr
		for i, from := range tt.from {
			ip := netip.MustParseAddr(from)
			if got := l.open(ip); got != tt.want[i] {
				t.Errorf("/%d: connection %d from %s: %v, want %v", tt.bits, i+1, from, got, tt.want[i])
			} else if got == accepted {
				open = append(open, ip)
			}
		}
		for _, ip := range open {
			l.close(ip)
		}
		if n := l.perIP.counted(); n != 0 {
			t.Errorf("/%d: %d clients still counted after every close", tt.bits, n)
		}
		if n := l.total.Load(); n != 0 {
			t.Errorf("/%d: total %d after every close", tt.bits, n)
		}
	}
}
