package config_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/config"
)

// TestMissesCapacity checks [misses] capacity: its default, 0 (off), and
// the errors, which name the file, the line and the key.
func TestMissesCapacity(t *testing.T) {
	for _, tc := range []struct {
		name, toml string
		want       int
		err        string
	}{
		{"default", "", config.DefaultMissesCapacity, ""},
		{"off", "[misses]\ncapacity = 0\n", 0, ""},
		{"set", "[misses]\ncapacity = 1000\n", 1000, ""},
		{"negative", "[misses]\n\ncapacity = -1\n", 0, "redirectd.toml:3: [misses]: capacity: -1 is out of range; use 0 (no counting) to 1048576"},
		{"too big", "[misses]\ncapacity = 10000000\n", 0, "redirectd.toml:2: [misses]: capacity: 10000000 is out of range"},
		{"unknown key", "[misses]\ncapcity = 1\n", 0, "redirectd.toml:2: [misses]: capcity: unknown key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := config.Load(writeFiles(t, map[string]string{"redirectd.toml": tc.toml}))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one holding %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(config.Misses{Capacity: tc.want}, cfg.Misses); d != "" {
				t.Errorf("Misses (-want +got):\n%s", d)
			}
		})
	}
}
