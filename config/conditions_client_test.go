package config_test

import (
	"net/netip"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/matcher"
)

// TestClientConditionsLoad reads when.ip, when.method and when.sample,
// in when and in when.unless, a single string as a list of one.
func TestClientConditionsLoad(t *testing.T) {
	file := writeFiles(t, map[string]string{"redirectd.toml": `
[[rule]]
from = "/a"
to = "/b"
when = { ip = ["203.0.113.0/24", "2001:db8::/32", "198.51.100.7"], method = ["GET", "HEAD"], sample = 0.1 }

[[rule]]
from = "/c"
to = "/d"
when = { ip = "10.0.0.0/8", sample = 1, unless = { method = "POST", ip = "10.1.0.0/16", sample = 0.5 } }
`})
	cfg, err := config.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	p := netip.MustParsePrefix
	want := []*matcher.When{
		{IP: []netip.Prefix{p("203.0.113.0/24"), p("2001:db8::/32"), p("198.51.100.7/32")}, Method: []string{"GET", "HEAD"}, Sample: 0.1},
		{IP: []netip.Prefix{p("10.0.0.0/8")}, Sample: 1, Unless: &matcher.When{IP: []netip.Prefix{p("10.1.0.0/16")}, Method: []string{"POST"}, Sample: 0.5}},
	}
	var got []*matcher.When
	for _, r := range cfg.Set.Rules() {
		got = append(got, r.When)
	}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b netip.Prefix) bool { return a == b })); diff != "" {
		t.Errorf("when (-want +got)\n%s", diff)
	}
}

// TestClientConditionErrors checks that a bad when.ip, when.method or
// when.sample names the file, the line of when and the key.
func TestClientConditionErrors(t *testing.T) {
	const rule = "[[rule]]\nfrom = \"/a\"\nto = \"/b\"\n"
	tests := []struct{ name, toml, want string }{
		{"ip not a network", rule + "when = { ip = \"example.com\" }\n", `redirectd.toml:4: [[rule]] #1: when.ip: "example.com" is not an address or a network`},
		{"ip bad prefix", rule + "when = { ip = [\"10.0.0.0/33\"] }\n", `redirectd.toml:4: [[rule]] #1: when.ip: "10.0.0.0/33" is not a network`},
		{"ip host bits", rule + "when = { ip = [\"203.0.113.7/24\"] }\n", `redirectd.toml:4: [[rule]] #1: when.ip: "203.0.113.7/24" has bits set past its length; write "203.0.113.0/24"`},
		{"ip zone", rule + "when = { ip = [\"fe80::1%eth0\"] }\n", `redirectd.toml:4: [[rule]] #1: when.ip: "fe80::1%eth0" is not an address or a network`},
		{"ip mapped", rule + "when = { ip = [\"::ffff:10.0.0.0/104\"] }\n", `redirectd.toml:4: [[rule]] #1: when.ip: "::ffff:10.0.0.0/104" is an IPv4-mapped IPv6 form`},
		{"ip not strings", rule + "when = { ip = [1] }\n", `redirectd.toml:4: [[rule]] #1: when.ip: must be a list of strings, not a list holding an integer`},
		{"ip empty list", rule + "when = { ip = [] }\n", `redirectd.toml:4: [[rule]] #1: when.ip: the list is empty`},
		{"method lower case", rule + "when = { method = [\"get\"] }\n", `redirectd.toml:4: [[rule]] #1: when.method: "get" is not "GET": methods are case-sensitive`},
		{"method not a token", rule + "when = { method = \"G T\" }\n", `redirectd.toml:4: [[rule]] #1: when.method: "G T" is not a method`},
		{"method a number", rule + "when = { method = 1 }\n", `redirectd.toml:4: [[rule]] #1: when.method: must be a string or a list of strings, not an integer`},
		{"sample zero", rule + "when = { sample = 0 }\n", `redirectd.toml:4: [[rule]] #1: when.sample: 0 is not a share of clients`},
		{"sample above one", rule + "when = { sample = 1.5 }\n", `redirectd.toml:4: [[rule]] #1: when.sample: 1.5 is not a share of clients`},
		{"sample negative", rule + "when = { sample = -0.1 }\n", `redirectd.toml:4: [[rule]] #1: when.sample: -0.1 is not a share of clients`},
		{"sample nan", rule + "when = { sample = nan }\n", `redirectd.toml:4: [[rule]] #1: when.sample: NaN is not a share of clients`},
		{"sample a string", rule + "when = { sample = \"10%\" }\n", `redirectd.toml:4: [[rule]] #1: when.sample: must be a share of clients between 0 and 1, such as 0.1, not a string`},
		{"unless bad ip", rule + "\nwhen = { unless = { ip = \"x\" } }\n", `redirectd.toml:5: [[rule]] #1: when.unless.ip: "x" is not an address or a network`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := writeFiles(t, map[string]string{"redirectd.toml": tt.toml})
			_, err := config.Load(file)
			if err == nil {
				t.Fatal("Load succeeded, want an error")
			}
			msg := strings.ReplaceAll(err.Error(), filepath.Dir(file)+string(filepath.Separator), "")
			if !strings.Contains(msg, tt.want) {
				t.Errorf("error %q\ndoes not contain %q", msg, tt.want)
			}
		})
	}
}
