package matcher_test

import (
	"fmt"
	"net/netip"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/matcher"
)

// clientReq is a request with a client address and a method, as the
// engine gives them (matcher.ClientRequest).
type clientReq struct {
	fakeReq
	client netip.Addr
	method []byte
}

func (c *clientReq) ClientAddr() netip.Addr { return c.client }
func (c *clientReq) Method() []byte         { return c.method }

func newClientReq(client, method string) *clientReq {
	r := &clientReq{method: []byte(method)}
	if client != "" {
		r.client = netip.MustParseAddr(client)
	}
	return r
}

// nets parses networks as the config does.
func nets(tb testing.TB, list ...string) []netip.Prefix {
	tb.Helper()
	var out []netip.Prefix
	for _, s := range list {
		p, err := matcher.ParseNetwork(s)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

func TestClientConditions(t *testing.T) {
	rules := []matcher.Rule{
		{From: "/home", To: "/everyone", Status: 302},
		{From: "/home", To: "/office", Status: 302, When: &matcher.When{IP: nets(t, "203.0.113.0/24", "2001:db8::/32", "198.51.100.7")}},
		{From: "/home", To: "/post", Status: 302, When: &matcher.When{Method: []string{"POST"}}},
		{From: "/home", To: "/all", Status: 302, When: &matcher.When{Sample: 1, Unless: &matcher.When{Method: []string{"GET", "HEAD"}}}},
		{From: "/lab", To: "/lab-not-office", Status: 302, When: &matcher.When{Unless: &matcher.When{IP: nets(t, "203.0.113.0/24")}}},
		{From: "/lab", To: "/lab-office", Status: 302},
	}
	s := compileLines(t, "t", rules)
	tests := []struct{ path, client, method, want string }{
		{"/home", "203.0.113.9", "GET", "/office"},
		{"/home", "::ffff:203.0.113.9", "GET", "/office"},
		{"/home", "2001:db8:1::5", "GET", "/office"},
		{"/home", "198.51.100.7", "GET", "/office"},
		{"/home", "198.51.100.8", "GET", "/everyone"},
		{"/home", "192.0.2.1", "POST", "/post"},
		{"/home", "192.0.2.1", "PUT", "/all"},
		{"/home", "192.0.2.1", "HEAD", "/everyone"},
		{"/home", "192.0.2.1", "get", "/all"},
		{"/home", "", "GET", "/everyone"},
		{"/home", "", "PUT", "/everyone"}, // sample holds for no unknown client
		{"/lab", "203.0.113.1", "GET", "/lab-office"},
		{"/lab", "192.0.2.1", "GET", "/lab-not-office"},
	}
	var got, want []string
	for _, tt := range tests {
		var m matcher.Match
		m.Req = newClientReq(tt.client, tt.method)
		to := "(none)"
		if s.Lookup(nil, []byte(tt.path), nil, &m) {
			to = m.Rule().To
		}
		got = append(got, tt.path+" "+tt.client+" "+tt.method+" -> "+to)
		want = append(want, tt.path+" "+tt.client+" "+tt.method+" -> "+tt.want)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers (-want +got)\n%s", diff)
	}
	// A Request that is not a ClientRequest meets none of them.
	var m matcher.Match
	m.Req = &fakeReq{}
	if !s.Lookup(nil, []byte("/home"), nil, &m) || m.Rule().To != "/everyone" {
		t.Errorf("a request without a client: got %v, want /everyone", m.Rule())
	}
}

// TestSampleShare checks that when.sample takes about its share of
// clients, the same ones each time, an IPv6 client by its /64, and that
// shares down one path are cumulative.
func TestSampleShare(t *testing.T) {
	s := compileLines(t, "t", []matcher.Rule{
		{From: "/p", To: "/a", Status: 302, When: &matcher.When{Sample: 0.1}},
		{From: "/p", To: "/b", Status: 302, When: &matcher.When{Sample: 0.5}},
		{From: "/p", To: "/c", Status: 302},
	})
	answer := func(client string) string {
		var m matcher.Match
		m.Req = newClientReq(client, "GET")
		if !s.Lookup(nil, []byte("/p"), nil, &m) {
			return ""
		}
		return m.Rule().To
	}
	count := map[string]int{}
	const n = 20000
	for i := range n {
		c := fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255)
		a := answer(c)
		count[a]++
		if again := answer(c); again != a {
			t.Fatalf("client %s: %s then %s", c, a, again)
		}
		v6 := fmt.Sprintf("2001:db8:%x:%x::1", i>>16, i&0xffff)
		if other := fmt.Sprintf("2001:db8:%x:%x:ffff::2", i>>16, i&0xffff); answer(v6) != answer(other) {
			t.Fatalf("clients %s and %s of one /64 differ", v6, other)
		}
	}
	// Binomial spread at n = 20,000 is under 0.5%; 1.5% is wide of it.
	for to, share := range map[string]float64{"/a": 0.1, "/b": 0.4, "/c": 0.5} {
		if got := float64(count[to]) / n; got < share-0.015 || got > share+0.015 {
			t.Errorf("%s took %.3f of the clients, want %.2f", to, got, share)
		}
	}
}

// TestClientConditionsText checks how explain and test write the new
// conditions and what a request lacks.
func TestClientConditionsText(t *testing.T) {
	r := matcher.Rule{From: "/a", To: "/b", Status: 302, When: &matcher.When{
		IP: nets(t, "203.0.113.0/24", "198.51.100.7"), Method: []string{"GET", "HEAD"}, Sample: 0.25,
		Unless: &matcher.When{IP: nets(t, "2001:db8::/32")},
	}}
	if diff := cmp.Diff([]string{
		"ip = 203.0.113.0/24, 198.51.100.7", "method = GET, HEAD", "sample = 0.25", "unless ip = 2001:db8::/32",
	}, r.Conditions()); diff != "" {
		t.Errorf("Conditions (-want +got)\n%s", diff)
	}
	got := r.Unmet(nil, newClientReq("2001:db8::1", "POST"), time.Unix(0, 0))
	want := []string{
		"requires ip = 203.0.113.0/24, 198.51.100.7; the client is 2001:db8::1",
		"requires method = GET, HEAD; the request is POST",
		// The bucket is the hash's, the same on every run and node.
		"requires sample = 0.25; the client 2001:db8::1 falls at 0.737",
		"requires not ip = 2001:db8::/32; the request has it",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Unmet (-want +got)\n%s", diff)
	}
	// No request is a GET from nowhere: the method holds, the others cannot.
	if diff := cmp.Diff([]string{
		"requires ip = 203.0.113.0/24, 198.51.100.7; the client's address is unknown",
		"requires sample = 0.25; the client's address is unknown",
	}, r.Unmet(nil, nil, time.Unix(0, 0))); diff != "" {
		t.Errorf("Unmet with no request (-want +got)\n%s", diff)
	}
}

// ipSet is rules on one path told apart by n client networks (distinct
// /24s, and every tenth a /16 besides, so that two lengths are looked
// up), behind them the rule without conditions, and one plain exact rule,
// the yardstick.
func ipSet(tb testing.TB, n int) *matcher.Set {
	rs := []matcher.Rule{{From: "/about", To: "/about-us", Status: 301}}
	for i := range n {
		w := &matcher.When{IP: nets(tb, fmt.Sprintf("10.%d.%d.0/24", i>>8&255, i&255))}
		if i%10 == 0 {
			w.IP = append(w.IP, nets(tb, fmt.Sprintf("172.%d.0.0/16", 16+i/10%16))...)
		}
		rs = append(rs, matcher.Rule{From: "/net", To: "/n/" + strconv.Itoa(i), Status: 302, When: w})
	}
	rs = append(rs, matcher.Rule{From: "/net", To: "/n/other", Status: 302})
	s, err := matcher.Compile(rs)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// TestIPConditionIndex checks the rules found by network among 2,000:
// the first in file order whose network holds the client.
func TestIPConditionIndex(t *testing.T) {
	s := ipSet(t, 2000)
	tests := []struct{ client, want string }{
		{"10.0.5.1", "/n/5"},
		{"10.7.207.255", "/n/1999"},
		{"172.17.0.1", "/n/10"},    // the /16 of rules 10, 170, ...: the first
		{"10.0.20.1", "/n/20"},     // its /24 and rule 20's /16 (172.18) do not meet
		{"10.0.10.9", "/n/10"},     // its /24
		{"10.200.0.1", "/n/other"}, // no network
		{"2001:db8::1", "/n/other"},
	}
	for _, tt := range tests {
		var m matcher.Match
		m.Req = newClientReq(tt.client, "GET")
		got := "(none)"
		if s.Lookup(nil, []byte("/net"), nil, &m) {
			got = m.Rule().To
		}
		if got != tt.want {
			t.Errorf("client %s: %s, want %s", tt.client, got, tt.want)
		}
	}
}

// TestClientConditionAllocs checks that lookups deciding by client
// network, method and share allocate nothing, indexed or tried in turn.
func TestClientConditionAllocs(t *testing.T) {
	s := ipSet(t, 2000)
	few := compileLines(t, "t", []matcher.Rule{
		{From: "/home", To: "/a", Status: 302, When: &matcher.When{IP: nets(t, "2001:db8::/32", "203.0.113.0/24")}},
		{From: "/home", To: "/b", Status: 302, When: &matcher.When{Method: []string{"POST", "PUT"}}},
		{From: "/home", To: "/c", Status: 302, When: &matcher.When{Sample: 0.3, Unless: &matcher.When{IP: nets(t, "10.0.0.0/8")}}},
		{From: "/home", To: "/d", Status: 302},
	})
	var m matcher.Match
	buf := make([]byte, 0, 256)
	for _, tc := range []struct {
		set          *matcher.Set
		path, client string
		method       string
	}{
		{s, "/net", "10.3.4.5", "GET"},
		{s, "/net", "172.20.1.1", "GET"},
		{s, "/net", "192.0.2.1", "GET"},
		{s, "/net", "2001:db8::1", "GET"},
		{few, "/home", "2001:db8::1", "GET"},
		{few, "/home", "::ffff:203.0.113.1", "GET"},
		{few, "/home", "192.0.2.1", "PUT"},
		{few, "/home", "192.0.2.1", "GET"},
		{few, "/home", "", "GET"},
	} {
		m.Req = newClientReq(tc.client, tc.method)
		path := []byte(tc.path)
		allocs := testing.AllocsPerRun(100, func() {
			if tc.set.Lookup(nil, path, nil, &m) {
				buf = m.AppendLocation(buf[:0], nil)
			}
		})
		if allocs != 0 {
			t.Errorf("%s from %s %s: %v allocations per lookup, want 0", tc.path, tc.client, tc.method, allocs)
		}
	}
}

// BenchmarkIPConditionIndex measures a lookup among 20,000 rules on one
// path told apart by client networks, against a plain exact hit. Target:
// "ip-hit-20000" costs no more than "plain-exact" plus a prefix-tree
// lookup (a few map lookups, one per network length listed), 0 allocs.
func BenchmarkIPConditionIndex(b *testing.B) {
	s := ipSet(b, 20000)
	for _, bc := range []struct{ name, path, client string }{
		{"plain-exact", "/about", "10.3.4.5"},
		{"ip-hit-20000", "/net", "10.3.4.5"},
		{"ip-hit-wide-20000", "/net", "172.20.1.1"},
		{"ip-miss-20000", "/net", "192.0.2.1"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var m matcher.Match
			m.Req = newClientReq(bc.client, "GET")
			path := []byte(bc.path)
			if !s.Lookup(nil, path, nil, &m) {
				b.Fatal("no match")
			}
			b.ReportAllocs()
			for b.Loop() {
				s.Lookup(nil, path, nil, &m)
			}
		})
	}
}

// FuzzParseNetwork checks that ParseNetwork never panics, and that what
// it accepts is masked and reads back as itself from the form explain
// and the config writer give it.
func FuzzParseNetwork(f *testing.F) {
	for _, s := range []string{"203.0.113.0/24", "2001:db8::/32", "198.51.100.7", "::1", "10.0.0.1/24", "fe80::1%eth0", "::ffff:1.2.3.4", "1.2.3.4/33", "", "/", "::/0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := matcher.ParseNetwork(s)
		if err != nil {
			return
		}
		if p.Masked() != p {
			t.Fatalf("%q: %s is not masked", s, p)
		}
		r := matcher.Rule{From: "/a", To: "/b", Status: 302, When: &matcher.When{IP: []netip.Prefix{p}}}
		text := r.Conditions()[0][len("ip = "):]
		if q, err := matcher.ParseNetwork(text); err != nil || q != p {
			t.Fatalf("%q: %s written as %q reads back as %v, %v", s, p, text, q, err)
		}
		if _, err := matcher.Compile([]matcher.Rule{r}); err != nil {
			t.Fatalf("%q: accepted, but Compile: %v", s, err)
		}
	})
}

