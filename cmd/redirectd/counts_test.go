package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// importedCount reads the rule count from an import's report: "wrote
// FILES: N rules" or, for csv, "FILE: wrote N rules"; importedLocations
// the nginx import's count of [[location]] tables.
var (
	importedCount     = regexp.MustCompile(`(?m)wrote [^\n]*?(\d+) rules?\b`)
	importedLocations = regexp.MustCompile(`(?m)^\s*(\d+)  \[\[location\]\]$`)
)

// checkedLocations runs check -format json on file and returns its count
// of [[location]] tables, nested ones included.
func checkedLocations(t *testing.T, file string) int {
	t.Helper()
	code, out, errs := runCmd("check", "-format", "json", "-config", file)
	var rep checkReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 && len(rep.Errors) > 0 {
		t.Fatalf("check %s: exit %d, %v\n%s\n%s", file, code, err, out, errs)
	}
	return rep.Locations
}

// checkedCount runs check -format json on file and returns its count of
// rules as written and once per host.
func checkedCount(t *testing.T, file string) (written, perHost int) {
	t.Helper()
	code, out, errs := runCmd("check", "-format", "json", "-config", file)
	var rep checkReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.Counts == nil || code != 0 && len(rep.Errors) > 0 {
		t.Fatalf("check %s: exit %d, %v\n%s\n%s", file, code, err, out, errs)
	}
	c, h := rep.Counts, rep.PerHost
	return c.Exact + c.Prefix + c.Regex, h.Exact + h.Prefix + h.Regex
}

// TestImportCountsAsCheck: the count an import reports is the count check
// gives for the config it wrote: rules for a Netlify and a CSV file,
// [[location]] tables for nginx sites whose servers have several names
// and for every nginx import case of config/nginx/testdata. (A rule
// listed for several hosts is counted once: TestCountGrammar.)
func TestImportCountsAsCheck(t *testing.T) {
	t.Parallel()
	type input struct {
		name  string
		kind  string
		files map[string]string // the first named is imported
		first string
	}
	inputs := []input{{
		name: "rules and a map for three hosts and one", kind: "nginx", first: "nginx.conf",
		files: map[string]string{"nginx.conf": `map $uri $new {
    /a /x;
    /b /y;
    /c /z;
}
server {
    listen 80;
    server_name old.example www.old.example other.example;
    if ($new) { return 301 $new; }
    location = /about { return 301 https://new.example/about-us; }
    location /blog/ { return 301 https://blog.example$request_uri; }
    rewrite ^/p/(\d+)$ /post/$1 permanent;
}
server {
    listen 80;
    server_name second.example;
    if ($new) { return 301 $new; }
    location = /about { return 301 https://new.example/about; }
}
`}}, {
		name: "netlify", kind: "netlify", first: "_redirects",
		files: map[string]string{"_redirects": "/a /b 301\n/c /d 302\n/e/* /f/:splat 301\n"},
	}, {
		name: "csv", kind: "csv", first: "r.csv",
		files: map[string]string{"r.csv": "source,target\n/a,/b\n/c,/d\n"},
	}}
	cases, _ := filepath.Glob("../../config/nginx/testdata/import/*.txt")
	if len(cases) == 0 {
		t.Fatal("no nginx import cases in config/nginx/testdata/import")
	}
	for _, c := range cases {
		b, err := os.ReadFile(c)
		if err != nil {
			t.Fatal(err)
		}
		in := input{name: "nginx " + filepath.Base(c), kind: "nginx", files: map[string]string{}}
		var name string
		for _, line := range strings.SplitAfter(string(b), "\n") {
			if m := regexp.MustCompile(`^-- (\S+) --\n$`).FindStringSubmatch(line); m != nil {
				name = m[1]
				if !strings.HasPrefix(name, "out/") && in.first == "" {
					in.first = name
				}
				continue
			}
			if name != "" && !strings.HasPrefix(name, "out/") {
				in.files[name] += line
			}
		}
		inputs = append(inputs, in)
	}
	for _, in := range inputs {
		t.Run(in.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, text := range in.files {
				p := filepath.Join(dir, name)
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			out := filepath.Join(dir, "out")
			os.Mkdir(out, 0o755)
			config := filepath.Join(out, "redirectd.toml")
			args := []string{"import", in.kind, "-o", config, filepath.Join(dir, in.first)}
			if in.kind == "nginx" {
				// The tables, counted as check counts [[location]]s.
				args = []string{"import", "nginx", "-o", out, filepath.Join(dir, in.first)}
				code, _, report := runCmd(args...)
				if code > 1 || !strings.HasPrefix(report, "wrote ") {
					t.Fatalf("import: exit %d:\n%s", code, report)
				}
				imported := 0
				if m := importedLocations.FindStringSubmatch(report); m != nil {
					imported, _ = strconv.Atoi(m[1])
				}
				if got := checkedLocations(t, config); imported != got {
					t.Errorf("import reports %d [[location]] tables, check %d for the config it wrote\nimport:\n%s", imported, got, report)
				}
				return
			}
			code, _, report := runCmd(args...)
			m := importedCount.FindStringSubmatch(report)
			if code > 1 || m == nil {
				t.Skipf("import: exit %d, no count (a case the import refuses):\n%s", code, report)
			}
			imported, _ := strconv.Atoi(m[1])
			written, _ := checkedCount(t, config)
			if imported != written {
				t.Errorf("import reports %d rules, check %d for the config it wrote\nimport:\n%s", imported, written, report)
			}
		})
	}
}

// TestCountGrammar: counts of one are singular in check's summary, and
// the per-host count is named when it differs. (The case runner's summary:
// internal/casetest's TestSummaryGrammar.)
func TestCountGrammar(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "r.toml")
	os.WriteFile(file, []byte("[[rule]]\nfrom = \"/a\"\nto = \"/b\"\nhost = [\"a.example\", \"b.example\"]\n\n[[map]]\nfile = \"r.map\"\ninvalid = \"skip\"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "r.map"), []byte("/c /d;\n/e\n"), 0o644)
	code, out, errs := runCmd("check", "-config", file)
	want := file + ": ok: 2 rules (2 exact, 0 prefix, 0 regex; 3 counted once per host), 1 warning, loaded and compiled in "
	if code != 0 || !strings.HasPrefix(out, want) {
		t.Errorf("check: exit %d\n%s\nwant it to start %q\n%s", code, out, want, errs)
	}
}
