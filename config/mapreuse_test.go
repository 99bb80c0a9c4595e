package config_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/matcher"
)

// TestMapReuse loads a config again as a reload does, while the first
// load's Set is alive, and checks that a map file found as it was takes
// the first Set's packed table over (shared arrays, the same answers) and
// that any change to the file or to what else the config holds builds the
// table again, or adds to a copy of it, with the answers of a fresh load.
func TestMapReuse(t *testing.T) {
	const n = 300
	mapText := func(to string) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "/old/%d %s/%d;\n", i, to, i)
		}
		return b.String()
	}
	host := "example.com"
	conf := fmt.Sprintf("[[map]]\nfile = \"r.map\"\nhost = %q\n", host)
	mtime := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name   string
		conf   string // "": conf
		change func(t *testing.T, mapFile string)
		shared bool
		to     string // the target prefix after the change
		err    string
	}{
		{name: "unchanged", shared: true, to: "/new"},
		{name: "rewritten", to: "/neu", change: func(t *testing.T, f string) {
			write(t, f, mapText("/neu"))
			if err := os.Chtimes(f, mtime.Add(time.Second), mtime.Add(time.Second)); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "same size and time, other bytes", to: "/neu", change: func(t *testing.T, f string) {
			tmp := f + ".tmp"
			write(t, tmp, mapText("/neu"))
			if err := os.Chtimes(tmp, mtime, mtime); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, f); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "touched only", shared: true, to: "/new", change: func(t *testing.T, f string) {}},
		{name: "other status", conf: conf + "status = 302\n", to: "/new"},
		{name: "a later rule of the host", conf: conf + "\n[[rule]]\nfrom = \"/extra\"\nto = \"/x\"\nhost = \"example.com\"\n", to: "/new"},
		{name: "a later duplicate", conf: conf + "\n[[rule]]\nfrom = \"/old/7\"\nto = \"/x\"\nhost = \"example.com\"\n",
			err: "duplicate exact rule for \"/old/7\""},
		{name: "an earlier rule of the host", conf: "[[rule]]\nfrom = \"/extra\"\nto = \"/x\"\nhost = \"example.com\"\n\n" + conf, to: "/new"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := writeFiles(t, map[string]string{"redirectd.toml": conf, "r.map": mapText("/new")})
			mapFile := filepath.Join(filepath.Dir(file), "r.map")
			if err := os.Chtimes(mapFile, mtime, mtime); err != nil {
				t.Fatal(err)
			}
			first, err := config.Load(file)
			if err != nil {
				t.Fatal(err)
			}
			if tt.change != nil {
				tt.change(t, mapFile)
			}
			if tt.conf != "" {
				write(t, file, tt.conf)
			}
			second, err := config.Load(file)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one with %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := second.Set.SharesPacked(first.Set, host); got != tt.shared {
				t.Errorf("table shared: %v, want %v", got, tt.shared)
			}
			rules, written := freshLoad(t, file)
			if diff := cmp.Diff(rules, second.Set.Rules()); diff != "" {
				t.Errorf("rules against a fresh load (-fresh +got):\n%s", diff)
			}
			if diff := cmp.Diff(written, second.Written); diff != "" {
				t.Errorf("written counts (-fresh +got):\n%s", diff)
			}
			for i := range n {
				want := fmt.Sprintf("%s/%d", tt.to, i)
				if got := location(second.Set, host, fmt.Sprintf("/old/%d", i)); got != want {
					t.Fatalf("/old/%d: %q, want %q", i, got, want)
				}
				// The first Set answers as before: nothing it reads
				// was written.
				if got := location(first.Set, host, fmt.Sprintf("/old/%d", i)); got != fmt.Sprintf("/new/%d", i) {
					t.Fatalf("first Set, /old/%d: %q", i, got)
				}
			}
			if strings.Contains(tt.conf, "/extra") {
				if got := location(second.Set, host, "/extra"); got != "/x" {
					t.Errorf("/extra: %q, want /x", got)
				}
				if got := location(first.Set, host, "/extra"); got != "" {
					t.Errorf("first Set, /extra: %q, want a miss", got)
				}
			}
		})
	}
}

// freshLoad loads file from a copy of its folder, so that nothing of an
// earlier load is taken over, and gives its rules as the original's
// files would name them, and its counts.
func freshLoad(t *testing.T, file string) ([]matcher.Rule, matcher.Counts) {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"redirectd.toml", "r.map"} {
		data, err := os.ReadFile(filepath.Join(filepath.Dir(file), name))
		if err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(dir, name), string(data))
	}
	cfg, err := config.Load(filepath.Join(dir, "redirectd.toml"))
	if err != nil {
		t.Fatal(err)
	}
	rules := cfg.Set.Rules()
	for i := range rules {
		rules[i].File = strings.Replace(rules[i].File, dir, filepath.Dir(file), 1)
	}
	return rules, cfg.Written
}

func write(t *testing.T, name, text string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func location(s *matcher.Set, host, path string) string {
	var m matcher.Match
	if !s.Lookup([]byte(host), []byte(path), nil, &m) {
		return ""
	}
	return string(m.AppendLocation(nil, nil))
}
