package main

import (
	"encoding/json"
	"os"
	"slices"
)

// Results is one run of the harness, as written to
// benchmarks/results/<date>-<commit>.json and read back by `compare table`.
type Results struct {
	Date     string            `json:"date"`
	Commit   string            `json:"commit"`
	Quick    bool              `json:"quick"`
	Settings RunSettings       `json:"settings"`
	Machine  Machine           `json:"machine"`
	Versions map[string]string `json:"versions"`
	// FixedRate is the rate of the fixed-rate scenario: half the lowest
	// mixed req/s among the servers other than Caddy.
	FixedRate float64         `json:"fixed_rate"`
	Servers   []*ServerResult `json:"servers"`
	Scale     []*ScaleResult  `json:"scale,omitempty"`
	Soak      []*SoakResult   `json:"soak,omitempty"`
}

// RunSettings records the knobs the run used.
type RunSettings struct {
	Exact       int     `json:"exact"`
	Prefix      int     `json:"prefix"`
	Regex       int     `json:"regex"`
	WarmupS     float64 `json:"warmup_s"`
	DurationS   float64 `json:"duration_s"`
	Runs        int     `json:"runs"`
	Concurrency int     `json:"concurrency"`
	ServerCPUs  string  `json:"server_cpus"`
	ClientCPUs  string  `json:"client_cpus"`
	Baseline    string  `json:"baseline,omitempty"`
	Sitemap     int     `json:"sitemap_keys,omitempty"`
	// Scenarios are those SCENARIOS chose; empty: every one.
	Scenarios []string `json:"scenarios,omitempty"`
}

// Machine describes where it ran.
type Machine struct {
	CPU    string `json:"cpu"`
	CPUs   int    `json:"cpus"`
	Kernel string `json:"kernel"`
	MemMiB int64  `json:"mem_mib"`
	Go     string `json:"go"`
}

// ServerResult is one server's figures.
type ServerResult struct {
	Name      string  `json:"name"`
	Version   string  `json:"version"`
	Failed    string  `json:"failed,omitempty"` // it did not start or serve
	StartupMS float64 `json:"startup_ms"`       // launch to the first correct answer
	// StartupCPUMS is the server's CPU time until then (Proc.SchedCPU).
	StartupCPUMS float64           `json:"startup_cpu_ms,omitempty"`
	RSSIdleMiB   float64           `json:"rss_idle_mib"`
	RSSLoadMiB   float64           `json:"rss_after_load_mib"`
	PSSIdleMiB   float64           `json:"pss_idle_mib,omitempty"`
	PSSLoadMiB   float64           `json:"pss_after_load_mib,omitempty"`
	PeakMiB      float64           `json:"peak_mib,omitempty"` // VmHWM after load, summed over the processes
	Scenarios    []*ScenarioResult `json:"scenarios"`
	Sitemap      *SitemapResult    `json:"sitemap,omitempty"`
	TLSIdle      *IdleResult       `json:"tls_idle,omitempty"`
	H2Idle       *IdleResult       `json:"h2_idle,omitempty"`
}

// IdleResult is the tls-idle measurement: the server's memory before and
// with Conns idle TLS keep-alive connections open (each did a full
// handshake and one request), and the growth per connection.
type IdleResult struct {
	Failed        string  `json:"failed,omitempty"`
	Conns         int     `json:"conns"`
	Before        Mem     `json:"before"`
	After         Mem     `json:"after"`
	PSSPerConnKiB float64 `json:"pss_per_conn_kib"`
	RSSPerConnKiB float64 `json:"rss_per_conn_kib"`
}

// SitemapResult is one server started on the sitemap corpus: its start-up
// and memory (its scenarios' figures are in ServerResult.Scenarios).
type SitemapResult struct {
	Keys         int     `json:"keys"`
	Skipped      string  `json:"skipped,omitempty"` // not run on this corpus, and why
	Failed       string  `json:"failed,omitempty"`  // did not start
	StartupMS    float64 `json:"startup_ms"`        // launch to the first key's correct answer
	StartupCPUMS float64 `json:"startup_cpu_ms,omitempty"`
	Idle         Mem     `json:"after_start"` // 1 s after that answer
	Load         Mem     `json:"after_load"`  // after the sitemap scenarios
	// CheckMS is the wall time of `redirectd check` on the config (median
	// of three), CheckLoadMS the load+compile time it reports; redirectd
	// only.
	CheckMS     float64 `json:"check_ms,omitempty"`
	CheckLoadMS float64 `json:"check_load_ms,omitempty"`
	CheckFailed string  `json:"check_failed,omitempty"`
}

