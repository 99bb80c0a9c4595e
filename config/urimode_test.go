package config_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/matcher"
)

// TestURINginx loads a config whose rules compare nginx's $uri: a map's
// exact keys, a prefix rule and a regex rule all see the normalised path,
// request_uri rules the target as sent, and merge_slashes = false keeps
// "//".
func TestURINginx(t *testing.T) {
	for _, keep := range []bool{false, true} {
		defaults := "[rules.defaults]\nuri = \"nginx\"\n"
		if keep {
			defaults += "merge_slashes = false\n"
		}
		file := writeFiles(t, map[string]string{
			"redirectd.toml": defaults + `
[[map]]
file = "site.map"

[[rule]]
match = "prefix"
from = "/js/"
to = "/assets/js/"

[[rule]]
match = "regex"
from = '^/docs/(.*)$'
to = "/d/$1"

[[rule]]
from = "/raw%2Fx"
to = "/raw"
request_uri = true
`,
			"site.map": "/old /new;\n/a%20b /space;\n",
		})
		cfg, err := config.Load(file)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := cfg.Set.URI(), (matcher.URI{Nginx: true, KeepSlashes: keep}); got != want {
			t.Errorf("Set.URI() = %+v, want %+v", got, want)
		}
		var m matcher.Match
		got := map[string]string{}
		for _, p := range []string{"//old", "/x/../old", "/a b", "/a%20b", "/js//x", "/js%2Fx", "/docs/a+b", "/docs/a%20b", "/raw%2Fx", "/raw/x", "/a/../../x"} {
			switch {
			case cfg.Set.Lookup(nil, []byte(p), nil, &m):
				got[p] = string(m.AppendLocation(nil, nil))
			case m.BadURI():
				got[p] = "400"
			}
		}
		want := map[string]string{"//old": "/new", "/x/../old": "/new", "/a b": "/space", "/a%20b": "/space", "/js//x": "/assets/js/x",
			"/js%2Fx": "/assets/js/x", "/docs/a+b": "/d/a+b", "/docs/a%20b": "/d/a%20b", "/raw%2Fx": "/raw", "/a/../../x": "400"}
		if keep {
			delete(want, "//old")
			want["/js//x"] = "/assets/js//x"
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("merge_slashes off %v: answers (-want +got):\n%s", keep, diff)
		}
	}
}

func TestURINginxErrors(t *testing.T) {
	for _, tt := range []struct{ text, want string }{
		{"[rules.defaults]\nuri = \"decoded\"\n", "redirectd.toml:2: [rules.defaults]: uri: \"decoded\" is not a choice"},
		{"[rules.defaults]\nuri = 1\n", "redirectd.toml:2: [rules.defaults]: uri: must be a string"},
		{"[rules.defaults]\nmerge_slashes = false\n", "redirectd.toml:2: [rules.defaults]: merge_slashes: applies to nginx's $uri only"},
		{"[rules.defaults]\nuri = \"nginx\"\nmerge_slashes = \"off\"\n", "redirectd.toml:3: [rules.defaults]: merge_slashes: must be true or false"},
		{"[rules.defaults]\nuri = \"nginx\"\n[[rule]]\nmatch = \"prefix\"\nfrom = \"/../x\"\nto = \"/y\"\n", "redirectd.toml:5: [[rule]] #1: from: \"/../x\" is a path nginx answers 400"},
		{"[[rule]]\nmatch = \"regex\"\nfrom = \"^/a\"\nto = \"/b\"\npath = \"decoded\"\n", "set uri = \"nginx\" in [rules.defaults]"},
	} {
		_, err := config.Load(writeFiles(t, map[string]string{"redirectd.toml": tt.text}))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: error %v, want %q", tt.text, err, tt.want)
		}
	}
}

// TestURINginxRuleSet: a rule set from a source says uri = "nginx" in
// its own [rules.defaults], as a node's config would.
func TestURINginxRuleSet(t *testing.T) {
	file := writeFiles(t, map[string]string{"redirectd.toml": "[rules.defaults]\nuri = \"nginx\"\n[[rule]]\nfrom = \"/old\"\nto = \"/new\"\n"})
	cfg, err := config.LoadRuleSet(filepath.Dir(file), filepath.Base(file))
	if err != nil {
		t.Fatal(err)
	}
	var m matcher.Match
	if !cfg.Set.URI().Nginx || !cfg.Set.Lookup(nil, []byte("//x/../old"), nil, &m) {
		t.Errorf("rule set: URI %+v, and //x/../old does not find /old", cfg.Set.URI())
	}
}
