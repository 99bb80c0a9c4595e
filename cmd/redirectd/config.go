package main

import (
	"embed"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/engine/admin"
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

// startable reports what serve would refuse in a config that loads,
// short of a port being taken: the traffic and TLS addresses, and the
// admin address and token. check and serve both call it, so that a
// config check passes is one serve starts with (and an ExecStartPre check
// means what it says).
func startable(cfg *config.Config) error {
	if err := engine.CheckListen(cfg.Server.Listen); err != nil {
		return fmt.Errorf("%s: [server] listen: %w", cfg.Path, err)
	}
	if cfg.TLS.Listen != "" {
		if err := engine.CheckListen(cfg.TLS.Listen); err != nil {
			return fmt.Errorf("%s: [tls] listen: %w", cfg.Path, err)
		}
	}
	if cfg.Admin.Listen != "off" {
		if err := admin.Check(admin.Options{Listen: cfg.Admin.Listen, Token: cfg.Admin.Token}); err != nil {
			return fmt.Errorf("%s: [admin]: %w", cfg.Path, err)
		}
	}
	return nil
}

// parseExit is the exit status of a subcommand whose flags did not parse:
// 0 for -h or -help, which printed the usage as asked, 2 for a usage error.
func parseExit(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	return 2
}

// noArgs refuses positional arguments to a subcommand that takes none: a
// file named without -config would otherwise be ignored in silence.
func noArgs(fs *flag.FlagSet, stderr io.Writer) bool {
	if fs.NArg() == 0 {
		return true
	}
	fmt.Fprintf(stderr, "%s: unexpected argument %q: flags go before arguments, and a config is given with -config FILE\n", fs.Name(), fs.Arg(0))
	return false
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
