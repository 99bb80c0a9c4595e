package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// snakeKey is a key as the JSON outputs write them (check, /versions,
// /rules, baseline): lower case words joined by '_'.
var snakeKey = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// TestCheckJSONKeys: every key of `check -format json`, the rule counts'
// included, is snake_case as the rest of the JSON outputs are, and the
// counts say the rules as written and once per host.
func TestCheckJSONKeys(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "r.toml")
	os.WriteFile(file, []byte("[[rule]]\nfrom = \"/a\"\nto = \"/b\"\nhost = [\"a.example\", \"b.example\"]\n\n"+
		"[[rule]]\nmatch = \"prefix\"\nfrom = \"/docs/\"\nto = \"/d/\"\n\n"+
		"[[rule]]\nmatch = \"regex\"\nfrom = '^/r/(\\d+)$'\nto = \"/s/$1\"\n"), 0o644)
	code, out, errs := runCmd("check", "-format", "json", "-config", file)
	if code != 0 {
		t.Fatalf("check: exit %d\n%s\n%s", code, out, errs)
	}
	var doc any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("check -format json: %v\n%s", err, out)
	}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if !snakeKey.MatchString(k) {
					t.Errorf("key %s%q is not snake_case", path, k)
				}
				walk(path+k+".", x)
			}
		case []any:
			for _, x := range v {
				walk(path, x)
			}
		}
	}
	walk("", doc)
	var rep struct {
		Counts  map[string]int `json:"counts"`
		PerHost map[string]int `json:"per_host"`
	}
	json.Unmarshal([]byte(out), &rep)
	if diff := cmp.Diff(map[string]int{"exact": 1, "prefix": 1, "regex": 1}, rep.Counts); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]int{"exact": 2, "prefix": 1, "regex": 1}, rep.PerHost); diff != "" {
		t.Errorf("per_host (-want +got):\n%s", diff)
	}
}
