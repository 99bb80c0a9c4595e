// Command redirectd serves large HTTP redirect maps.
//
//	redirectd serve [-config FILE]        serve (the embedded example without -config)
//	redirectd check -config FILE          validate a config and print its rule counts
//	redirectd check -baseline OLD -config NEW
//	                                      list what a config change changes
//	redirectd explain -config FILE URL    show which rule answers URL, and how
//	redirectd test -config FILE CASES...  run case files against the real server
//	redirectd import KIND FILE...         translate another tool's redirects
//	redirectd version                     print the version
//
// Every subcommand exits 0 on success, 1 when its input does not load or
// holds findings (a config that fails to load, a check error, a failed
// case, an answer that a change of config changes), and 2 for a usage
// error (an unknown flag or subcommand, a missing or stray argument).
package main

import (
	"fmt"
	"io"
	"os"
	"strings"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// command is one subcommand: how it is typed (synopsis, the flags and
// arguments after its name), what it does, and its function. The top-level
// usage and each subcommand's -h print the same synopsis, so that they
// cannot list different flags.
type command struct {
	name     string // "check", "import csv"
	synopsis string
	what     string
	run      func(args []string, stdout, stderr io.Writer) int
}

// line is c's usage line: "redirectd NAME SYNOPSIS", with no space
// after a command that takes nothing (version).
func (c *command) line() string {
	if c.synopsis == "" {
		return "redirectd " + c.name
	}
	return "redirectd " + c.name + " " + c.synopsis
}

// commands is every subcommand, in the order the usage lists them. (Set
// in init: the subcommands' -h reads it.)
var commands []command

func init() {
	commands = []command{
		{"serve", "[-config FILE] [-log-format text|json] [-admin-listen ADDR] [-upgrade]",
			"serve the config (without -config, a built-in example)", serve},
		{"check", "-config FILE [-format text|json] [-fix-chains] [-fetch] [-baseline OLD]",
			"validate a config: rule counts, errors and warnings; with -baseline, list the rules and URLs whose answer changes from OLD to FILE", checkCmd},
		{"explain", "-config FILE [-at TIME] [-H 'Name: value']... [-client IP] [-X METHOD] URL",
			"print the rule that answers URL, its status and Location", explainCmd},
		{"test", "-config FILE [-format text|junit] [-o FILE] [-host HOST] CASES...",
			"run case files against the rules, answered by the real server", test},
		{"import csv", "[-o FILE] [-force] FILE", "convert a bulk-redirect CSV into a config", importCSV},
		{"import nginx", "[-o DIR] [-force] [-include-dir DIR]... [-locations all] FILE...",
			"translate nginx configs' servers, locations and upstreams into DIR/redirectd.toml", importNginx},
		{"import apache", "[-o DIR] [-force] [-include-dir DIR]... [-htaccess URLDIR=FILE]... [-htaccess-tree DOCROOT]... [FILE...]",
			"translate Apache configs' and .htaccess files' mod_alias and mod_rewrite redirects into DIR/redirectd.toml", importApache},
		{"import netlify", "[-o FILE] [-force] [-geoip FILE] _redirects|netlify.toml...",
			"translate Netlify's redirects into a config", func(args []string, stdout, stderr io.Writer) int {
				return importHosted("netlify", args, stdout, stderr)
			}},
		{"import vercel", "[-o FILE] [-force] vercel.json",
			"translate a vercel.json's redirects into a config", func(args []string, stdout, stderr io.Writer) int { return importHosted("vercel", args, stdout, stderr) }},
		{"version", "", "print the version", versionCmd},
	}
}

// lookup returns the command named name ("import csv").
func lookup(name string) *command {
	for i := range commands {
		if commands[i].name == name {
			return &commands[i]
		}
	}
	return nil
}

// usage is the top-level usage: every subcommand with its flags.
func usage() string {
	var b strings.Builder
	b.WriteString("usage:\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "  %s\n      %s\n", c.line(), c.what)
	}
	b.WriteString("\nExit status: 0 success, 1 an input that does not load or findings, 2 a usage error.\n" +
		"Flags may come before or after the arguments; 'redirectd COMMAND -h' lists a command's flags.\n")
	return b.String()
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes one subcommand and returns the exit status: 0 on success, 1
// when its input does not load or holds findings, 2 for bad usage.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage())
		return 2
	}
	switch args[0] {
	case "-version", "--version":
		args[0] = "version"
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage())
		return 0
	case "import":
		return importCmd(args[1:], stdout, stderr)
	}
	if c := lookup(args[0]); c != nil {
		return c.run(args[1:], stdout, stderr)
	}
	fmt.Fprintf(stderr, "redirectd: unknown command %q: use %s (redirectd -h lists them with their flags)\n", args[0], commandNames())
	return 2
}

// commandNames lists the first words of the commands: "serve, check, ...".
func commandNames() string {
	var names []string
	for _, c := range commands {
		first, _, _ := strings.Cut(c.name, " ")
		if len(names) == 0 || names[len(names)-1] != first {
			names = append(names, first)
		}
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// importCmd runs `import KIND`.
func importCmd(args []string, stdout, stderr io.Writer) int {
	var kinds []string
	for _, c := range commands {
		if k, ok := strings.CutPrefix(c.name, "import "); ok {
			kinds = append(kinds, k)
		}
	}
	list := strings.Join(kinds[:len(kinds)-1], ", ") + " or " + kinds[len(kinds)-1]
	if len(args) == 0 || strings.HasPrefix(args[0], "-") && args[0] != "-h" && args[0] != "-help" && args[0] != "--help" {
		fmt.Fprintf(stderr, "redirectd import: give the kind of file first: redirectd import %s ... (redirectd -h lists their flags)\n", strings.Join(kinds, "|"))
		return 2
	}
	if args[0] == "-h" || args[0] == "-help" || args[0] == "--help" {
		for _, c := range commands {
			if strings.HasPrefix(c.name, "import ") {
				fmt.Fprintf(stdout, "usage: %s\n      %s\n", c.line(), c.what)
			}
		}
		return 0
	}
	if c := lookup("import " + args[0]); c != nil {
		return c.run(args[1:], stdout, stderr)
	}
	fmt.Fprintf(stderr, "redirectd import: unknown kind %q: use %s\n", args[0], list)
	return 2
}

// versionCmd prints the version.
func versionCmd(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("version", stderr)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return parseExit(err)
	}
	if !noArgs(fs, pos, stderr) {
		return 2
	}
	fmt.Fprintf(stdout, "redirectd %s\n", version)
	return 0
}
