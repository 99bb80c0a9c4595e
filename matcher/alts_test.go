package matcher

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// altReq is a request's fields and client for the conditions of these
// tests.
type altReq struct {
	cookie, header []byte
	client         netip.Addr
}

func (r *altReq) Header(name []byte) []byte {
	switch string(name) {
	case "cookie":
		return r.cookie
	case "x-a":
		return r.header
	}
	return nil
}
func (r *altReq) Country() string { return "" }
func (r *altReq) HTTPS() bool     { return false }

func (r *altReq) ClientAddr() netip.Addr { return r.client }
func (r *altReq) Method() []byte         { return []byte("GET") }

// altNets are the networks of randomAlts' ip conditions, nested and
// apart, and altClients the clients of its requests.
var (
	altNets    = []string{"10.0.0.0/8", "10.1.0.0/16", "10.1.2.3", "192.0.2.0/24", "2001:db8::/32"}
	altClients = []string{"10.1.2.3", "10.9.9.9", "192.0.2.7", "2001:db8::1", "::ffff:10.1.2.3", "198.51.100.1", ""}
)

// randomAlts makes rules on /p (and the prefix /q/) told apart by random
// query, cookie, header and unless conditions drawn from few names and
// values, so that requests meet some of them; some rules are shadow or
// outside their window, and the list may end in a rule without
// conditions.
func randomAlts(rng *rand.Rand) []Rule {
	names := []string{"a", "b", "id"}
	vals := []string{"1", "2", "", AnyValue}
	pickKV := func() (string, string) { return names[rng.IntN(len(names))], vals[rng.IntN(len(vals))] }
	var rs []Rule
	n := 1 + rng.IntN(30)
	for i := range n {
		for _, kind := range []Kind{Exact, Prefix} {
			r := Rule{Kind: kind, From: "/p", To: fmt.Sprintf("/to/%d", i), Status: 301, File: "t", Line: len(rs) + 1}
			if kind == Prefix {
				r.From = "/q/"
			}
			for range rng.IntN(3) {
				k, v := pickKV()
				r.Query = append(r.Query, QueryCond{Name: k, Value: v})
			}
			w := &When{}
			for range rng.IntN(3) {
				k, v := pickKV()
				w.Cookie = append(w.Cookie, KeyValue{Name: k, Value: v})
			}
			if rng.IntN(5) == 0 {
				w.Header = []KeyValue{{Name: "X-A", Value: vals[rng.IntN(len(vals))]}}
			}
			for range rng.IntN(3) {
				p, err := ParseNetwork(altNets[rng.IntN(len(altNets))])
				if err != nil {
					panic(err)
				}
				w.IP = append(w.IP, p)
			}
			if rng.IntN(5) == 0 {
				k, v := pickKV()
				w.Unless = &When{Query: []QueryCond{{Name: k, Value: v}}}
				if rng.IntN(2) == 0 {
					k, v := pickKV()
					w.Unless.Cookie = []KeyValue{{Name: k, Value: v}}
				}
			}
			if !w.Empty() {
				r.When = w
			}
			switch rng.IntN(8) {
			case 0:
				r.Shadow = true
			case 1:
				r.Active.Until = time.Unix(1, 0)
			}
			if len(r.Query) == 0 && r.When == nil && !r.Shadow && r.Active.IsZero() && i < n-1 {
				continue
			}
			rs = append(rs, r)
		}
	}
	return rs
}

// randomParams makes a query or Cookie field of names and values the
// rules use, some escaped, repeated, empty or past MaxParams.
func randomParams(rng *rand.Rand, sep string) []byte {
	parts := []string{"a=1", "a=2", "b=1", "b", "b=", "id=2", "id=1", "a%3D1", "i%64=1", "a=%32", "x=1", "=1", "a=\"1\""}
	var b []string
	n := rng.IntN(8)
	if rng.IntN(10) == 0 {
		n = MaxParams + rng.IntN(20)
	}
	for range n {
		b = append(b, parts[rng.IntN(len(parts))])
	}
	return []byte(strings.Join(b, sep))
}

// TestAltIndexAsInTurn checks the index of rules told apart by
// conditions against trying them in turn, as Lookup did without it: the
// same rule answers, with the same Vary line and shadow rule met, for
// random rule lists and requests.
func TestAltIndexAsInTurn(t *testing.T) {
	defer func(n int) { altIndexMin = n }(altIndexMin)
	rng := rand.New(rand.NewPCG(1, 2))
	type result struct {
		Hit          bool
		Line, Shadow int
		Vary         string
	}
	lookup := func(s *Set, path string, q []byte, req Request, m *Match) result {
		m.Req, m.Now = req, time.Unix(100, 0).UnixNano()
		var r result
		r.Hit = s.Lookup(nil, []byte(path), q, m)
		if r.Hit {
			r.Line = m.Rule().Line
		}
		if m.shadow != nil {
			r.Shadow = m.shadow.Line
		}
		r.Vary = m.Vary()
		return r
	}
	indexed := 0
	for round := range 300 {
		rs := randomAlts(rng)
		altIndexMin = 1 << 30
		plain, err := Compile(rs)
		if err != nil {
			continue // a duplicate drawn
		}
		altIndexMin = 1
		withIndex, err := Compile(rs)
		if err != nil {
			t.Fatal(err)
		}
		if e := withIndex.any.exact.m["/p"]; e.alts != nil && e.alts.ix != nil {
			indexed++
		}
		var m1, m2 Match
		for range 50 {
			q := randomParams(rng, "&")
			if rng.IntN(4) == 0 {
				q = nil
			}
			var req Request
			if rng.IntN(4) != 0 {
				a := &altReq{cookie: randomParams(rng, "; "), header: []byte([]string{"1", "2", ""}[rng.IntN(3)])}
				if c := altClients[rng.IntN(len(altClients))]; c != "" {
					a.client = netip.MustParseAddr(c)
				}
				req = a
			}
			for _, path := range []string{"/p", "/q/x"} {
				want := lookup(plain, path, q, req, &m1)
				got := lookup(withIndex, path, q, req, &m2)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("round %d, %s?%s, request %+v: indexed lookup differs (-in turn +indexed):\n%s\nrules: %+v", round, path, q, req, diff, rs)
				}
			}
		}
	}
	if indexed < 100 {
		t.Fatalf("only %d of the rule lists were indexed", indexed)
	}
}
