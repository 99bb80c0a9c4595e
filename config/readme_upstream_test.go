package config_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/internal/testutil"
)

// TestUpstreamGroupsReadmeExample loads the top-level README's upstream
// groups example, so that what a newcomer copies loads as shown.
func TestUpstreamGroupsReadmeExample(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	block := testutil.FencedBlock(t, string(readme), "<!-- README example: upstream-groups", "toml")
	file := filepath.Join(t.TempDir(), "redirectd.toml")
	if err := os.WriteFile(file, []byte(block), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(file)
	if err != nil {
		t.Fatalf("the README's example does not load: %v", err)
	}
	type route struct{ Host, Prefix, Upstream string }
	var got []route
	for _, r := range cfg.Routes {
		got = append(got, route{r.Host, r.Prefix, r.Upstream})
	}
	want := []route{{"www.example.com", "/blog/", "blog"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("routes (-want +got):\n%s", d)
	}
	if _, ok := cfg.Upstreams["blog"]; !ok || cfg.Upstream == nil {
		t.Errorf("groups: default %v, blog %v; want both", cfg.Upstream != nil, ok)
	}
}
