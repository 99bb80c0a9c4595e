// Command compare is `make bench-compare`: redirectd against nginx,
// HAProxy and Caddy, each run as its own process on loopback from a config
// generated here from the reference rule set (benchmarks/rules), pinned to
// the same half of the CPUs, loaded by wrk (or, at a fixed rate, by its own
// load generator) from the other half. Every server must answer every
// scenario right before it is timed. Results go to
// benchmarks/results/<date>-<commit>.json; `compare table` writes them into
// benchmarks/README.md. See there, "Benchmarks against nginx, HAProxy and Caddy".
//
//	compare                       run, settings from the environment (EXACT, DURATION, ONLY, SCENARIOS ...)
//	compare table [-readme F] R   write results R as the README's table
//	compare loadgen ...           the fixed-rate load generator (run by compare itself)
package main

import (
	"fmt"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"syscall"
	"time"
)

func main() {
	var err error
	switch {
	case len(os.Args) > 1 && os.Args[1] == "loadgen":
		err = loadgenMain(os.Args[2:])
	case len(os.Args) > 1 && os.Args[1] == "handshakes":
		err = handshakesMain(os.Args[2:])
	case len(os.Args) > 1 && os.Args[1] == "table":
		err = tableMain(os.Args[2:])
	case len(os.Args) > 1:
		err = fmt.Errorf("unknown command %q; use no argument (run), table, loadgen or handshakes", os.Args[1])
	default:
		err = runMain()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "bench-compare: %v\n", err)
		os.Exit(1)
	}
}

func numCPU() int { return runtime.NumCPU() }

// hasScenario reports whether one of scs is as is says.
func hasScenario(scs []Scenario, is func(Scenario) bool) bool {
	return slices.ContainsFunc(scs, is)
}

// selectedNames lists the scenarios SCENARIOS chose, sorted; nil for all.
func selectedNames(s Settings) []string {
	if s.Selected == nil {
		return nil
	}
	return slices.Sorted(maps.Keys(s.Selected))
}

// selectionTag names a run of chosen scenarios in its results file:
// "sitemap", "proxy", "tls", "model", "rate" or "reference" when they are all of that group, else "some".
func selectionTag(sel map[string]bool) string {
	for _, g := range []string{"sitemap", "proxy", "tls", "model", "rate", "reference"} {
		all := true
		for name := range sel {
			all = all && slices.Contains(scenarioGroups[g], name)
		}
		if all {
			return g
		}
	}
	return "some"
}

// origin is the nginx that answers forwarded misses.
type origin struct {
	*Proc
	addr string
}

// startOrigin starts the origin on the client CPUs and waits for it.
func startOrigin(work, cpus string) (*origin, error) {
	dir := filepath.Join(work, "origin")
	if err := mkdirs(dir); err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	argv, err := originConfig(dir, port)
	if err != nil {
		return nil, err
	}
	p, err := start("origin", cpus, argv, nil, filepath.Join(dir, "server.log"))
	if err != nil {
		return nil, err
	}
	o := &origin{Proc: p, addr: fmt.Sprintf("127.0.0.1:%d", port)}
	if _, err := waitReady(p, o.addr, Req{Path: "/", Raw: simpleRequest("/", false), Want: Want{Status: 200, Body: originBody}}, 30*time.Second); err != nil {
		p.Stop()
		return nil, fmt.Errorf("the origin nginx: %w", err)
	}
	return o, nil
}

