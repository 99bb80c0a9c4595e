package config

import (
	"fmt"
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

// TestBigMapFile loads a map file big enough to be read on a goroutine of
// its own while its rules are compiled: every rule must arrive, in order,
// and errors must keep their file order and lines.
func TestBigMapFile(t *testing.T) {
	const n = 40000 // about 1.4 MB
	entries := make([]string, n)
	for i := range entries {
		entries[i] = fmt.Sprintf("/page/%d https://example.com/new/page/%d;\n", i, i)
	}
	load := func(entries []string) (*Config, error) {
		return LoadFS(fstest.MapFS{
			"c.toml":  {Data: []byte("[[map]]\nfile = \"big.map\"\nhost = [\"a.example\", \"b.example\"]\n")},
			"big.map": {Data: []byte(strings.Join(entries, ""))},
		}, "c.toml")
	}
	cfg, err := load(entries)
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Set.Counts().Exact; got != 2*n {
		t.Fatalf("%d exact rules, want %d", got, 2*n)
	}
	var m matcher.Match
	for _, i := range []int{0, 1023, 1024, n / 2, n - 1} {
		path := fmt.Sprintf("/page/%d", i)
		if !cfg.Set.Lookup([]byte("b.example"), []byte(path), nil, &m) || string(m.AppendLocation(nil, nil)) != "https://example.com/new"+path ||
			m.Source() != fmt.Sprintf("big.map:%d", i+1) {
			t.Errorf("%s: wrong or no match", path)
		}
	}
	bad := append([]string(nil), entries...)
	bad[20000] = "/a /b /c;\n"
	bad[30000] = "/page/5 /again;\n"
	_, err = load(bad)
	want := "big.map:20001: an entry is `from to;`, this one has 3 words\n" +
		"big.map:30001: from: duplicate exact rule for \"/page/5\" (first defined at big.map:6)\n" +
		"big.map:30001: from: duplicate exact rule for \"/page/5\" (first defined at big.map:6)"
	if err == nil || err.Error() != want {
		t.Errorf("error:\n%v\nwant:\n%s", err, want)
	}
	// Past a limit the reading stops at once.
	defer func(l matcher.Limits) { packLimits = l }(packLimits)
	packLimits = matcher.Limits{HostBytes: 1 << 30, HostRules: 5000}
	if _, err = load(entries); err == nil || err.Error() != `big.map:5001: from: too many exact rules for host "a.example": there would be more than 5000, the most one host's rule table holds; split the rules over more hosts or use prefix rules` {
		t.Errorf("limit: %v", err)
	}
}
