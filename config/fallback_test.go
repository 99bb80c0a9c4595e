package config_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/config"
)

// TestFallbackKeys checks that fallback and fallback_status reach the
// rules of a [[rule]], a [[map]] and a [[csv]], over [rules.defaults].
func TestFallbackKeys(t *testing.T) {
	file := writeFiles(t, map[string]string{
		"redirectd.toml": `
[rules.defaults]
fallback = true
fallback_status = [404, 410]

[[rule]]
from = "/inherits"
to = "/a"

[[rule]]
from = "/own"
to = "/b"
fallback_status = [404, 503]

[[rule]]
from = "/plain"
to = "/c"
fallback = false

[[map]]
file = "new.map"
fallback = true

[[csv]]
file = "new.csv"
fallback = false
`,
		"new.map": "/m /mapped;\n/pass \"\";\n",
		"new.csv": "/c,/csv\n",
	})
	cfg, err := config.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		From     string
		Fallback bool
		Statuses []int
	}
	var list []got
	for _, r := range cfg.Set.Rules() {
		list = append(list, got{r.From, r.Fallback, r.FallbackStatus})
	}
	want := []got{
		{"/inherits", true, []int{404, 410}},
		{"/own", true, []int{404, 503}},
		{"/plain", false, nil},
		{"/m", true, []int{404, 410}},
		{"/pass", true, []int{404, 410}},
		{"/c", false, nil},
	}
	if diff := cmp.Diff(want, list); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}
}

// TestFallbackErrors checks that a bad fallback or fallback_status is an
// error naming the file, the line and the key.
func TestFallbackErrors(t *testing.T) {
	const rule = "[[rule]]\nfrom = \"/a\"\nto = \"/b\"\n"
	for _, tc := range []struct {
		name, toml, want string
	}{
		{"not a boolean", rule + "fallback = \"yes\"\n",
			"redirectd.toml:4: [[rule]] #1: fallback: must be true or false, not a string"},
		{"status not a list", rule + "fallback = true\nfallback_status = 404\n",
			"redirectd.toml:5: [[rule]] #1: fallback_status: must be a list of upstream statuses such as [404, 410], not an integer"},
		{"empty list", rule + "fallback = true\nfallback_status = []\n",
			"redirectd.toml:5: [[rule]] #1: fallback_status: the list is empty; leave fallback_status out for the default [404]"},
		{"string in list", rule + "fallback = true\nfallback_status = [\"404\"]\n",
			"redirectd.toml:5: [[rule]] #1: fallback_status: must be a list of integers, not a list holding a string"},
		{"2xx", rule + "fallback = true\nfallback_status = [404, 200]\n",
			"redirectd.toml:5: [[rule]] #1: fallback_status: 200 is not an error status; list upstream statuses from 400 to 599"},
		{"3xx", rule + "fallback = true\nfallback_status = [302]\n",
			"redirectd.toml:5: [[rule]] #1: fallback_status: 302 is not an error status"},
		{"without fallback", rule + "fallback_status = [404]\n",
			"redirectd.toml:4: [[rule]] #1: fallback_status: given where fallback is not true"},
		{"map bad status", "[[map]]\nfile = \"x.map\"\nfallback = true\nfallback_status = [600]\n",
			"redirectd.toml:4: [[map]] #1: fallback_status: 600 is not an error status"},
		{"csv not a boolean", "[[csv]]\nfile = \"x.csv\"\nfallback = 1\n",
			"redirectd.toml:3: [csv]: fallback: must be true or false, not an integer"},
		{"defaults", "[rules.defaults]\nfallback = true\nfallback_status = [100]\n" + rule,
			"redirectd.toml:3: [rules.defaults]: fallback_status: 100 is not an error status"},
		{"misspelt", rule + "fallbacks = true\n",
			"fallbacks: unknown key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := writeFiles(t, map[string]string{"redirectd.toml": tc.toml, "x.map": "/a /b;\n", "x.csv": "/a,/b\n"})
			_, err := config.Load(file)
			if err == nil {
				t.Fatalf("loaded; want an error holding %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error:\n%v\nwant it to hold:\n%s", err, tc.want)
			}
		})
	}
}