// runMain is a whole run; it must be started in the repository's root.
func runMain() error {
	s, err := settingsFromEnv(os.Getenv)
	if err != nil {
		return err
	}
	if _, err := os.Stat("cmd/redirectd"); err != nil {
		return fmt.Errorf("run it from the repository's root (make bench-compare): %w", err)
	}
	scenarios := selectedScenarios(s)
	if len(scenarios) == 0 && len(s.Scale) == 0 && s.Soak == 0 {
		return fmt.Errorf("nothing to run: SCENARIOS=%q with SITEMAP=%d, no SCALE, no SOAK", os.Getenv("SCENARIOS"), s.Sitemap)
	}
	if err := ensurePrograms(neededPrograms(s, scenarios)); err != nil {
		return err
	}
	raiseFileLimit()
	work, err := os.MkdirTemp("", "bench-compare-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sig
		logf("interrupted: stopping the servers")
		stopAll()
		os.RemoveAll(work)
		os.Exit(1)
	}()
	os.Chmod(work, 0o755)
	self, err := os.Executable()
	if err != nil {
		return err
	}
	h := &harness{s: s, work: work, self: self, script: filepath.Join(work, "requests.lua"),
		scenarios: scenarios, reqFiles: map[string]string{}}
	if err := h.writeInputs(); err != nil {
		return err
	}
	servers, err := chooseServers(s, work)
	if err != nil {
		return err
	}
	if hasScenario(scenarios, Scenario.forwards) {
		origin, err := startOrigin(work, s.ClientCPUs)
		if err != nil {
			return err
		}
		defer origin.Stop()
		h.origin = origin.addr
	}
	h.res = &Results{Date: time.Now().UTC().Format("2006-01-02"), Commit: gitCommit(), Quick: s.Quick,
		Settings: RunSettings{Exact: s.Spec.Exact, Prefix: s.Spec.Prefix, Regex: s.Spec.Regex,
			WarmupS: s.Warmup.Seconds(), DurationS: s.Duration.Seconds(), Runs: s.Runs, Concurrency: s.Concurrency,
			ServerCPUs: s.ServerCPUs, ClientCPUs: s.ClientCPUs, Baseline: s.Baseline, Scenarios: selectedNames(s)},
		Machine: machine(), Versions: map[string]string{"wrk": wrkVersion()}}
	h.measure(servers)
	return h.save()
}

// neededPrograms lists the programs the run needs, each with the
// package that holds it.
func neededPrograms(s Settings, scenarios []Scenario) map[string]string {
	progs := map[string]string{"nginx": "nginx", "wrk": "wrk", "taskset": "util-linux"} // nginx is the origin too
	if s.Only == nil || s.Only["haproxy"] {
		progs["haproxy"] = "haproxy"
	}
	if (s.Only == nil || s.Only["caddy"]) && (hasScenario(scenarios, func(sc Scenario) bool { return !sc.Sitemap }) || s.Soak > 0) {
		progs["caddy"] = "caddy" // not run on the sitemap corpus, nor in the scale runs
	}
	if hasScenario(scenarios, func(sc Scenario) bool { return sc.H2 && !sc.Idle }) {
		progs["h2load"] = "nghttp2-client"
	}
	return progs
}

// writeInputs writes wrk's script, the TLS files and each scenario's
// requests into h.work.
func (h *harness) writeInputs() error {
	s := h.s
	if err := writeWrkScript(h.script); err != nil {
		return err
	}
	reqScenarios := h.scenarios
	if s.Soak > 0 && !s.selected("mixed") { // the soak sends mixed's requests
		i := slices.IndexFunc(Scenarios(s.Spec), func(sc Scenario) bool { return sc.Name == "mixed" })
		reqScenarios = append(slices.Clip(reqScenarios), Scenarios(s.Spec)[i])
	}
	if hasScenario(h.scenarios, func(sc Scenario) bool { return sc.TLS }) {
		var err error
		if h.tlsFiles, err = writeTLSFiles(h.work); err != nil {
			return err
		}
	}
	for _, sc := range reqScenarios {
		h.reqFiles[sc.Name] = filepath.Join(h.work, sc.Name+".req")
		if err := writeRequests(h.reqFiles[sc.Name], sc); err != nil {
			return err
		}
	}
	return nil
}

