// Package casetest runs the case files of `redirectd test`: it parses
// them (cases.go), starts the engine with a config's rules on a loopback
// port, sends every case as raw bytes (client.go) and compares what comes
// back, naming the rule behind each failure (report.go).
package casetest

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"time"

	"github.com/redirectd/redirectd/cmd/redirectd/internal/engineopts"
	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/engine/upstream"
	"github.com/redirectd/redirectd/internal/safego"
	"github.com/redirectd/redirectd/matcher"
)

// DefaultHost is the Host sent for a case written as a path: a name
// under .invalid (RFC 6761 6.4), which no configured host is, so that only
// the rules for any host answer it, as the case file means.
const DefaultHost = "redirectd-test.invalid"

// forwardMarker is the header the marker upstream puts on its answers:
// an answer that carries it was forwarded.
const forwardMarker = "X-Redirectd-Test"

// Suite is the cases of one run, read from their files.
type Suite struct {
	files []string
	cases []testCase
}

// Read reads and parses the case files names, in order. Its error is
// what the command prints, as it is.
func Read(names []string) (*Suite, error) {
	s := &Suite{}
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("redirectd test: %w", err)
		}
		cs, err := parseCases(name, data)
		if err != nil {
			return nil, err
		}
		s.cases = append(s.cases, cs...)
		s.files = append(s.files, name)
	}
	return s, nil
}

// Options are how a run sends its cases and reports.
type Options struct {
	Format string // "text" or "junit"
	Out    string // the report's file; "" for stdout
	Host   string // the Host sent for a case written as a path
}

// Run runs the suite against cfg's rules, answered by the real server on
// a loopback port, and writes the report. Exit status: 0 when every case
// passes, 1 when one fails or the server cannot start or the report
// cannot be written.
func Run(cfg *config.Config, s *Suite, o Options, stdout, stderr io.Writer) int {
	cases, files := s.cases, s.files
	env, err := startTestServer(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "redirectd test: %v\n", err)
		return 1
	}
	got := env.run(cases, o.Host)
	env.stop() // not waited for: see stop
	res := judge(cases, got, env, o.Host)

	w := stdout
	if o.Out != "" {
		f, err := os.Create(o.Out)
		if err != nil {
			fmt.Fprintf(stderr, "redirectd test: %v\n", err)
			return 1
		}
		defer f.Close()
		w = f
	}
	if o.Format == "junit" {
		err = writeJUnit(w, files, res)
	} else {
		err = writeTestText(w, files, res)
	}
	if err != nil {
		fmt.Fprintf(stderr, "redirectd test: cannot write the report: %v\n", err)
		return 1
	}
	if o.Out != "" && o.Format == "junit" {
		writeSummary(stdout, files, res) // the report went to a file: say how it went
	}
	for _, r := range res {
		if !r.Pass {
			return 1
		}
	}
	return 0
}

// testEnv is the server a test run talks to.
type testEnv struct {
	srv *engine.Server
	// set is the rule set the server answers from, for naming the rule
	// of a failed case.
	set           *matcher.Set
	forwarding    bool // an upstream group is set: misses go to the marker
	httpsRedirect bool
	stops         []func()
}

// startTestServer starts the engine with cfg's rules and [server]
// settings on a loopback port of its own. What would keep the cases from
// reaching the rules is left out: the PROXY protocol, TLS, deferred
// accept, the access log; every upstream group's servers are replaced by
// the marker upstream.
func startTestServer(cfg *config.Config) (*testEnv, error) {
	opts := engineopts.Engine(&cfg.Server, nil)
	opts.Listen = "127.0.0.1:0"
	// As many loops as connections at most: more would sit idle.
	if opts.EventLoops <= 0 {
		opts.EventLoops = runtime.GOMAXPROCS(0)
	}
	opts.EventLoops = min(opts.EventLoops, testConns)
	opts.DeferAccept = false
	// Trusted empty: X-Forwarded-Proto is believed from loopback, which is
	// how an https:// case says it came over https.
	opts.Proxies = engine.ProxyOptions{}
	opts.MaxConnsPerIP = max(opts.MaxConnsPerIP, 2*testConns)
	if opts.MaxConns > 0 {
		opts.MaxConns = max(opts.MaxConns, 2*testConns)
	}
	env := &testEnv{set: cfg.Set, httpsRedirect: cfg.Server.HTTPSRedirect}
	if cfg.Upstream != nil || len(cfg.Upstreams) > 0 {
		addr, stop, err := startMarker()
		if err != nil {
			return nil, err
		}
		env.stops = append(env.stops, stop)
		if err := markGroups(cfg, addr, &opts, env); err != nil {
			return nil, err
		}
		env.forwarding = true
	}
	env.srv = engine.New(opts, cfg.Set)
	done := make(chan error, 1)
	go func() {
		var err error
		defer func() { done <- err }()
		defer safego.RecoverErr("test server", &err)
		err = env.srv.Run()
	}()
	select {
	case err := <-done:
		<-env.stop()
		return nil, fmt.Errorf("cannot start the server: %w", err)
	case <-env.srv.Ready():
	}
	env.stops = append(env.stops, func() {
		env.srv.Stop(context.Background())
		<-done
	})
	return env, nil
}

// markGroups points every upstream group of cfg at the marker upstream
// at addr, keeping each group's other settings and the routes to them.
func markGroups(cfg *config.Config, addr string, opts *engine.Options, env *testEnv) error {
	marked := func(u *config.Upstream) (*engine.UpstreamOptions, error) {
		mu := *u
		mu.Servers, mu.Targets, mu.HealthCheck, mu.UpstreamTLS = []string{addr}, nil, nil, config.UpstreamTLS{}
		pc, err := engineopts.Upstream(&mu)
		if err != nil {
			return nil, err
		}
		pool := upstream.New(pc, nil)
		env.stops = append(env.stops, pool.Close)
		return engineopts.Forwarding(u, pool), nil
	}
	groups := map[string]*engine.UpstreamOptions{}
	for name, u := range cfg.Upstreams {
		o, err := marked(u)
		if err != nil {
			return err
		}
		groups[name] = o
		opts.Groups = append(opts.Groups, o) // for locations that name it
	}
	if u := cfg.Upstream; u != nil {
		o, err := marked(u)
		if err != nil {
			return err
		}
		opts.Upstream, groups[config.DefaultGroup] = o, o
	}
	for _, r := range cfg.Routes {
		opts.Routes = append(opts.Routes, engine.UpstreamRoute{Host: r.Host, Prefix: r.Prefix, Group: groups[r.Upstream]})
	}
	return nil
}

// stop stops the server and the marker upstream, the server first, in
// the background: gnet's engine notices a stop by polling every 500 ms,
// thirty times as long as 10,000 cases take, and nothing waits for the
// stop (the answers are in). The channel closes when all is stopped.
func (e *testEnv) stop() <-chan struct{} {
	stops, done := e.stops, make(chan struct{})
	e.stops = nil
	go func() {
		defer safego.Recover("test stop")
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
		close(done)
	}()
	return done
}

// startMarker starts the upstream that stands in for [upstream]'s
// servers: it answers everything with 299 and the forwardMarker header,
// so a forwarded request is told from any answer of the server's own.
func startMarker() (addr string, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, fmt.Errorf("cannot start the marker upstream: %w", err)
	}
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set(forwardMarker, "forwarded")
			w.WriteHeader(299)
		}),
		ReadHeaderTimeout: 10 * time.Second,
	}
	safego.Go("test upstream", func() { srv.Serve(ln) })
	return ln.Addr().String(), func() { srv.Close() }, nil
}
