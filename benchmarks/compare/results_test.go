package main

import (
	"bufio"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMedianAndSlope(t *testing.T) {
	if got := medianOf([]float64{3, 1, 2}); got != 2 {
		t.Errorf("median of 3 1 2 = %v", got)
	}
	if got := medianOf([]float64{4, 1, 2, 3}); got != 2.5 {
		t.Errorf("median of 4 1 2 3 = %v", got)
	}
	r := median([]Run{{RPS: 10, P99US: 5, Errors: 1}, {RPS: 30, P99US: 1}, {RPS: 20, P99US: 9, Errors: 2}})
	if r.RPS != 20 || r.P99US != 5 || r.Errors != 3 {
		t.Errorf("median of runs: %+v", r)
	}
	for _, tt := range []struct {
		pts  [][2]float64
		want float64
	}{
		{[][2]float64{{0, 10}, {60, 16}, {120, 22}}, 0.1},
		{[][2]float64{{0, 10}, {60, 10}}, 0},
		{[][2]float64{{0, 10}}, 0},
	} {
		if got := slope(tt.pts); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("slope(%v) = %v, want %v", tt.pts, got, tt.want)
		}
	}
}

func TestChooseRate(t *testing.T) {
	mixed := func(name string, rps float64) *ServerResult {
		return &ServerResult{Name: name, Scenarios: []*ScenarioResult{{Name: "mixed", RPS: rps}}}
	}
	servers := []*ServerResult{mixed("redirectd", 60000), mixed("nginx", 80000), mixed("caddy", 5000)}
	if got := chooseRate(servers); got != 30000 {
		t.Errorf("rate = %v, want 30000 (Caddy left out)", got)
	}
	if got := chooseRate(servers[2:]); got != 2500 {
		t.Errorf("rate with Caddy alone = %v, want 2500", got)
	}
}

func TestReadAnswer(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Answer
		err  bool
	}{
		{"redirect", "HTTP/1.1 301 Moved Permanently\r\nlocation: https://e.com/x\r\nContent-Length: 0\r\n\r\n", Answer{Status: 301, Location: "https://e.com/x"}, false},
		{"body", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", Answer{Status: 200, Body: 5}, false},
		{"chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n", Answer{Status: 200, Body: 5}, false},
		{"close-delimited", "HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\nnot found", Answer{Status: 404, Body: 9, Close: true}, false},
		{"garbage", "SSH-2.0-OpenSSH\r\n\r\n", Answer{}, true},
		{"cut short", "HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nabc", Answer{Status: 200, Body: 3}, true},
	}
	for _, tt := range tests {
		got, err := readAnswer(bufio.NewReader(strings.NewReader(tt.in)), true)
		if (err != nil) != tt.err || !cmp.Equal(got, tt.want) {
			t.Errorf("%s: got %+v, %v; want %+v, error %v", tt.name, got, err, tt.want, tt.err)
		}
	}
}

func TestParseWrk(t *testing.T) {
	out := "Running 1s test @ http://127.0.0.1:1/\n  1 threads and 10 connections\nWRKJSON {\"requests\":100,\"duration_us\":1000000,\"connect\":0,\"read\":1,\"write\":0,\"status\":0,\"timeout\":2,\"p50_us\":40,\"p99_us\":90,\"p999_us\":300}\n"
	got, err := parseWrk([]byte(out))
	want := wrkSummary{Requests: 100, DurationUS: 1000000, Read: 1, Timeout: 2, P50US: 40, P99US: 90, P999US: 300}
	if err != nil || got != want {
		t.Errorf("parseWrk = %+v, %v; want %+v", got, err, want)
	}
	if _, err := parseWrk([]byte("unable to connect\n")); err == nil {
		t.Error("no error for output without a summary")
	}
}

func TestReplaceSection(t *testing.T) {
	doc := "# T\n\nbefore\n" + tableStart + "\nold\n" + tableEnd + "\nafter\n"
	got, err := replaceSection([]byte(doc), "new\n")
	want := "# T\n\nbefore\n" + tableStart + "\nnew\n" + tableEnd + "\nafter\n"
	if err != nil || string(got) != want {
		t.Errorf("replaceSection:\n%s\nwant:\n%s (%v)", got, want, err)
	}
	if _, err := replaceSection([]byte("# no markers\n"), "x"); err == nil || !strings.Contains(err.Error(), tableStart) {
		t.Errorf("error %v does not say which markers are missing", err)
	}
}

