package config

import (
	"net/netip"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

// TestProxies checks that proxy_protocol and trusted_proxies load, and
// that each mistake is refused with its file, line and key.
func TestProxies(t *testing.T) {
	for _, tc := range []struct {
		name, toml string
		want       Proxies
		err        string
	}{
		{name: "off", toml: "[server]\n", want: Proxies{}},
		{name: "on", toml: "[server]\nproxy_protocol = true\ntrusted_proxies = [\"10.0.0.0/8\", \"2001:db8::/32\", \"192.0.2.7\", \"::1\"]\n",
			want: Proxies{ProxyProtocol: true, TrustedProxiesText: []string{"10.0.0.0/8", "2001:db8::/32", "192.0.2.7", "::1"},
				TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("2001:db8::/32"),
					netip.MustParsePrefix("192.0.2.7/32"), netip.MustParsePrefix("::1/128")}}},
		{name: "trusted without protocol", toml: "[server]\ntrusted_proxies = [\"127.0.0.0/8\"]\n",
			want: Proxies{TrustedProxiesText: []string{"127.0.0.0/8"}, TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}}},

		{name: "protocol without trusted", toml: "[server]\nlisten = \":80\"\nproxy_protocol = true\n",
			err: "c.toml:3: [server]: proxy_protocol: true needs trusted_proxies"},
		{name: "host bits", toml: "[server]\ntrusted_proxies = [\"10.1.2.3/8\"]\n",
			err: `c.toml:2: [server]: trusted_proxies: "10.1.2.3/8" has bits set past its /8; write 10.0.0.0/8`},
		{name: "not a cidr", toml: "[server]\ntrusted_proxies = [\"10.0.0.0/33\"]\n",
			err: `c.toml:2: [server]: trusted_proxies: "10.0.0.0/33" is not a CIDR`},
		{name: "name", toml: "[server]\n\ntrusted_proxies = [\"lb.example\"]\n",
			err: `c.toml:3: [server]: trusted_proxies: "lb.example" is not an address or CIDR`},
		{name: "zone", toml: "[server]\ntrusted_proxies = [\"fe80::1%eth0\"]\n",
			err: `c.toml:2: [server]: trusted_proxies: "fe80::1%eth0" is not an address or CIDR`},
		{name: "mapped", toml: "[server]\ntrusted_proxies = [\"::ffff:10.0.0.0/104\"]\n",
			err: `c.toml:2: [server]: trusted_proxies: "::ffff:10.0.0.0/104" is an IPv4-mapped IPv6 prefix`},
		{name: "wrong type", toml: "[server]\ntrusted_proxies = \"10.0.0.0/8\"\n", err: "c.toml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := LoadFS(fstest.MapFS{"c.toml": {Data: []byte(tc.toml)}}, "c.toml")
			if tc.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q...", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, cfg.Server.Proxies, cmp.Comparer(func(a, b netip.Prefix) bool { return a == b })); diff != "" {
				t.Errorf("Proxies (-want +got):\n%s", diff)
			}
		})
	}
}
