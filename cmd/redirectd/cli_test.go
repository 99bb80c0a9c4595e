package main

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCommandLine runs the built binary over every subcommand: 0 for
// success and -h, 1 for an input that does not load or findings, 2 for a
// usage error (an unknown flag, subcommand or import kind, a missing or
// stray argument), each error naming what is wrong; flags after the
// arguments work.
func TestCommandLine(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	bad := write("bad.toml", "[[rule]]\nfrom = \"/a\"\nto = \"/b\"\nstatus = 200\n")
	loop := write("loop.toml", "[[rule]]\nfrom = \"/x\"\nto = \"/y\"\n\n[[rule]]\nfrom = \"/y\"\nto = \"/x\"\n")
	csv := write("r.csv", "source,target\n/a,/b\n")
	missing := filepath.Join(dir, "missing")
	ex, site, cases := exampleFile, "testdata/testcmd/site.toml", "testdata/testcmd/pass.cases"
	type tc struct {
		name   string
		args   []string
		code   int
		stderr string // a part of stderr; "" for any
	}
	tests := []tc{
		{"no command", nil, 2, "usage:"},
		{"unknown command", []string{"frob"}, 2, `unknown command "frob"`},
		{"help", []string{"help"}, 0, ""},
		{"version", []string{"version"}, 0, ""},
		{"version stray", []string{"version", "x"}, 2, `unexpected argument "x"`},

		{"serve a config that does not load", []string{"serve", "-config", bad}, 1, bad + ":4:"},
		{"serve stray", []string{"serve", "r.toml"}, 2, `unexpected argument "r.toml"`},

		{"check", []string{"check", "-config", ex}, 0, ""},
		{"check findings", []string{"check", "-config", loop}, 1, "redirect loop"},
		{"check a config that does not load", []string{"check", "-config", bad}, 1, bad + ":4:"},
		{"check a missing config", []string{"check", "-config", missing}, 1, "cannot read config"},
		{"check without -config", []string{"check"}, 2, "-config FILE is required"},
		{"check stray", []string{"check", "-config", ex, "extra"}, 2, `unexpected argument "extra"`},
		{"check -format", []string{"check", "-config", ex, "-format", "json"}, 0, ""},
		{"check bad -format", []string{"check", "-config", ex, "-format", "yaml"}, 2, `-format "yaml": use text or json`},
		{"check -json and -format text", []string{"check", "-config", ex, "-json", "-format", "text"}, 2, "-json is -format json"},
		{"check -baseline", []string{"check", "-baseline", ex, "-config", ex}, 0, ""},
		{"check -baseline, new config does not load", []string{"check", "-baseline", ex, "-config", bad}, 1, bad + ":4:"},
		{"check -baseline, old config does not load", []string{"check", "-baseline", bad, "-config", ex}, 1, bad + ":4:"},
		{"check -baseline -fix-chains", []string{"check", "-baseline", ex, "-config", ex, "-fix-chains"}, 2, "-fix-chains"},
		{"check -baseline bad -format", []string{"check", "-baseline", ex, "-config", ex, "-format", "junit"}, 2, `-format "junit"`},

		{"explain", []string{"explain", "-config", ex, "/old"}, 0, ""},
		{"explain, flags after the URL", []string{"explain", "/old", "-config", ex, "-at", "2026-01-01T00:00:00Z"}, 0, ""},
		{"explain two URLs", []string{"explain", "-config", ex, "/a", "/b"}, 2, `unexpected argument "/b": it takes one URL`},
		{"explain no URL", []string{"explain", "-config", ex}, 2, "give one URL"},
		{"explain a config that does not load", []string{"explain", "-config", bad, "/a"}, 1, bad + ":4:"},

		{"test", []string{"test", "-config", site, cases}, 0, ""},
		{"test, flags after the cases", []string{"test", cases, "-config", site, "-format", "text"}, 0, ""},
		{"test a config that does not load", []string{"test", "-config", bad, cases}, 1, bad + ":4:"},
		{"test missing cases", []string{"test", "-config", site, missing}, 1, "no such file"},
		{"test no cases", []string{"test", "-config", site}, 2, "give one or more case files"},
		{"test bad -format", []string{"test", "-config", site, "-format", "tap", cases}, 2, `-format "tap": use text or junit`},

		{"import without a kind", []string{"import"}, 2, "give the kind of file first"},
		{"import unknown kind", []string{"import", "iis", "x.conf"}, 2, `unknown kind "iis": use csv, nginx, apache, netlify or vercel`},
		{"import csv", []string{"import", "csv", csv}, 0, ""},
		{"import csv, -o after the file", []string{"import", "csv", csv, "-o", filepath.Join(dir, "csv.toml")}, 0, ""},
		{"import csv two files", []string{"import", "csv", csv, csv}, 2, `unexpected argument "` + csv + `": it takes one CSV file`},
		{"import csv missing", []string{"import", "csv", missing}, 1, "no such file"},
		{"import nginx missing", []string{"import", "nginx", "-o", dir, missing}, 1, "no such file"},
		{"import nginx no file", []string{"import", "nginx"}, 2, "give the nginx config"},
		{"import netlify missing", []string{"import", "netlify", missing}, 1, "no such file"},
		{"import vercel missing", []string{"import", "vercel", missing}, 1, "no such file"},
	}
	for _, c := range commands {
		args := strings.Fields(c.name)
		tests = append(tests,
			tc{c.name + " -h", append(args[:len(args):len(args)], "-h"), 0, "usage: " + c.line() + "\n"},
			tc{c.name + " unknown flag", append(args[:len(args):len(args)], "-nope"), 2, "flag provided but not defined: -nope"})
		if strings.HasPrefix(c.name, "import ") {
			// import reads no config: -config is refused, not ignored.
			tests = append(tests, tc{c.name + " -config", append(args[:len(args):len(args)], "-config", ex, csv), 2, "flag provided but not defined: -config"})
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(bin, tt.args...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tt.code || !strings.Contains(stderr.String(), tt.stderr) {
				t.Errorf("redirectd %s: exit %d, want %d with %q in stderr\nstdout: %s\nstderr: %s", strings.Join(tt.args, " "), code, tt.code, tt.stderr, &stdout, &stderr)
			}
		})
	}
}