func TestRenderTable(t *testing.T) {
	sc := func(name string, rps, cpu float64) *ScenarioResult {
		return &ScenarioResult{Name: name, RPS: rps, CPUPerReqUS: cpu, P99US: 100,
			ServerBusy: rps * cpu / 1e6, ClientBusy: 0.97 - 0.17*(5-cpu), RSSAfterMiB: 4 * cpu}
	}
	res := &Results{Date: "2026-11-30", Commit: "abc1234", Quick: true, FixedRate: 1000,
		Versions: map[string]string{"wrk": "4.1"}, Settings: RunSettings{ClientCPUs: "1"},
		Servers: []*ServerResult{
			{Name: "redirectd", Version: "dev", Scenarios: []*ScenarioResult{sc("exact", 150000, 4), {Name: "miss", Failed: "wrong answer: GET /x: got 200"}}},
			{Name: "nginx", Version: "1.22", Scenarios: []*ScenarioResult{sc("exact", 100000, 5)}},
			{Name: "haproxy", Version: "2.6", Failed: "exited at start"},
		}}
	out := renderTable(res)
	for _, want := range []string{
		"**QUICK run**",
		"| req/s | redirectd | nginx | haproxy | redirectd / best peer |",
		"| exact | 150000 | 100000 | failed to start | 1.50 |",
		"| exact | 4.0 | 5.0 | failed to start | 0.80 |",
		"| miss | failed | - | failed to start | - |",
		"- redirectd miss: wrong answer: GET /x: got 200",
		"- haproxy did not start: exited at start",
		"| CPU busy, % of one CPU: server / wrk | redirectd | nginx | haproxy |",
		"| exact | 60 / 80 | 50 / 97 (wrk) | - |",
		"| RSS right after the scenario (MiB) | redirectd | nginx | haproxy | redirectd / best peer |",
		"| exact | 16.0 | 20.0 | failed to start | 0.80 |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

// A run of the sitemap scenarios alone: only their rows, Caddy skipped,
// memory with PSS and peak, and redirectd against the sitemap targets.
func TestRenderSitemapTable(t *testing.T) {
	sc := func(name string, cpu float64) *ScenarioResult {
		return &ScenarioResult{Name: name, RPS: 1e6 / cpu, CPUPerReqUS: cpu, P99US: 100}
	}
	skip := func(name string) *ScenarioResult { return &ScenarioResult{Name: name, Skipped: "not run"} }
	res := &Results{Date: "2026-11-30", Commit: "abc1234", Quick: true,
		Settings: RunSettings{Sitemap: 40000, Scenarios: []string{"sitemap-hit-first", "sitemap-miss"}},
		Versions: map[string]string{"wrk": "4.1"},
		Servers: []*ServerResult{
			{Name: "redirectd", Scenarios: []*ScenarioResult{sc("sitemap-hit-first", 8), sc("sitemap-miss", 10)},
				Sitemap: &SitemapResult{Keys: 40000, StartupMS: 150, Idle: Mem{RSS: 30, PSS: 29, Peak: 60}, Load: Mem{RSS: 31, PSS: 30, Peak: 60}, CheckMS: 400, CheckLoadMS: 300}},
			{Name: "nginx", Scenarios: []*ScenarioResult{sc("sitemap-hit-first", 8), sc("sitemap-miss", 2000)},
				Sitemap: &SitemapResult{Keys: 40000, StartupMS: 200, Idle: Mem{RSS: 58, PSS: 29, Peak: 60}, Load: Mem{RSS: 58, PSS: 29, Peak: 60}}},
			{Name: "caddy", Scenarios: []*ScenarioResult{skip("sitemap-hit-first"), skip("sitemap-miss")},
				Sitemap: &SitemapResult{Keys: 40000, Skipped: "not run"}},
		}}
	out := renderTable(res)
	for _, want := range []string{
		"Sitemap corpus: 40000 regex keys. Scenarios: sitemap-hit-first, sitemap-miss.",
		"| sitemap-miss | 100000 | 500 | skipped | 200.00 |",
		"| sitemap-miss | 10.0 | 2000.0 | skipped | 0.005 |",
		"| PSS after start (MiB) | 29.0 | 29.0 | skipped | 1.00 |",
		"| RSS after start (MiB) | 30.0 | 58.0 | skipped | 0.52 |",
		"| `redirectd check` wall time (ms) | 400.0 | - | skipped | - |",
		"| sitemap-miss | 10.0 | - | 0.005 |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	for _, absent := range []string{"| exact |", "| mixed |", "| memory and start-up |", "fixed rate"} {
		if strings.Contains(out, absent) {
			t.Errorf("table has %q, which this run did not measure:\n%s", absent, out)
		}
	}
}

// The fixed-rate tables: one per scenario run, each server's lowest and
// highest run, and redirectd's ratio to the best peer taken run by run
// (run i of each server was measured back to back), not the ratio of
// the medians.
func TestRenderFixedRateTables(t *testing.T) {
	sc := func(name string, cpus ...float64) *ScenarioResult {
		var runs []Run
		for _, c := range cpus {
			runs = append(runs, Run{CPUPerReqUS: c, P50US: 100, P99US: 300, P999US: 900, Rate: 20000})
		}
		r := median(runs)
		r.Name = name
		return r
	}
	res := &Results{Date: "2026-12-06", Commit: "abc1234", Quick: true, FixedRate: 20000,
		Versions: map[string]string{"wrk": "4.1"}, Settings: RunSettings{Scenarios: []string{"exact-rate", "prefix-rate"}},
		Servers: []*ServerResult{
			{Name: "redirectd", Scenarios: []*ScenarioResult{sc("exact-rate", 4, 6, 5), {Name: "prefix-rate", Failed: "wrong answer"}}},
			{Name: "nginx", Scenarios: []*ScenarioResult{sc("exact-rate", 8, 5, 10), sc("prefix-rate", 7)}},
			{Name: "haproxy", Scenarios: []*ScenarioResult{sc("exact-rate", 5, 12, 10), sc("prefix-rate", 8)}},
		}}
	out := renderTable(res)
	for _, want := range []string{
		"The exact hit at a fixed 20000 req/s",
		"| exact-rate | redirectd | nginx | haproxy | redirectd / best peer |",
		"| server CPU per request (us) | 5.0 | 8.0 | 10.0 | 0.62 |",
		// per run: 4/5, 6/5, 5/10
		"| CPU per request, lowest-highest run (us) | 4.0-6.0 | 5.0-10.0 | 5.0-12.0 | 0.50-1.20 |",
		"The prefix hit at a fixed 20000 req/s",
		"| CPU per request, lowest-highest run (us) | failed | 7.0-7.0 | 8.0-8.0 | - |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Mixed at a fixed") {
		t.Errorf("table has fixed-rate's table, which this run did not measure:\n%s", out)
	}
}

// Start-up's CPU time: a row of the memory table, and in the scale
// table beside the wall time.
func TestRenderStartupCPU(t *testing.T) {
	res := &Results{Date: "2026-12-06", Commit: "abc1234", Quick: true, Versions: map[string]string{"wrk": "4.1"},
		Servers: []*ServerResult{
			{Name: "redirectd", StartupMS: 48, StartupCPUMS: 22.2, Scenarios: []*ScenarioResult{{Name: "exact", RPS: 1, CPUPerReqUS: 1}}},
			{Name: "haproxy", StartupMS: 108, StartupCPUMS: 43.8, Scenarios: []*ScenarioResult{{Name: "exact", RPS: 1, CPUPerReqUS: 1}}},
		},
		Scale: []*ScaleResult{{Exact: 1000000, Server: "redirectd", StartupMS: 2419, StartupCPUMS: 558.5}, {Exact: 1000000, Server: "haproxy", StartupMS: 2330}}}
	out := renderTable(res)
	for _, want := range []string{
		"| CPU to first correct answer (ms) | 22.2 | 43.8 | 0.51 |",
		"| 1000000 | redirectd | 2419 (558.5) |",
		"| 1000000 | haproxy | 2330 (-) |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}