// FuzzParseCond checks that the new conditions' config readers never
// panic on a string value, and that what they accept compiles.
func FuzzParseCond(f *testing.F) {
	for _, s := range []string{"GET", "get", "G T", "203.0.113.0/24", "0.1", ""} {
		f.Add("method", s)
		f.Add("ip", s)
	}
	kind := func(v any) string { return fmt.Sprintf("%T", v) }
	f.Fuzz(func(t *testing.T, key, s string) {
		w := &matcher.When{}
		for _, v := range []any{s, []any{s, s}} {
			known, err := matcher.ParseCond(w, key, v, kind)
			if !known || err != nil {
				return
			}
		}
		if _, err := matcher.Compile([]matcher.Rule{{From: "/a", To: "/b", Status: 302, When: w}}); err != nil {
			t.Fatalf("%s = %q: accepted, but Compile: %v", key, s, err)
		}
	})
}

// FuzzSample checks that when.sample's reader never panics on a number,
// that what it accepts compiles, and that a share holds for a client
// exactly when a larger one does too.
func FuzzSample(f *testing.F) {
	for _, v := range []float64{0.1, 0, 1, -1, 1.0000001, 0.9999999999999999, 5e-324} {
		f.Add(v, uint32(0xc0000201))
	}
	kind := func(v any) string { return fmt.Sprintf("%T", v) }
	f.Fuzz(func(t *testing.T, share float64, client uint32) {
		w := &matcher.When{}
		if _, err := matcher.ParseCond(w, "sample", share, kind); err != nil {
			return
		}
		small, err := matcher.Compile([]matcher.Rule{{From: "/a", To: "/b", Status: 302, When: w}})
		if err != nil {
			t.Fatalf("sample = %v: accepted, but Compile: %v", share, err)
		}
		all, err := matcher.Compile([]matcher.Rule{{From: "/a", To: "/b", Status: 302, When: &matcher.When{Sample: 1}}})
		if err != nil {
			t.Fatal(err)
		}
		a := netip.AddrFrom4([4]byte{byte(client >> 24), byte(client >> 16), byte(client >> 8), byte(client)})
		var m matcher.Match
		m.Req = &clientReq{client: a, method: []byte("GET")}
		if small.Lookup(nil, []byte("/a"), nil, &m) && !all.Lookup(nil, []byte("/a"), nil, &m) {
			t.Fatalf("client %s is in the share %v but not in all", a, share)
		}
	})
}
