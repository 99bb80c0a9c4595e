package main

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestSplitCPUs(t *testing.T) {
	tests := []struct {
		spec           string
		n              int
		server, client []int
		err            bool
	}{
		{"", 2, []int{0}, []int{1}, false},
		{"", 8, []int{0, 1, 2, 3}, []int{4, 5, 6, 7}, false},
		{"0-2,5", 8, []int{0, 1, 2, 5}, []int{3, 4, 6, 7}, false},
		{"1", 2, []int{1}, []int{0}, false},
		{"0-1", 2, nil, nil, true}, // nothing left for the load
		{"4", 2, nil, nil, true},
		{"x", 2, nil, nil, true},
		{"", 1, nil, nil, true},
	}
	for _, tt := range tests {
		server, client, err := splitCPUs(tt.spec, tt.n)
		if (err != nil) != tt.err || !cmp.Equal(server, tt.server) || !cmp.Equal(client, tt.client) {
			t.Errorf("splitCPUs(%q, %d) = %v, %v, %v; want %v, %v, error %v", tt.spec, tt.n, server, client, err, tt.server, tt.client, tt.err)
		}
	}
}

func TestSettingsFromEnv(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	s, err := settingsFromEnv(env(map[string]string{"EXACT": "500", "DURATION": "5", "RUNS": "1", "ONLY": "nginx,redirectd", "SOAK": "10m", "SCALE": "0", "QUICK": "1"}))
	if err != nil {
		t.Fatal(err)
	}
	if s.Spec.Exact != 500 || s.Duration != 5*time.Second || s.Runs != 1 || !s.Only["nginx"] || s.Only["caddy"] ||
		s.Soak != 10*time.Minute || s.Scale != nil || !s.Quick || s.Warmup != time.Second {
		t.Errorf("settings: %+v", s)
	}
	if s.Sitemap != 40000 || s.Selected != nil || !s.selected("sitemap-miss") {
		t.Errorf("sitemap defaults: %d keys, scenarios %v", s.Sitemap, s.Selected)
	}
	s, err = settingsFromEnv(env(map[string]string{"SCENARIOS": "sitemap,exact", "SITEMAP": "1000"}))
	if err != nil {
		t.Fatal(err)
	}
	if s.Sitemap != 1000 || !s.selected("sitemap-mixed") || !s.selected("exact") || s.selected("miss") || s.Scale != nil {
		t.Errorf("SCENARIOS=sitemap,exact: %d keys, scenarios %v, scale %v", s.Sitemap, s.Selected, s.Scale)
	}
	if got := selectionTag(s.Selected); got != "some" {
		t.Errorf("selectionTag = %q", got)
	}
	if got := len(selectedScenarios(s)); got != 5 {
		t.Errorf("%d scenarios selected, want 5", got)
	}
	s, _ = settingsFromEnv(env(map[string]string{"SCENARIOS": "sitemap-miss", "SCALE": "100"}))
	if !cmp.Equal(s.Scale, []int{100}) || selectionTag(s.Selected) != "sitemap" {
		t.Errorf("SCENARIOS with SCALE: scale %v, tag %q", s.Scale, selectionTag(s.Selected))
	}
	// proxy: only the forwarding scenario, on its own one-rule instance.
	s, _ = settingsFromEnv(env(map[string]string{"SCENARIOS": "proxy"}))
	if scs := selectedScenarios(s); len(scs) != 1 || scs[0].Name != "proxy" || !scs[0].Proxy || scs[0].onMain() || !scs[0].forwards() ||
		scs[0].Reqs[0].Want.Status != 200 || selectionTag(s.Selected) != "proxy" || s.Scale != nil {
		t.Errorf("SCENARIOS=proxy: %+v, tag %q, scale %v", scs, selectionTag(s.Selected), s.Scale)
	}
	// rate: the three scenarios at one offered load, RATE setting it.
	s, _ = settingsFromEnv(env(map[string]string{"SCENARIOS": "rate", "RATE": "20000"}))
	if scs := selectedScenarios(s); len(scs) != 3 || !scs[1].Fixed || scs[1].Name != "exact-rate" || scs[2].Reqs[0].Want.Status != 302 ||
		s.Rate != 20000 || selectionTag(s.Selected) != "rate" {
		t.Errorf("SCENARIOS=rate: %+v, rate %d, tag %q", scs, s.Rate, selectionTag(s.Selected))
	}
	_, err = settingsFromEnv(env(map[string]string{"RATE": "0", "EXACT": "-1", "ONLY": "apache", "DURATION": "soon", "SCENARIOS": "sitemap,hits", "SITEMAP": "2000000"}))
	for _, want := range []string{`RATE="0"`, `EXACT="-1"`, `"apache" is not a server`, `DURATION="soon"`, `"hits" is not a scenario`, `SITEMAP=2000000`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not name %s", err, want)
		}
	}
}
