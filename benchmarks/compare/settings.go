package main

import (
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redirectd/redirectd/benchmarks/rules"
)

// Settings are a run's knobs, read from the environment (the Makefile
// passes them through).
type Settings struct {
	Spec        rules.Spec
	Warmup      time.Duration
	Duration    time.Duration
	Runs        int
	Concurrency int
	ServerCPUs  string // taskset list for the servers
	ClientCPUs  string // the rest, for wrk, the load generator and the origin
	NServer     int    // CPUs in ServerCPUs
	NClient     int
	Only        map[string]bool // nil: every server
	Quick       bool
	Baseline    string        // a git ref of redirectd to measure too
	Soak        time.Duration // 0: no soak
	Scale       []int         // exact-rule counts for the scale runs; nil: none
	Sitemap     int           // keys of the sitemap corpus; 0: no sitemap scenarios
	// Selected holds the scenarios to run (SCENARIOS); nil: every one.
	Selected map[string]bool
	Out      string // results directory
	// TLSIdle is how many idle TLS connections tls-idle opens.
	TLSIdle int
	// Settle is how long a server's memory is left to settle before it
	// is read: after the server starts, and before the connections of
	// tls-idle and h2-idle open (twice it after).
	Settle time.Duration
	// Rate is the fixed scenarios' offered load in req/s (RATE); 0: half
	// the lowest mixed req/s (chooseRate).
	Rate int
}

// scenarioGroups are the names SCENARIOS takes besides single scenarios.
var scenarioGroups = map[string][]string{
	"reference": {"exact", "prefix", "regex", "miss", "mixed", "exact-churn", "pipelined", "upstream", "upstream-churn", "fixed-rate", "exact-rate", "prefix-rate"},
	// rate: the scenarios at one offered load for every server.
	"rate":    {"fixed-rate", "exact-rate", "prefix-rate"},
	"sitemap": {"sitemap-hit-first", "sitemap-hit-last", "sitemap-miss", "sitemap-mixed"},
	// proxy: every request a miss forwarded to the origin by an instance
	// with one exact rule.
	"proxy": {"proxy"},
	// tls: HTTPS with an ECDSA P-256 certificate.
	"tls": {"tls-exact", "tls-churn", "tls-full", "tls-idle"},
	// h2: HTTP/2 over the same HTTPS port, driven by h2load.
	"h2": {"h2-exact", "h2-churn", "h2-idle"},
	// model: an exact hit with the reference rules in an nginx-model
	// config (redirectd only), beside the plain exact scenario.
	"model": {"exact", "model-exact"},
}

// selected reports whether scenario name runs.
func (s *Settings) selected(name string) bool { return s.Selected == nil || s.Selected[name] }

// settingsFromEnv reads EXACT, PREFIX, REGEX, DURATION, RUNS, CONCURRENCY,
// SERVER_CPUS, ONLY, QUICK, BASELINE, SOAK, SCALE, SITEMAP, SCENARIOS,
// TLS_IDLE_CONNS and RATE.
func settingsFromEnv(getenv func(string) string) (Settings, error) {
	s := Settings{Spec: rules.Reference, Warmup: 2 * time.Second, Duration: 10 * time.Second,
		Runs: 3, Concurrency: 100, Scale: []int{100000, 1000000}, Sitemap: rules.SitemapSize, Out: "benchmarks/results", TLSIdle: 2000,
		Settle: time.Second}
	var errs []string
	num := func(key string, dst *int, min int) {
		if v := getenv(key); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < min {
				errs = append(errs, fmt.Sprintf("%s=%q: want a whole number of at least %d", key, v, min))
				return
			}
			*dst = n
		}
	}
	dur := func(key string, dst *time.Duration) {
		if v := getenv(key); v != "" {
			if _, err := strconv.Atoi(v); err == nil { // plain seconds, as DURATION=10
				v += "s"
			}
			d, err := time.ParseDuration(v)
			if err != nil || d < time.Second {
				errs = append(errs, fmt.Sprintf("%s=%q: want seconds (10) or a duration (10s, 10m) of at least 1s", key, v))
				return
			}
			*dst = d
		}
	}
	if getenv("QUICK") != "" && getenv("QUICK") != "0" {
		s.Quick, s.Warmup, s.Duration, s.Runs = true, time.Second, 2*time.Second, 1
	}
	num("EXACT", &s.Spec.Exact, 1)
	num("PREFIX", &s.Spec.Prefix, 1)
	num("REGEX", &s.Spec.Regex, 1)
	num("RUNS", &s.Runs, 1)
	num("CONCURRENCY", &s.Concurrency, 1)
	num("SITEMAP", &s.Sitemap, 0)
	num("TLS_IDLE_CONNS", &s.TLSIdle, 10)
	num("RATE", &s.Rate, 1)
	if s.Sitemap >= 1_000_000 {
		errs = append(errs, fmt.Sprintf("SITEMAP=%d: the corpus has at most 999999 keys", s.Sitemap))
	}
	dur("DURATION", &s.Duration)
	dur("SOAK", &s.Soak)
	if v := getenv("SCALE"); v != "" {
		var bad []string
		s.Scale, bad = parseScale(v)
		errs = append(errs, bad...)
	}
	if v := getenv("ONLY"); v != "" {
		var bad []string
		s.Only, bad = parseOnly(v)
		errs = append(errs, bad...)
	}
	if v := getenv("SCENARIOS"); v != "" {
		var bad []string
		s.Selected, bad = parseScenarios(v)
		errs = append(errs, bad...)
		if getenv("SCALE") == "" { // a chosen set of scenarios runs no scale runs unless asked
			s.Scale = nil
		}
	}
	s.Baseline = getenv("BASELINE")
	if v := getenv("OUT"); v != "" {
		s.Out = v
	}
	all := runtime.NumCPU()
	server, client, err := splitCPUs(getenv("SERVER_CPUS"), all)
	if err != nil {
		errs = append(errs, err.Error())
	}
	s.ServerCPUs, s.ClientCPUs = cpuList(server), cpuList(client)
	s.NServer, s.NClient = len(server), len(client)
	if len(errs) > 0 {
		return s, fmt.Errorf("bench-compare settings:\n  %s", strings.Join(errs, "\n  "))
	}
	return s, nil
}

