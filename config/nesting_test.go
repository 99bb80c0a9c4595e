package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/google/go-cmp/cmp"
)

func TestCheckNesting(t *testing.T) {
	deep := MaxNesting + 1
	tests := []struct {
		name string
		src  string
		line int // 0: accepted
	}{
		{"rules", "[server]\nlisten = \":80\"\n\n[[rule]]\nfrom = \"/a\"\nto = \"/b\"\nwhen = { unless = { header = { X = \"*\" } } }\n", 0},
		{"floats are not keys", "a = [" + strings.Repeat("1.5, ", 200) + "2.5]\n", 0},
		{"dots in strings", "a = \"" + strings.Repeat(".", 200) + "\"\n\"" + strings.Repeat(".", 200) + "\" = 1\n", 0},
		{"brackets in strings and comments", "a = '" + strings.Repeat("[", 200) + "'\n# " + strings.Repeat("{", 200) + "\nb = \"\"\"\n" + strings.Repeat("[", 200) + "\"\"\"\n", 0},
		{"at the limit", "a = " + strings.Repeat("[", MaxNesting) + strings.Repeat("]", MaxNesting) + "\n", 0},
		{"arrays", "\n\na = " + strings.Repeat("[", deep) + strings.Repeat("]", deep) + "\n", 3},
		{"inline tables", "a = " + strings.Repeat("{b = ", deep) + "1" + strings.Repeat("}", deep) + "\n", 1},
		{"dotted key", "x = 1\n" + strings.Repeat("a.", deep) + "b = 1\n", 2},
		{"header", "[" + strings.Repeat("a.", deep) + "b]\n", 1},
		{"header and key", "[" + strings.Repeat("a.", MaxNesting/2) + "b]\n" + strings.Repeat("c.", MaxNesting/2) + "d = 1\n", 2},
		{"keys in inline tables", "a = {" + strings.Repeat("b.", deep) + "c = 1}\n", 1},
		{"array over lines", "a = [\n" + strings.Repeat("[\n", deep) + "]\n", MaxNesting + 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckNesting("r.toml", []byte(tc.src))
			got := 0
			var e *Error
			if errors.As(err, &e) {
				got = e.Line
			} else if err != nil {
				t.Fatalf("not a config error: %v", err)
			}
			if diff := cmp.Diff(tc.line, got); diff != "" {
				t.Errorf("line of the error (-want +got):\n%s\n%v", diff, err)
			}
		})
	}
}

// TestLoadDeepNesting loads a rule set nesting two million arrays (4 MB),
// which ended the process with a stack overflow in the TOML decoder. It is
// refused with the file and line, whatever the loader: a local config and
// a rule set from a source.
func TestLoadDeepNesting(t *testing.T) {
	dir := t.TempDir()
	const n = 2_000_000
	src := "[[rule]]\nfrom = \"/a\"\nto = \"/b\"\nx = " + strings.Repeat("[", n) + strings.Repeat("]", n) + "\n"
	if err := os.WriteFile(filepath.Join(dir, "redirectd.toml"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	want := "redirectd.toml:4: nests deeper than 64"
	if _, err := LoadRuleSet(dir, "redirectd.toml"); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("LoadRuleSet: %v, want %q", err, want)
	}
	if _, err := Load(filepath.Join(dir, "redirectd.toml")); err == nil || !strings.Contains(err.Error(), want[len("redirectd.toml"):]) {
		t.Errorf("Load: %v, want %q", err, want)
	}
}

// FuzzCheckNesting holds CheckNesting to its promise: whatever it accepts
// that the decoder reads decodes to no deeper than MaxNesting levels.
func FuzzCheckNesting(f *testing.F) {
	for _, s := range []string{
		"a = [[1], [2, [3]]]\n",
		"[a.b.c]\nd.e = {f = [1, {g.h = 2}]}\n",
		"[[a.b]]\nc = '''x.y'''\n\"d.e\".f = 1\n",
		"a = {b = {c = 1}, d.e.f = [[[1]]]}\n",
		"a = [\n[1],\n# [\n[2]]\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 4096 || CheckNesting("f.toml", []byte(src)) != nil {
			return
		}
		var v map[string]any
		if _, err := toml.Decode(src, &v); err != nil {
			return
		}
		if d := nestDepth(v); d > MaxNesting {
			t.Fatalf("accepted, but decodes %d levels deep", d)
		}
	})
}

// nestDepth returns how many tables and arrays nest in v, v included.
func nestDepth(v any) int {
	d := 0
	switch v := v.(type) {
	case map[string]any:
		for _, e := range v {
			d = max(d, nestDepth(e))
		}
	case []map[string]any:
		for _, e := range v {
			d = max(d, nestDepth(e))
		}
	case []any:
		for _, e := range v {
			d = max(d, nestDepth(e))
		}
	default:
		return 0
	}
	return d + 1
}

// TestRegexBudget loads rules whose regexes compile to more programs,
// instructions or bytes than [rules] allows: the load fails at the rule past the
// budget, with its file and line, for a map file as for [[rule]]s.
func TestRegexBudget(t *testing.T) {
	dir := t.TempDir()
	var m strings.Builder
	for i := range 60 {
		fmt.Fprintf(&m, "\"~^/a%d/(\\d+)-([a-z]+)$\" /b/$1;\n", i)
	}
	if err := os.WriteFile(filepath.Join(dir, "re.map"), []byte(m.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		rules, want string
	}{
		{"", ""},
		{"max_regexes = 50\n", "re.map:51: from: more than 50 regexes that compile to programs"},
		{"max_regex_instructions = 300\n", "the rule set's regexes compile to more than 300 instructions"},
		{"max_regexes = -1\n", "redirectd.toml:2: [rules]: max_regexes: -1: give a positive number"},
		// 60 small programs charge about 150 KB: 100 KB is passed
		// about two thirds into the map.
		{"max_rules_bytes = 100000\n", "re.map:3"},
		{"max_rules_bytes = 100000\n", "from: the rule set's rules compile to more than 100000 bytes (max_rules_bytes"},
		{"max_rules_bytes = -5\n", "redirectd.toml:2: [rules]: max_rules_bytes: -5: give a positive number"},
	} {
		cfg := "[rules]\n" + tc.rules + "\n[[map]]\nfile = \"re.map\"\nstatus = 301\n"
		if err := os.WriteFile(filepath.Join(dir, "redirectd.toml"), []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(filepath.Join(dir, "redirectd.toml"))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q: %v", tc.rules, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: %v, want %q", tc.rules, err, tc.want)
		}
	}
	// A rule set from a source is bounded by the node's [rules].
	if err := os.WriteFile(filepath.Join(dir, "redirectd.toml"), []byte("[[map]]\nfile = \"re.map\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadRuleSetFor(RulesReload{MaxRegexes: 10}, dir, "redirectd.toml"); err == nil || !strings.Contains(err.Error(), "re.map:11: from: more than 10 regexes") {
		t.Errorf("LoadRuleSetFor: %v", err)
	}
}
