package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// newFlags returns the flag set of the subcommand name (as commands names
// it: "import csv"). It writes its errors to stderr and does not exit; its
// -h prints the synopsis the top-level usage gives, then every flag.
func newFlags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("redirectd "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		w := fs.Output()
		if c := lookup(name); c != nil {
			fmt.Fprintf(w, "usage: %s\n  %s\n", c.line(), c.what)
		}
		n := 0
		fs.VisitAll(func(*flag.Flag) { n++ })
		if n > 0 {
			fmt.Fprintln(w, "flags:")
			fs.PrintDefaults()
		}
	}
	return fs
}

// configFlag adds -config, for the subcommands that read a config.
func configFlag(fs *flag.FlagSet) *string {
	return fs.String("config", "", "configuration `file` (TOML)")
}

// onParse, when set (by tests), is handed each flag set as it is parsed:
// the test of every subcommand's help walks the flags defined.
var onParse func(*flag.FlagSet)

// parseArgs parses flags wherever they stand among the arguments, so that
// `redirectd explain URL -at TIME` means what `explain -at TIME URL` does,
// and returns the other arguments in order. "--" ends the flags: what
// follows it is an argument even when it starts with '-'.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	if onParse != nil {
		onParse(fs)
	}
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			return append(pos, rest...), nil
		}
		pos, args = append(pos, rest[0]), rest[1:]
	}
}

// parseExit is the exit status of a subcommand whose flags did not parse:
// 0 for -h or -help, which printed the usage as asked, 2 for a usage error.
func parseExit(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	return 2
}

// noArgs refuses arguments to a subcommand that takes none: a file named
// without -config would otherwise be ignored in silence.
func noArgs(fs *flag.FlagSet, pos []string, stderr io.Writer) bool {
	if len(pos) == 0 {
		return true
	}
	hint := ""
	if fs.Lookup("config") != nil {
		hint = ": a config is given with -config FILE"
	}
	fmt.Fprintf(stderr, "%s: unexpected argument %q (it takes none)%s\n", fs.Name(), pos[0], hint)
	return false
}

// extraArgs refuses the arguments past the n a subcommand takes, naming
// the first one.
func extraArgs(fs *flag.FlagSet, pos []string, n int, what string, stderr io.Writer) bool {
	if len(pos) <= n {
		return true
	}
	fmt.Fprintf(stderr, "%s: unexpected argument %q: it takes %s\n", fs.Name(), pos[n], what)
	return false
}

// needConfig reports a missing -config for commands that have no default.
func needConfig(fs *flag.FlagSet, file string, stderr io.Writer) bool {
	if file == "" {
		fmt.Fprintf(stderr, "%s: -config FILE is required\n", fs.Name())
		return false
	}
	return true
}

// given reports whether the flag name was set on the command line.
func given(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// oneOf reports a flag value that is not one of choices.
func oneOf(fs *flag.FlagSet, flagName, v string, stderr io.Writer, choices ...string) bool {
	for _, c := range choices {
		if v == c {
			return true
		}
	}
	fmt.Fprintf(stderr, "%s: -%s %q: use %s\n", fs.Name(), flagName, v, strings.Join(choices, " or "))
	return false
}
