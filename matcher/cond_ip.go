package matcher

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
)

// The when.ip condition: the client's address (ClientRequest.ClientAddr: the
// peer, or the client a trusted PROXY header or X-Forwarded-For names)
// is inside one of the networks listed ("203.0.113.0/24",
// "2001:db8::/32", or one address, "198.51.100.7"). An IPv4 client seen
// as an IPv4-mapped IPv6 address is matched as IPv4. An answer that
// depends on it carries no Vary: no field says who the client is.
var ipType = condType{key: "ip", inWhen: true, inUnless: true,
	has:   func(w *When) bool { return len(w.IP) > 0 },
	count: checksOf[*ipCond],
	toml: func(w *When, f TOMLForm) string {
		s := make([]string, len(w.IP))
		for i, p := range w.IP {
			s[i] = prefixText(p)
		}
		return tomlList(s, f)
	},
	unit: ipUnit{},
}

type ipUnit struct{}

// ipCond is a compiled when.ip: the networks, masked.
type ipCond struct{ nets []netip.Prefix }

func (ipUnit) parse(w *When, v any, kind func(any) string) error {
	list, err := condStrings(v, kind)
	if err != nil {
		return err
	}
	for _, s := range list {
		p, err := ParseNetwork(s)
		if err != nil {
			return err
		}
		w.IP = append(w.IP, p)
	}
	return nil
}

// ParseNetwork reads one entry of when.ip: a network in CIDR form, or
// one address (a network of it alone). A network with bits set past its
// length ("203.0.113.7/24") is refused rather than masked, since it is
// most often a typed address whose length is wrong; so are zones and
// IPv4-mapped IPv6 forms, which a client never has once unmapped.
func ParseNetwork(s string) (netip.Prefix, error) {
	var p netip.Prefix
	if strings.Contains(s, "/") {
		var err error
		if p, err = netip.ParsePrefix(s); err != nil {
			return p, fmt.Errorf("%q is not a network; write one such as \"203.0.113.0/24\", \"2001:db8::/32\" or an address", s)
		}
		if p.Masked() != p {
			return p, fmt.Errorf("%q has bits set past its length; write %q, or the address alone", s, p.Masked().String())
		}
	} else {
		a, err := netip.ParseAddr(s)
		if err != nil || a.Zone() != "" {
			return p, fmt.Errorf("%q is not an address or a network; write one such as \"198.51.100.7\" or \"203.0.113.0/24\"", s)
		}
		p = netip.PrefixFrom(a, a.BitLen())
	}
	if p.Addr().Is4In6() {
		return p, fmt.Errorf("%q is an IPv4-mapped IPv6 form; write the IPv4 network, which matches such clients too", s)
	}
	return p, nil
}

func (ipUnit) compile(w *When, field string, key *strings.Builder) ([]condCheck, error) {
	if len(w.IP) == 0 {
		return nil, nil
	}
	c := &ipCond{}
	for _, p := range w.IP {
		if !p.IsValid() || p.Addr().Zone() != "" || p.Addr().Is4In6() {
			return nil, fieldErr(field+".ip", "%q is not a network", p.String())
		}
		c.nets = append(c.nets, p.Masked())
	}
	// Sorted, so that the condKey of the same networks in another order
	// is the same: they are one condition.
	slices.SortFunc(c.nets, netip.Prefix.Compare)
	c.nets = slices.Compact(c.nets)
	for _, p := range c.nets {
		key.WriteString("i" + p.String() + "\x00")
	}
	return []condCheck{c}, nil
}

func (c *ipCond) holds(m *Match) bool {
	a := clientOf(m.Req)
	if !a.IsValid() {
		return false
	}
	for _, p := range c.nets {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

func (ipUnit) text(w *When) []string {
	s := make([]string, len(w.IP))
	for i, p := range w.IP {
		s[i] = prefixText(p)
	}
	return []string{"ip = " + strings.Join(s, ", ")}
}

func (ipUnit) vary(*When) []string { return nil }

func (ipUnit) got(_ *When, _ int, m *Match) string {
	if a := clientOf(m.Req); a.IsValid() {
		return "the client is " + a.String()
	}
	return "the client's address is unknown"
}

// prefixText writes a network as the config does: a one-address network
// as the address alone.
func prefixText(p netip.Prefix) string {
	if p.IsSingleIP() {
		return p.Addr().String()
	}
	return p.String()
}

// ipIndex finds, among the rules of an altList filed by their when.ip
// (altIndex: those with no query or cookie condition to file them by),
// the ones with a network holding the client's address: the address
// masked to each length the rules list, looked up in one map. A path
// told apart by 20,000 networks of a few lengths costs a few map
// lookups, not 20,000 comparisons.
type ipIndex struct {
	lens4, lens6 []int
	byNet        map[netip.Prefix][]int32
}

// ipNets returns the networks of c's when.ip, nil for none.
func ipNets(c *when) []netip.Prefix {
	if c == nil {
		return nil
	}
	for _, k := range c.checks {
		if ip, ok := k.(*ipCond); ok {
			return ip.nets
		}
	}
	return nil
}

// file adds position i under each of nets.
func (x *ipIndex) file(nets []netip.Prefix, i int32) {
	if x.byNet == nil {
		x.byNet = make(map[netip.Prefix][]int32)
	}
	for _, p := range nets {
		lens := &x.lens6
		if p.Addr().Is4() {
			lens = &x.lens4
		}
		if !slices.Contains(*lens, p.Bits()) {
			*lens = append(*lens, p.Bits())
		}
		x.byNet[p] = append(x.byNet[p], i)
	}
}

// lookup appends the positions filed under a network holding a. A rule
// with two such networks is appended twice; the caller drops repeats.
func (x *ipIndex) lookup(c []int32, a netip.Addr) []int32 {
	lens := x.lens6
	if a.Is4() {
		lens = x.lens4
	}
	for _, n := range lens {
		if p, err := a.Prefix(n); err == nil {
			c = append(c, x.byNet[p]...)
		}
	}
	return c
}
