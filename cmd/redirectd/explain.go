package main

import (
	"fmt"
	"io"
	"time"

	"github.com/redirectd/redirectd/cmd/redirectd/internal/explain"
	"github.com/redirectd/redirectd/matcher"
)

// explainCmd prints which rule answers a URL and what it answers.
func explainCmd(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("explain", stderr)
	file := configFlag(fs)
	at := fs.String("at", "", "answer as of this time (RFC 3339, such as 2026-12-24T12:00:00Z) instead of now, for rules with a time window")
	var fields explain.Fields
	fs.Var(&fields, "H", "a request header field 'Name: value' (repeatable), for rules with when conditions: 'Accept-Language: de', 'Cookie: lang=fr'")
	client := fs.String("client", "", "the client's IP address, for rules with when.country (looked up in the config's [geoip] database), when.ip and when.sample")
	method := fs.String("X", "GET", "the request's method, for rules with when.method")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return parseExit(err)
	}
	if !needConfig(fs, *file, stderr) || !extraArgs(fs, pos, 1, "one URL", stderr) {
		return 2
	}
	if len(pos) == 0 {
		fmt.Fprintln(stderr, "redirectd explain: give one URL, such as http://example.com/old?x=1 or /old")
		return 2
	}
	now, err := parseAt(*at)
	if err != nil {
		fmt.Fprintf(stderr, "redirectd explain: %v\n", err)
		return 2
	}
	addr, err := explain.ParseClient(*client)
	if err != nil {
		fmt.Fprintf(stderr, "redirectd explain: %v\n", err)
		return 2
	}
	cfg, err := loadConfig(*file)
	if err != nil {
		fmt.Fprintf(stderr, "%v\n", err)
		return 1
	}
	raw := pos[0]
	if cfg.Server.HTTPSRedirect {
		var err error
		if raw, err = explain.HTTPSRedirect(stdout, raw); err != nil {
			fmt.Fprintf(stderr, "redirectd explain: %v\n", err)
			return 2
		}
	}
	req := &matcher.FixedRequest{Fields: fields, Client: addr, Verb: *method, Countries: cfg.Set.Countries()}
	if err := explain.RequestAt(stdout, cfg.Set, raw, now, req); err != nil {
		fmt.Fprintf(stderr, "redirectd explain: %v\n", err)
		return 2
	}
	return 0
}

// parseAt reads explain's -at: "" is now.
func parseAt(s string) (time.Time, error) {
	if s == "" {
		return time.Now(), nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("-at %q is not an RFC 3339 time; write it with an offset, such as 2026-12-24T12:00:00Z", s)
	}
	return t, nil
}
