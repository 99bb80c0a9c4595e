package main

import (
	"embed"
	"flag"
	"fmt"
	"io"

	"github.com/redirectd/redirectd/config"
)

//go:embed example
var exampleFS embed.FS

// exampleName is how the embedded example is named in messages.
const exampleName = "example/redirectd.toml"

// loadConfig loads file, or the embedded example when file is "".
func loadConfig(file string) (*config.Config, error) {
	if file == "" {
		return config.LoadFS(exampleFS, exampleName)
	}
	return config.Load(file)
}

// newFlags returns a flag set for a subcommand that writes its errors to
// stderr and does not exit.
func newFlags(name string, stderr io.Writer) (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet("redirectd "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	file := fs.String("config", "", "configuration `file` (TOML)")
	return fs, file
}

// needConfig reports a missing -config for commands that have no default.
func needConfig(file string, stderr io.Writer, name string) bool {
	if file == "" {
		fmt.Fprintf(stderr, "redirectd %s: -config FILE is required\n", name)
		return false
	}
	return true
}