// TestHelpListsEveryFlag walks each subcommand's flag set and checks that
// every flag is in its -h (as printed by the built binary) and in the
// top-level usage, where a deprecated flag may be left out. It takes the
// flag sets before it turns parallel: it sets onParse, which every
// command run in this process calls, so another test's import or check
// running beside it would hand it the wrong flag set. The binary's
// answers, which need the build, it reads in the parallel phase.
func TestHelpListsEveryFlag(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	sets := map[string]*flag.FlagSet{}
	for _, c := range commands {
		args := append(strings.Fields(c.name), "-h")
		var fs *flag.FlagSet
		onParse = func(f *flag.FlagSet) { fs = f }
		code, _, _ := runCmd(args...)
		onParse = nil
		if code != 0 || fs == nil {
			t.Fatalf("%s -h: exit %d, flag set parsed: %v", c.name, code, fs != nil)
		}
		sets[c.name] = fs
	}
	t.Parallel()
	bin := buildBinary(t)
	top, err := exec.Command(bin, "-h").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range commands {
		t.Run(c.name, func(t *testing.T) {
			args := append(strings.Fields(c.name), "-h")
			fs := sets[c.name]
			var help bytes.Buffer
			cmd := exec.Command(bin, args...)
			cmd.Stderr = &help
			if err := cmd.Run(); err != nil {
				t.Fatalf("%s -h: %v", c.name, err)
			}
			if first, _, _ := strings.Cut(help.String(), "\n"); first != "usage: "+c.line() {
				t.Errorf("%s -h begins %q, want %q", c.name, first, "usage: "+c.line())
			}
			line := regexp.MustCompile(`(?m)^  redirectd ` + regexp.QuoteMeta(c.name) + `( .*)?$`).Find(top)
			if line == nil {
				t.Fatalf("the top-level usage has no line for %s:\n%s", c.name, top)
			}
			n := 0
			fs.VisitAll(func(f *flag.Flag) {
				n++
				if !regexp.MustCompile(`(?m)^  -` + regexp.QuoteMeta(f.Name) + `\b`).Match(help.Bytes()) {
					t.Errorf("%s -h does not list -%s:\n%s", c.name, f.Name, &help)
				}
				if strings.HasPrefix(f.Usage, "deprecated:") {
					return
				}
				if !regexp.MustCompile(`[ \[]-` + regexp.QuoteMeta(f.Name) + `[ \]=]`).Match(append(line, ' ')) {
					t.Errorf("the top-level usage's line %q does not list -%s", line, f.Name)
				}
			})
			if strings.HasPrefix(c.name, "import ") && fs.Lookup("config") != nil {
				t.Errorf("%s defines -config, which no import reads", c.name)
			}
			t.Logf("%s: %d flags", c.name, n)
		})
	}
}

// TestParseArgs: flags are read wherever they stand, the arguments kept in
// order; "--" makes the rest arguments, dashes and all.
func TestParseArgs(t *testing.T) {
	for _, tt := range []struct {
		args    []string
		config  string
		verbose bool
		pos     []string
	}{
		{[]string{"-config", "a.toml", "x", "y"}, "a.toml", false, []string{"x", "y"}},
		{[]string{"x", "-config", "a.toml", "y", "-v"}, "a.toml", true, []string{"x", "y"}},
		{[]string{"x", "--", "-config", "b"}, "", false, []string{"x", "-config", "b"}},
		{[]string{"-v", "--", "--"}, "", true, []string{"--"}},
		{nil, "", false, nil},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		config := fs.String("config", "", "")
		verbose := fs.Bool("v", false, "")
		pos, err := parseArgs(fs, tt.args)
		if err != nil {
			t.Errorf("%q: %v", tt.args, err)
			continue
		}
		if diff := cmp.Diff(tt.pos, pos); diff != "" || *config != tt.config || *verbose != tt.verbose {
			t.Errorf("%q: -config %q -v %v, arguments -want +got:\n%s", tt.args, *config, *verbose, diff)
		}
	}
}