// chooseServers builds redirectd (and its BASELINE) into work and
// returns the servers ONLY chose.
func chooseServers(s Settings, work string) ([]Server, error) {
	logf("building redirectd")
	bin, err := buildRedirectd(work, "")
	if err != nil {
		return nil, err
	}
	var servers []Server
	for _, srv := range allServers(bin) {
		if s.Only == nil || s.Only[srv.Name()] {
			servers = append(servers, srv)
		}
		if srv.Name() == "redirectd" && s.Baseline != "" && (s.Only == nil || s.Only["redirectd"]) {
			logf("building redirectd at BASELINE=%s", s.Baseline)
			base, err := buildRedirectd(work, s.Baseline)
			if err != nil {
				return nil, err
			}
			servers = append(servers, &redirectd{name: "redirectd@" + s.Baseline, bin: base})
		}
	}
	return servers, nil
}

// measure runs every phase the settings ask for on each server, into
// h.res: the throughput and TLS phases, the fixed rate, the sitemap,
// the scale and the soak runs.
func (h *harness) measure(servers []Server) {
	s, scenarios := h.s, h.scenarios
	logf("servers on CPUs %s, load on CPUs %s; %s warm-up, %d x %s per scenario", s.ServerCPUs, s.ClientCPUs, s.Warmup, s.Runs, s.Duration)
	for _, srv := range servers {
		sr := h.maxThroughput(srv)
		h.tlsPhase(srv, sr)
		h.model(srv, sr)
		h.res.Versions[srv.Name()] = sr.Version
		h.res.Servers = append(h.res.Servers, sr)
	}
	if hasScenario(scenarios, func(sc Scenario) bool { return sc.Fixed || sc.forwards() }) {
		h.res.FixedRate = float64(s.Rate)
		if s.Rate == 0 {
			h.res.FixedRate = chooseRate(h.res.Servers)
		}
		logf("fixed rate: %.0f req/s", h.res.FixedRate)
		h.fixedPhase(servers, h.res.FixedRate)
		for i, srv := range servers {
			if h.res.Servers[i].Failed == "" {
				h.forwarding(srv, h.res.Servers[i], h.s.Spec, "upstream", func(sc Scenario) bool { return sc.Upstream })
				h.forwarding(srv, h.res.Servers[i], proxySpec, "proxy", func(sc Scenario) bool { return sc.Proxy })
			}
		}
	}
	if hasScenario(scenarios, func(sc Scenario) bool { return sc.Sitemap }) {
		h.res.Settings.Sitemap = s.Sitemap
		for i, srv := range servers {
			h.sitemap(srv, h.res.Servers[i])
		}
	}
	for _, n := range s.Scale {
		for _, srv := range servers {
			if srv.Name() != "caddy" { // minutes to load a million-entry map walked in order
				h.res.Scale = append(h.res.Scale, h.scale(srv, n))
			}
		}
	}
	if s.Soak > 0 {
		for _, srv := range servers {
			h.res.Soak = append(h.res.Soak, h.soak(srv))
		}
	}
}

// save writes h.res to its results file under OUT, prints its table
// and, for a full run or README=1, rewrites the README's table.
func (h *harness) save() error {
	s := h.s
	if err := mkdirs(s.Out); err != nil {
		return err
	}
	name := h.res.Date + "-" + h.res.Commit
	if s.Quick {
		name += "-quick"
	}
	if s.Selected != nil {
		name += "-" + selectionTag(s.Selected)
	}
	path := filepath.Join(s.Out, name+".json")
	if err := writeJSON(path, h.res); err != nil {
		return err
	}
	fmt.Print(renderTable(h.res))
	logf("results in %s", path)
	// A full run of every scenario replaces the README's table; a QUICK
	// one, or one of chosen SCENARIOS, only with README=1.
	if r := os.Getenv("README"); r == "1" || (r != "0" && !s.Quick && s.Selected == nil) {
		if err := tableMain([]string{path}); err != nil {
			return err
		}
		logf("benchmarks/README.md's table rewritten")
	} else {
		logf("benchmarks/README.md left as it is; bin/bench-compare table %s writes this run into it", path)
	}
	return nil
}
