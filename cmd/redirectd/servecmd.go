package main

import (
	"io"

	"github.com/redirectd/redirectd/cmd/redirectd/internal/daemon"
)

// serve runs the server until SIGINT or SIGTERM; SIGHUP reloads the rules.
func serve(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("serve", stderr)
	file := configFlag(fs)
	logFormat := fs.String("log-format", "text", "log format: `text` or json")
	adminListen := fs.String("admin-listen", "", "serve the admin endpoints on `addr` instead of [admin] listen (\"off\": none); for a second instance during an upgrade")
	takeover := fs.Bool("upgrade", false, "take over the traffic ports from the redirectd serving them, for a zero-downtime upgrade (both serve until the old one is stopped); without it a port in use is an error")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return parseExit(err)
	}
	if !noArgs(fs, pos, stderr) {
		return 2
	}
	return daemon.Serve(daemon.Options{Config: *file, LogFormat: *logFormat, AdminListen: *adminListen, Upgrade: *takeover, Loader: loader}, stdout, stderr)
}
