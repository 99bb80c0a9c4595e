package config_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/matcher"
)

// TestWindowKeys checks that active and mode reach the rules of a
// [[rule]], a [[map]] and a [[csv]], datetimes or RFC 3339 strings alike.
func TestWindowKeys(t *testing.T) {
	file := writeFiles(t, map[string]string{
		"redirectd.toml": `
[[rule]]
from = "/sale"
to = "/winter"
active = { from = 2026-12-01T00:00:00Z, until = 2027-01-07T01:00:00+01:00 }

[[rule]]
from = "/try"
to = "/new"
mode = "shadow"

[[map]]
file = "new.map"
mode = "shadow"
active = { until = "2027-01-07T00:00:00Z" }

[[csv]]
file = "new.csv"
active = { from = 2026-12-24T00:00:00Z }
mode = "live"
`,
		"new.map": "/m /mapped;\n",
		"new.csv": "/c,/csv\n",
	})
	cfg, err := config.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		From   string
		Active matcher.Window
		Shadow bool
	}
	var list []got
	for _, r := range cfg.Set.Rules() {
		list = append(list, got{r.From, r.Active, r.Shadow})
	}
	d := func(m time.Month, day int) time.Time {
		return time.Date(2026+int(m/12), m%12, day, 0, 0, 0, 0, time.UTC)
	}
	want := []got{
		{"/sale", matcher.Window{From: d(12, 1), Until: d(13, 7)}, false},
		{"/try", matcher.Window{}, true},
		{"/m", matcher.Window{Until: d(13, 7)}, true},
		{"/c", matcher.Window{From: d(12, 24)}, false},
	}
	if diff := cmp.Diff(want, list); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}
}

// TestWindowErrors checks that a bad window or mode is an error naming the
// file, the line and the key.
func TestWindowErrors(t *testing.T) {
	const rule = "[[rule]]\nfrom = \"/a\"\nto = \"/b\"\n"
	for _, tc := range []struct {
		name, toml, want string
	}{
		{"from after until", rule + "active = { from = 2027-01-07T00:00:00Z, until = 2026-12-01T00:00:00Z }\n",
			"redirectd.toml:4: [[rule]] #1: active: from 2027-01-07T00:00:00Z is not before until 2026-12-01T00:00:00Z"},
		{"local datetime", rule + "active = { from = 2026-12-01T00:00:00 }\n",
			"redirectd.toml:4: [[rule]] #1: active: from = 2026-12-01 has no UTC offset; write it with one, such as 2026-12-01T00:00:00Z"},
		{"local date", rule + "active = { until = 2026-12-01 }\n",
			"redirectd.toml:4: [[rule]] #1: active: until = 2026-12-01 has no UTC offset"},
		{"not a table", rule + "active = \"always\"\n",
			"redirectd.toml:4: [[rule]] #1: active: must be a table such as { from = 2026-12-01T00:00:00Z"},
		{"empty table", rule + "active = {}\n",
			"redirectd.toml:4: [[rule]] #1: active: the table is empty"},
		{"bad string", rule + "active = { from = \"tomorrow\" }\n",
			"redirectd.toml:4: [[rule]] #1: active: from = \"tomorrow\" is not an RFC 3339 time"},
		{"number", rule + "active = { until = 2027 }\n",
			"redirectd.toml:4: [[rule]] #1: active: until must be a datetime such as 2026-12-01T00:00:00Z, not an integer"},
		{"unknown key", rule + "active = { since = 2026-12-01T00:00:00Z }\n",
			"since: unknown key; known keys here: from, until"},
		{"bad mode", rule + "mode = \"dark\"\n",
			"redirectd.toml:4: [[rule]] #1: mode: \"dark\" is not a mode; use \"live\""},
		{"map bad mode", "[[map]]\nfile = \"x.map\"\nmode = 1\n",
			"redirectd.toml:3: [[map]] #1: mode: must be a string"},
		{"csv from after until", "[[csv]]\nfile = \"x.csv\"\nactive = { from = 2027-01-07T00:00:00Z, until = 2027-01-07T00:00:00Z }\n",
			"redirectd.toml:3: [csv]: active: from 2027-01-07T00:00:00Z is not before until"},
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
