package config

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/redirectd/redirectd/matcher"
)

// TestMapOverLimit checks that a map file whose exact rules pass a packed
// table's limit is refused with an error naming the file, the entry's
// line and the limit, never a crash. The limits are lowered here: the
// real ones (4 GiB of paths and targets per host) take a 4 GiB file.
func TestMapOverLimit(t *testing.T) {
	defer func(l matcher.Limits) { packLimits = l }(packLimits)
	var m strings.Builder
	for i := range 200 {
		m.WriteString("/page/")
		m.WriteString(strings.Repeat("x", i%7))
		m.WriteString(strings.Repeat("y", i/7))
		m.WriteString(" /new;\n")
	}
	fsys := fstest.MapFS{
		"c.toml":  {Data: []byte("[[map]]\nfile = \"big.map\"\nhost = \"example.com\"\n")},
		"big.map": {Data: []byte(m.String())},
	}
	for _, tt := range []struct {
		limits matcher.Limits
		want   string
	}{
		{matcher.Limits{HostBytes: 1 << 20, HostRules: 150},
			`big.map:151: from: too many exact rules for host "example.com": there would be more than 150, the most one host's rule table holds; split the rules over more hosts or use prefix rules`},
		{matcher.Limits{HostBytes: 1000, HostRules: 1000},
			`big.map:60: from: too many exact rules for host "example.com": their paths and targets would pass 1000 bytes`},
	} {
		packLimits = tt.limits
		_, err := LoadFS(fsys, "c.toml")
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) || strings.Count(err.Error(), "\n") != 0 {
			t.Errorf("error %v, want only %q...", err, tt.want)
		}
	}
}
