package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"

	"github.com/redirectd/redirectd/benchmarks/rules"
	"github.com/redirectd/redirectd/matcher"
)

// Instance is one server process to configure: where its files go, the
// rules, its port, and what differs between the scenarios.
type Instance struct {
	Dir    string // a directory of its own, created by the caller
	Spec   rules.Spec
	Port   int
	CPUs   int    // worker processes, threads or GOMAXPROCS
	Origin string // host:port misses are forwarded to; "" answers 404
	// AccessLog is a file to log every request to; "" turns logging off.
	AccessLog string
}

// Server is one of the compared servers. Configure writes its config for
// in (in the form it serves fastest) and returns the command that starts it
// in the foreground and the environment it needs beyond the harness's own.
type Server interface {
	Name() string
	Package() string // the Debian package; "" for redirectd, which is built
	Program() string
	Version() string
	Configure(in Instance) (argv, env []string, err error)
}

// writeFile writes a generated file through a buffer; fill writes into it.
func writeFile(path string, fill func(w *bufio.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if err := fill(w); err != nil {
		f.Close()
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	return f.Close()
}

// byKind splits the generated rules into exact, prefix and regex.
func byKind(s rules.Spec) (exact, prefix, regex []matcher.Rule) {
	for _, r := range rules.Rules(s) {
		switch r.Kind {
		case matcher.Exact:
			exact = append(exact, r)
		case matcher.Prefix:
			prefix = append(prefix, r)
		default:
			regex = append(regex, r)
		}
	}
	return exact, prefix, regex
}

// allServers lists the servers in the order they run.
func allServers(redirectdBin string) []Server {
	return []Server{
		&redirectd{name: "redirectd", bin: redirectdBin},
		nginx{}, haproxy{}, caddy{},
	}
}

func mkdirs(dirs ...string) error {
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	return nil
}

func join(dir, name string) string { return filepath.Join(dir, name) }