// parseScale reads SCALE=v, exact-rule counts separated by commas (0:
// none), and says what is wrong with it.
func parseScale(v string) (scale []int, errs []string) {
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 {
			errs = append(errs, fmt.Sprintf("SCALE=%q: want exact-rule counts separated by commas, or 0 for none", v))
			break
		}
		if n > 0 {
			scale = append(scale, n)
		}
	}
	return scale, errs
}

// parseOnly reads ONLY=v, server names separated by commas, and says
// what is wrong with it.
func parseOnly(v string) (map[string]bool, []string) {
	only := map[string]bool{}
	var errs []string
	for _, name := range strings.Split(v, ",") {
		name = strings.TrimSpace(name)
		if name != "redirectd" && name != "nginx" && name != "haproxy" && name != "caddy" {
			errs = append(errs, fmt.Sprintf("ONLY=%q: %q is not a server; use redirectd, nginx, haproxy and caddy, separated by commas", v, name))
			continue
		}
		only[name] = true
	}
	return only, errs
}

// parseScenarios reads SCENARIOS=v, scenario and group names separated
// by commas, and says what is wrong with it.
func parseScenarios(v string) (map[string]bool, []string) {
	sel := map[string]bool{}
	var errs []string
	for _, name := range strings.Split(v, ",") {
		name = strings.TrimSpace(name)
		if g, ok := scenarioGroups[name]; ok {
			for _, n := range g {
				sel[n] = true
			}
			continue
		}
		if !slices.Contains(scenarioGroups["reference"], name) && !slices.Contains(scenarioGroups["sitemap"], name) && !slices.Contains(scenarioGroups["tls"], name) && !slices.Contains(scenarioGroups["h2"], name) && !slices.Contains(scenarioGroups["model"], name) {
			errs = append(errs, fmt.Sprintf("SCENARIOS=%q: %q is not a scenario; use reference, rate, sitemap, proxy, tls, h2, model or names from benchmarks/README.md's table, separated by commas", v, name))
			continue
		}
		sel[name] = true
	}
	return sel, errs
}

// splitCPUs gives the servers the CPUs in spec (a taskset list such as
// "0" or "0-3,8") or, when spec is empty, the first half; the client
// gets the rest.
func splitCPUs(spec string, n int) (server, client []int, err error) {
	if n < 2 {
		return nil, nil, fmt.Errorf("bench-compare needs at least 2 CPUs (one for the servers, one for the load), this machine has %d", n)
	}
	in := map[int]bool{}
	if spec == "" {
		for i := range n / 2 {
			in[i] = true
		}
	} else {
		for _, part := range strings.Split(spec, ",") {
			lo, hi, isRange := strings.Cut(part, "-")
			a, err1 := strconv.Atoi(lo)
			b := a
			var err2 error
			if isRange {
				b, err2 = strconv.Atoi(hi)
			}
			if err1 != nil || err2 != nil || a < 0 || b < a || b >= n {
				return nil, nil, fmt.Errorf("SERVER_CPUS=%q: want a CPU list such as 0 or 0-3,8, of CPUs 0 to %d", spec, n-1)
			}
			for i := a; i <= b; i++ {
				in[i] = true
			}
		}
	}
	for i := range n {
		if in[i] {
			server = append(server, i)
		} else {
			client = append(client, i)
		}
	}
	if len(client) == 0 {
		return nil, nil, fmt.Errorf("SERVER_CPUS=%q leaves no CPU for the load generator", spec)
	}
	return server, client, nil
}

func cpuList(cpus []int) string {
	parts := make([]string, len(cpus))
	for i, c := range cpus {
		parts[i] = strconv.Itoa(c)
	}
	return strings.Join(parts, ",")
}
