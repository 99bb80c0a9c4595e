package config

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/redirectd/redirectd/internal/shorten"
)

// Proxies holds the [server] keys that say whom redirectd believes about
// the client's address: a load balancer's PROXY protocol header, and
// X-Forwarded-For and X-Forwarded-Proto. It is embedded in Server, so its
// keys sit in the [server] table.
type Proxies struct {
	// ProxyProtocol requires a PROXY protocol header (v1 or v2) at the
	// start of every traffic connection, from a trusted proxy only.
	ProxyProtocol bool `toml:"proxy_protocol"`
	// TrustedProxiesText is trusted_proxies as written: CIDRs, or single
	// addresses.
	TrustedProxiesText []string `toml:"trusted_proxies"`
	// TrustedProxies is TrustedProxiesText parsed, a single address as
	// its /32 or /128.
	TrustedProxies []netip.Prefix `toml:"-"`
}

// checkProxies parses trusted_proxies and refuses settings that would
// trust nobody or everybody by mistake.
func checkProxies(file string, p *Proxies, loc *locator, errs *errorList) {
	bad := func(key, format string, args ...any) {
		errs.add(&Error{File: file, Line: loc.line("server", 0, key), What: "[server]", Key: key, Msg: fmt.Sprintf(format, args...)})
	}
	p.TrustedProxies = nil
	for _, s := range p.TrustedProxiesText {
		pr, err := parseTrusted(s)
		if err != nil {
			bad("trusted_proxies", "%v", err)
			continue
		}
		p.TrustedProxies = append(p.TrustedProxies, pr)
	}
	if p.ProxyProtocol && len(p.TrustedProxiesText) == 0 {
		bad("proxy_protocol", "true needs trusted_proxies: list the addresses of the load balancers that send the header, such as [\"10.0.0.0/8\"]")
	}
}

// parseTrusted parses one trusted_proxies entry: a CIDR with no host bits
// set (a typo such as 10.1.2.3/8 would trust far more than meant), or a
// single address.
func parseTrusted(s string) (netip.Prefix, error) {
	if !strings.Contains(s, "/") {
		a, err := netip.ParseAddr(s)
		if err != nil || a.Zone() != "" {
			return netip.Prefix{}, fmt.Errorf("%q is not an address or CIDR; write it as 10.0.0.0/8, 2001:db8::/32 or 192.0.2.7", shorten.Text(s, 64))
		}
		return mappedPrefix(netip.PrefixFrom(a, a.BitLen()))
	}
	p, err := netip.ParsePrefix(s)
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("%q is not a CIDR; write it as 10.0.0.0/8 or 2001:db8::/32", shorten.Text(s, 64))
	}
	if m := p.Masked(); m != p {
		return netip.Prefix{}, fmt.Errorf("%q has bits set past its /%d; write %s", shorten.Text(s, 64), p.Bits(), m)
	}
	return mappedPrefix(p)
}

// mappedPrefix refuses IPv4-mapped IPv6 prefixes: redirectd sees IPv4
// clients by their IPv4 address, so such a prefix would never match.
func mappedPrefix(p netip.Prefix) (netip.Prefix, error) {
	if p.Addr().Is4In6() {
		return netip.Prefix{}, fmt.Errorf("%q is an IPv4-mapped IPv6 prefix, which never matches: IPv4 peers are compared by their IPv4 address; write the IPv4 form", p)
	}
	return p, nil
}
