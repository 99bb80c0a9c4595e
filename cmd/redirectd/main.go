// Command redirectd serves large HTTP redirect maps.
//
//	redirectd serve [-config FILE]        serve (the embedded example without -config)
//	redirectd check -config FILE          validate a config and print its rule counts
//	redirectd explain -config FILE URL    show which rule answers URL, and how
//	redirectd test -config FILE CASES...  run case files against the real server
//	redirectd check -baseline OLD -config NEW
//	                                      list what a config change changes
//	redirectd version                     print the version
package main

import (
	"fmt"
	"io"
	"os"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

const usage = `usage:
  redirectd serve [-config FILE] [-log-format text|json]
                                       serve the config (without -config, a built-in example)
  redirectd check -config FILE         validate a config; print rule counts and compile time
  redirectd explain -config FILE [-at TIME] [-H 'Name: value']... [-client IP] URL
                                       print the rule that answers URL, its status and Location
  redirectd test -config FILE [-format text|junit] [-o FILE] CASES...
                                       run case files against the rules, answered by the real server
  redirectd check -baseline OLD -config NEW [-format text|json]
                                       list the rules and URLs whose answer a change of config changes
  redirectd import csv [-o FILE] FILE  convert a bulk-redirect CSV into a config
  redirectd import nginx [-o DIR] FILE...
                                       translate nginx configs' redirects into DIR/redirectd.toml
  redirectd import netlify [-geoip FILE] [-o FILE] _redirects|netlify.toml...
                                       translate Netlify's redirects into a config
  redirectd import vercel [-o FILE] vercel.json
                                       translate a vercel.json's redirects into a config
  redirectd version                    print the version
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes one subcommand and returns the exit status: 0 on success, 1
// when the work failed (a bad config), 2 for bad usage.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "serve":
		return serve(args[1:], stdout, stderr)
	case "check":
		if wantsBaseline(args[1:]) {
			return checkBaseline(args[1:], stdout, stderr)
		}
		return check(args[1:], stdout, stderr)
	case "test":
		return test(args[1:], stdout, stderr)
	case "explain":
		return explain(args[1:], stdout, stderr)
	case "import":
		return importCmd(args[1:], stdout, stderr)
	case "version", "-version", "--version":
		fmt.Fprintf(stdout, "redirectd %s\n", version)
		return 0
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "redirectd: unknown command %q\n%s", args[0], usage)
	return 2
}