// ScenarioResult is the median of a scenario's runs, and the runs.
type ScenarioResult struct {
	Name        string  `json:"name"`
	Failed      string  `json:"failed,omitempty"`  // a wrong answer before timing: not timed
	Skipped     string  `json:"skipped,omitempty"` // not run for this server, and why
	RPS         float64 `json:"rps"`
	P50US       float64 `json:"p50_us"`
	P99US       float64 `json:"p99_us"`
	P999US      float64 `json:"p999_us"`
	CPUPerReqUS float64 `json:"cpu_per_request_us"`    // the server's CPU time over the requests
	Errors      int64   `json:"errors"`                // socket errors and timeouts, all runs
	ServerBusy  float64 `json:"server_busy,omitempty"` // medians of the runs' (see Run)
	ClientBusy  float64 `json:"client_busy,omitempty"`
	// SwitchesPerReq is the median of the runs' (fixed rate only).
	SwitchesPerReq float64 `json:"switches_per_request,omitempty"`
	// RSSAfterMiB is the server's RSS (all its processes) right after the
	// scenario's last run: what its traffic left resident.
	RSSAfterMiB float64 `json:"rss_after_mib,omitempty"`
	Runs        []Run   `json:"runs"`
}

// Run is one timed run.
type Run struct {
	RPS         float64 `json:"rps"`
	P50US       float64 `json:"p50_us"`
	P99US       float64 `json:"p99_us"`
	P999US      float64 `json:"p999_us"`
	CPUPerReqUS float64 `json:"cpu_per_request_us"`
	Errors      int64   `json:"errors"`
	Rate        float64 `json:"rate,omitempty"` // asked, at a fixed rate
	PacerLagUS  float64 `json:"pacer_lag_p99_us,omitempty"`
	// SwitchesPerReq is the server's threads' context switches per
	// request (fixed rate only).
	SwitchesPerReq float64 `json:"switches_per_request,omitempty"`
	// ServerBusy and ClientBusy are the server's and wrk's CPU time over
	// the run's duration (1 is one CPU kept busy): which of the two bounded
	// the run.
	ServerBusy float64 `json:"server_busy,omitempty"`
	ClientBusy float64 `json:"client_busy,omitempty"`
}

// ScaleResult is one server at one size of exact map.
type ScaleResult struct {
	Exact        int     `json:"exact"`
	Server       string  `json:"server"`
	Failed       string  `json:"failed,omitempty"`
	StartupMS    float64 `json:"startup_ms"`
	StartupCPUMS float64 `json:"startup_cpu_ms,omitempty"`
	RSSIdleMiB   float64 `json:"rss_idle_mib"`
	RSSLoadMiB   float64 `json:"rss_after_load_mib"`
	PSSLoadMiB   float64 `json:"pss_after_load_mib,omitempty"`
	PeakMiB      float64 `json:"peak_mib,omitempty"`
	RPS          float64 `json:"exact_rps"`
	CPUPerReqUS  float64 `json:"cpu_per_request_us"`
}

// SoakResult is one server under mixed load for SOAK, access log on.
type SoakResult struct {
	Server        string       `json:"server"`
	Failed        string       `json:"failed,omitempty"`
	DurationS     float64      `json:"duration_s"`
	RPS           float64      `json:"rps"`
	Samples       [][2]float64 `json:"samples"` // seconds since the start, RSS MiB
	GrowthPerMin  float64      `json:"growth_mib_per_min"`
	GrowthHalfMin float64      `json:"second_half_growth_mib_per_min"`
}

// median summarises runs: each figure is the median of its own values.
func median(runs []Run) *ScenarioResult {
	r := &ScenarioResult{Runs: runs}
	pick := func(get func(Run) float64) float64 {
		v := make([]float64, len(runs))
		for i, x := range runs {
			v[i] = get(x)
		}
		return medianOf(v)
	}
	r.RPS = pick(func(x Run) float64 { return x.RPS })
	r.P50US = pick(func(x Run) float64 { return x.P50US })
	r.P99US = pick(func(x Run) float64 { return x.P99US })
	r.P999US = pick(func(x Run) float64 { return x.P999US })
	r.CPUPerReqUS = pick(func(x Run) float64 { return x.CPUPerReqUS })
	r.ServerBusy = pick(func(x Run) float64 { return x.ServerBusy })
	r.SwitchesPerReq = pick(func(x Run) float64 { return x.SwitchesPerReq })
	r.ClientBusy = pick(func(x Run) float64 { return x.ClientBusy })
	for _, x := range runs {
		r.Errors += x.Errors
	}
	return r
}

func medianOf(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// slope is the least-squares growth of y over x (MiB per second when x is
// seconds), 0 with fewer than two points.
func slope(pts [][2]float64) float64 {
	n := float64(len(pts))
	if n < 2 {
		return 0
	}
	var sx, sy, sxx, sxy float64
	for _, p := range pts {
		sx, sy, sxx, sxy = sx+p[0], sy+p[1], sxx+p[0]*p[0], sxy+p[0]*p[1]
	}
	d := n*sxx - sx*sx
	if d == 0 {
		return 0
	}
	return (n*sxy - sx*sy) / d
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// (scenario lookup by name, for the table)
func (s *ServerResult) scenario(name string) *ScenarioResult {
	for _, sc := range s.Scenarios {
		if sc.Name == name {
			return sc
		}
	}
	return nil
}
