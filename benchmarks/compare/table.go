package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/redirectd/redirectd/internal/shorten"
)

// benchmarks/README.md's section between these markers is rewritten by `compare table`.
const (
	tableStart = "<!-- bench-compare:start -->"
	tableEnd   = "<!-- bench-compare:end -->"
)

// tableMain is `compare table [-readme benchmarks/README.md] results.json`.
func tableMain(args []string) error {
	fs := flag.NewFlagSet("table", flag.ContinueOnError)
	readme := fs.String("readme", "benchmarks/README.md", "file whose marked section is replaced")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("table: give one results file (benchmarks/results/*.json)")
	}
	b, err := os.ReadFile(fs.Arg(0))
	if err != nil {
		return err
	}
	var res Results
	if err := json.Unmarshal(b, &res); err != nil {
		return fmt.Errorf("%s: %w", fs.Arg(0), err)
	}
	doc, err := os.ReadFile(*readme)
	if err != nil {
		return err
	}
	out, err := replaceSection(doc, renderTable(&res)+"\nFrom `"+fs.Arg(0)+"`.\n")
	if err != nil {
		return fmt.Errorf("%s: %w", *readme, err)
	}
	return os.WriteFile(*readme, out, 0o644)
}

// replaceSection puts body between the markers of doc.
func replaceSection(doc []byte, body string) ([]byte, error) {
	i := bytes.Index(doc, []byte(tableStart))
	j := bytes.Index(doc, []byte(tableEnd))
	if i < 0 || j < i {
		return nil, fmt.Errorf("no %s ... %s section to write the table into; add the two markers, each on a line of its own", tableStart, tableEnd)
	}
	var out bytes.Buffer
	out.Write(doc[:i+len(tableStart)])
	out.WriteString("\n" + body)
	out.Write(doc[j:])
	return out.Bytes(), nil
}

// peers are the servers redirectd's figures are compared with.
var peers = map[string]bool{"nginx": true, "haproxy": true, "caddy": true}

// renderTable writes res as Markdown: a header saying what ran where, then
// one table per kind of figure, with redirectd's ratio to the best peer.
func renderTable(res *Results) string {
	var b strings.Builder
	writeRunHeader(&b, res)
	names := make([]string, len(res.Servers))
	for i, s := range res.Servers {
		names[i] = s.Name
	}
	head := func(title, ratio string) {
		fmt.Fprintf(&b, "| %s | %s | %s |\n|---|%s--:|\n", title, strings.Join(names, " | "), ratio, strings.Repeat("--:|", len(names)))
	}
	order := scenarioOrder(res) // only the scenarios of this run get a row
	cell := func(s *ServerResult, sc string, get func(*ScenarioResult) float64, format string) (string, float64) {
		if s.Failed != "" {
			return "failed to start", 0
		}
		r := s.scenario(sc)
		switch {
		case r == nil:
			return "-", 0
		case r.Skipped != "":
			return "skipped", 0
		case r.Failed != "":
			return "failed", 0
		}
		if get(r) == 0 { // wrk gives no latency for pipelined batches
			return "-", 0
		}
		return fmt.Sprintf(format, get(r)), get(r)
	}
	// row writes one line; higher says whether more is better, which picks
	// the best peer for the ratio.
	row := func(label string, cells []string, vals []float64, higher bool) {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", label, strings.Join(cells, " | "), ratio(names, vals, higher))
	}
	for _, tab := range []struct {
		title, ratio string
		get          func(*ScenarioResult) float64
		format       string
		higher       bool
	}{
		{"req/s", "redirectd / best peer", func(r *ScenarioResult) float64 { return r.RPS }, "%.0f", true},
		{"server CPU per request (us)", "redirectd / best peer", func(r *ScenarioResult) float64 { return r.CPUPerReqUS }, "%.1f", false},
		{"p99 latency (us)", "redirectd / best peer", func(r *ScenarioResult) float64 { return r.P99US }, "%.0f", false},
		{"RSS right after the scenario (MiB)", "redirectd / best peer", func(r *ScenarioResult) float64 { return r.RSSAfterMiB }, "%.1f", false},
	} {
		if len(order) == 0 {
			break
		}
		head(tab.title, tab.ratio)
		for _, sc := range order {
			var cells []string
			var vals []float64
			for _, s := range res.Servers {
				c, v := cell(s, sc, tab.get, tab.format)
				cells, vals = append(cells, c), append(vals, v)
			}
			row(sc, cells, vals, tab.higher)
		}
		b.WriteString("\n")
	}

	busyTable(&b, res, names, order)
	fixedRateTables(&b, res, head, cell, row)
	if slices.ContainsFunc(res.Servers, func(s *ServerResult) bool { return s.StartupMS > 0 }) {
		memoryTable(&b, res, head, row)
	}
	if slices.ContainsFunc(res.Servers, func(s *ServerResult) bool { return s.Sitemap != nil }) {
		sitemapTables(&b, res, head, row)
	}
	tlsTables(&b, res, head, row)
	scaleAndSoak(&b, res)
	if failures := failureList(res); len(failures) > 0 {
		b.WriteString("Failed (not timed):\n\n- " + strings.Join(failures, "\n- ") + "\n")
	}
	return b.String()
}

// writeRunHeader writes what ran where: the rules and scenarios, the
// settings, the machine and each program's version.
func writeRunHeader(b *strings.Builder, res *Results) {
	label := "Full run"
	if res.Quick {
		label = "**QUICK run** (one short run per scenario, on a shared machine: indicative only)"
	}
	st := res.Settings
	ruleSets := runSetsText(res)
	fmt.Fprintf(b, "%s of `make bench-compare`, %s, commit %s. %s Each scenario: %.0f s warm-up, then %d x %.0f s with %d connections, median kept. Servers on CPU %s, load on CPU %s. Machine: %s, %d CPUs, %d MiB, Linux %s, %s.\n\n",
		label, res.Date, res.Commit, ruleSets, st.WarmupS, st.Runs, st.DurationS, st.Concurrency,
		st.ServerCPUs, st.ClientCPUs, res.Machine.CPU, res.Machine.CPUs, res.Machine.MemMiB, res.Machine.Kernel, res.Machine.Go)
	var vs []string
	for _, s := range res.Servers {
		vs = append(vs, fmt.Sprintf("%s %s", s.Name, cmp.Or(s.Version, "(not installed)")))
	}
	vs = append(vs, "wrk "+res.Versions["wrk"])
	fmt.Fprintf(b, "Versions: %s.\n\n", strings.Join(vs, "; "))
}

// runSetsText says which rule sets and scenarios the run had.
func runSetsText(res *Results) string {
	st := res.Settings
	var sets []string
	reference := len(res.Scale) > 0 || len(res.Soak) > 0 || slices.ContainsFunc(res.Servers, func(s *ServerResult) bool {
		return slices.ContainsFunc(s.Scenarios, func(r *ScenarioResult) bool { return !strings.HasPrefix(r.Name, "sitemap-") && r.Name != "proxy" })
	})
	proxy := slices.ContainsFunc(res.Servers, func(s *ServerResult) bool { return s.scenario("proxy") != nil })
	if reference || st.Sitemap == 0 && !proxy {
		sets = append(sets, fmt.Sprintf("Rules: %d exact, %d prefix, %d regex.", st.Exact, st.Prefix, st.Regex))
	}
	if proxy {
		sets = append(sets, fmt.Sprintf("proxy: %d exact rule, no prefix or regex; every request a miss forwarded to an nginx origin on CPU %s answering %d bytes, keep-alive both sides.", proxySpec.Exact, st.ClientCPUs, originBody))
	}
	if slices.ContainsFunc(res.Servers, func(s *ServerResult) bool { return s.scenario("tls-exact") != nil || s.TLSIdle != nil }) {
		sets = append(sets, "tls-*: the same rules over HTTPS, one ECDSA P-256 certificate generated for the run, each server's default TLS settings (1.2 and 1.3, session tickets on); tls-churn's wrk resumes the session on each new connection; tls-full makes a full handshake per connection (compare handshakes, X25519 share, no session offered).")
	}
	if st.Sitemap > 0 {
		sets = append(sets, fmt.Sprintf("Sitemap corpus: %d regex keys.", st.Sitemap))
	}
	ruleSets := strings.Join(sets, " ")
	if len(st.Scenarios) > 0 {
		ruleSets += " Scenarios: " + strings.Join(st.Scenarios, ", ") + "."
	}
	return ruleSets
}

// scenarioOrder lists the scenarios of this run in the tables' order.
func scenarioOrder(res *Results) []string {
	var order []string
	for _, sc := range slices.Concat(scenarioGroups["reference"], []string{"model-exact-base", "model-exact"}, scenarioGroups["proxy"], scenarioGroups["tls"], scenarioGroups["h2"], scenarioGroups["sitemap"]) {
		if slices.ContainsFunc(res.Servers, func(s *ServerResult) bool { return s.scenario(sc) != nil }) {
			order = append(order, sc)
		}
	}
	return order
}

// failureList says, one line each, what failed to start or run.
func failureList(res *Results) []string {
	var failures []string
	for _, s := range res.Servers {
		if s.Failed != "" {
			failures = append(failures, fmt.Sprintf("%s did not start: %s", s.Name, oneLine(s.Failed)))
		}
		for _, r := range s.Scenarios {
			if r.Failed != "" {
				failures = append(failures, fmt.Sprintf("%s %s: %s", s.Name, r.Name, oneLine(r.Failed)))
			}
		}
		if s.Sitemap != nil && s.Sitemap.Failed != "" {
			failures = append(failures, fmt.Sprintf("%s did not start on the sitemap corpus: %s", s.Name, oneLine(s.Sitemap.Failed)))
		}
		if s.TLSIdle != nil && s.TLSIdle.Failed != "" {
			failures = append(failures, fmt.Sprintf("%s tls-idle: %s", s.Name, oneLine(s.TLSIdle.Failed)))
		}
		if s.H2Idle != nil && s.H2Idle.Failed != "" {
			failures = append(failures, fmt.Sprintf("%s h2-idle: %s", s.Name, oneLine(s.H2Idle.Failed)))
		}
		if s.Sitemap != nil && s.Sitemap.CheckFailed != "" {
			failures = append(failures, fmt.Sprintf("%s check on the sitemap corpus: %s", s.Name, oneLine(s.Sitemap.CheckFailed)))
		}
	}
	return failures
}

// The table writers below share renderTable's helpers: head writes a
// table's header, cell one scenario figure of a server, row one line with
// redirectd's ratio to the best peer.
type (
	headFunc func(title, ratio string)
	cellFunc func(s *ServerResult, sc string, get func(*ScenarioResult) float64, format string) (string, float64)
	rowFunc  func(label string, cells []string, vals []float64, higher bool)
)

// fixedScenarios are the scenarios at one offered load, with what each
// sends, in the order of their tables.
var fixedScenarios = []struct{ name, what string }{
	{"fixed-rate", "Mixed"},
	{"exact-rate", "The exact hit"},
	{"prefix-rate", "The prefix hit"},
}

// fixedRateTables writes a table for each fixed-rate scenario of the run:
// latency, CPU per request, and the run-to-run spread of both the CPU per
// request and redirectd's ratio to the best peer taken run by run.
func fixedRateTables(b *strings.Builder, res *Results, head headFunc, cell cellFunc, row rowFunc) {
	for _, fs := range fixedScenarios {
		if !slices.ContainsFunc(res.Servers, func(s *ServerResult) bool { return s.scenario(fs.name) != nil }) {
			continue
		}
		fmt.Fprintf(b, "%s at a fixed %.0f req/s (latency from each request's send time):\n\n", fs.what, res.FixedRate)
		head(fs.name, "redirectd / best peer")
		for _, f := range []struct {
			label  string
			get    func(*ScenarioResult) float64
			format string
		}{
			{"p50 (us)", func(r *ScenarioResult) float64 { return r.P50US }, "%.0f"},
			{"p99 (us)", func(r *ScenarioResult) float64 { return r.P99US }, "%.0f"},
			{"p99.9 (us)", func(r *ScenarioResult) float64 { return r.P999US }, "%.0f"},
			{"server CPU per request (us)", func(r *ScenarioResult) float64 { return r.CPUPerReqUS }, "%.1f"},
		} {
			var cells []string
			var vals []float64
			for _, s := range res.Servers {
				c, v := cell(s, fs.name, f.get, f.format)
				cells, vals = append(cells, c), append(vals, v)
			}
			row(f.label, cells, vals, false)
		}
		var cells []string
		for _, s := range res.Servers {
			c, _ := cell(s, fs.name, func(r *ScenarioResult) float64 { return r.CPUPerReqUS }, "%.1f")
			if r := s.scenario(fs.name); c != "-" && r != nil && r.Failed == "" && r.Skipped == "" && s.Failed == "" {
				lo, hi := cpuSpread(r.Runs)
				c = fmt.Sprintf("%.1f-%.1f", lo, hi)
			}
			cells = append(cells, c)
		}
		spread := "-"
		if lo, hi, ok := pairedRatios(res.Servers, fs.name); ok {
			spread = ratioString(lo) + "-" + ratioString(hi)
		}
		fmt.Fprintf(b, "| CPU per request, lowest-highest run (us) | %s | %s |\n\n", strings.Join(cells, " | "), spread)
	}
}

// memRow is one line of a memory table: label, and each server's figure
// (0 shows as -: not measured, or a results file from before the figure).
type memRow struct {
	label string
	get   func(*ServerResult) float64
}

func memoryRows(b *strings.Builder, res *Results, rows []memRow, row rowFunc, skipped func(*ServerResult) string) {
	for _, f := range rows {
		var cells []string
		var vals []float64
		for _, s := range res.Servers {
			switch v := f.get(s); {
			case s.Failed != "":
				cells, vals = append(cells, "failed to start"), append(vals, 0)
			case skipped(s) != "":
				cells, vals = append(cells, skipped(s)), append(vals, 0)
			case v == 0:
				cells, vals = append(cells, "-"), append(vals, 0)
			default:
				cells, vals = append(cells, fmt.Sprintf("%.1f", v)), append(vals, v)
			}
		}
		row(f.label, cells, vals, false)
	}
	b.WriteString("\n")
}

// memoryTable is start-up and memory with the reference rules. RSS counts
// a page shared by nginx's master and worker in both; PSS shares it out;
// peak is VmHWM, the highest RSS of each process, summed.
func memoryTable(b *strings.Builder, res *Results, head headFunc, row rowFunc) {
	head("memory and start-up", "redirectd / best peer")
	memoryRows(b, res, []memRow{
		{"start-up to first correct answer (ms)", func(s *ServerResult) float64 { return s.StartupMS }},
		{"CPU to first correct answer (ms)", func(s *ServerResult) float64 { return s.StartupCPUMS }},
		{"RSS idle (MiB)", func(s *ServerResult) float64 { return s.RSSIdleMiB }},
		{"PSS idle (MiB)", func(s *ServerResult) float64 { return s.PSSIdleMiB }},
		{"RSS after load (MiB)", func(s *ServerResult) float64 { return s.RSSLoadMiB }},
		{"PSS after load (MiB)", func(s *ServerResult) float64 { return s.PSSLoadMiB }},
		{"peak RSS, VmHWM (MiB)", func(s *ServerResult) float64 { return s.PeakMiB }},
	}, row, func(*ServerResult) string { return "" })
}

// sitemapTables is start-up, memory and check time on the sitemap corpus,
// then redirectd's CPU per request there against its targets.
func sitemapTables(b *strings.Builder, res *Results, head headFunc, row rowFunc) {
	sm := func(get func(*SitemapResult) float64) func(*ServerResult) float64 {
		return func(s *ServerResult) float64 {
			if s.Sitemap == nil {
				return 0
			}
			return get(s.Sitemap)
		}
	}
	skipped := func(s *ServerResult) string {
		switch {
		case s.Sitemap == nil:
			return ""
		case s.Sitemap.Skipped != "":
			return "skipped"
		case s.Sitemap.Failed != "":
			return "failed to start"
		}
		return ""
	}
	fmt.Fprintf(b, "Sitemap corpus (%d regex keys in one map): start-up, memory, and `redirectd check` (median of 3, pinned as the server):\n\n", res.Settings.Sitemap)
	head("sitemap: memory and start-up", "redirectd / best peer")
	memoryRows(b, res, []memRow{
		{"start-up to first correct answer (ms)", sm(func(r *SitemapResult) float64 { return r.StartupMS })},
		{"CPU to first correct answer (ms)", sm(func(r *SitemapResult) float64 { return r.StartupCPUMS })},
		{"RSS after start (MiB)", sm(func(r *SitemapResult) float64 { return r.Idle.RSS })},
		{"PSS after start (MiB)", sm(func(r *SitemapResult) float64 { return r.Idle.PSS })},
		{"peak after start, VmHWM (MiB)", sm(func(r *SitemapResult) float64 { return r.Idle.Peak })},
		{"RSS after load (MiB)", sm(func(r *SitemapResult) float64 { return r.Load.RSS })},
		{"PSS after load (MiB)", sm(func(r *SitemapResult) float64 { return r.Load.PSS })},
		{"peak after load, VmHWM (MiB)", sm(func(r *SitemapResult) float64 { return r.Load.Peak })},
		{"`redirectd check` wall time (ms)", sm(func(r *SitemapResult) float64 { return r.CheckMS })},
		{"`redirectd check` load+compile (ms)", sm(func(r *SitemapResult) float64 { return r.CheckLoadMS })},
	}, row, skipped)

	var own *ServerResult
	for _, s := range res.Servers {
		if s.Name == "redirectd" {
			own = s
		}
	}
	cpu := func(s *ServerResult, sc string) float64 {
		if s == nil {
			return 0
		}
		if r := s.scenario(sc); r != nil && r.Failed == "" && r.Skipped == "" {
			return r.CPUPerReqUS
		}
		return 0
	}
	var nginxMiss float64
	for _, s := range res.Servers {
		if s.Name == "nginx" {
			nginxMiss = cpu(s, "sitemap-miss")
		}
	}
	exact := cpu(own, "exact")
	if own == nil || cpu(own, "sitemap-miss")+cpu(own, "sitemap-hit-first")+cpu(own, "sitemap-hit-last") == 0 {
		return
	}
	ratio := func(a, b float64) string {
		if a == 0 || b == 0 {
			return "-"
		}
		return ratioString(a / b)
	}
	fmt.Fprintf(b, "redirectd's CPU per request on the sitemap corpus against its targets (over its own exact hit in this run: <= 1.5; over nginx's sitemap miss: <= 0.2):\n\n")
	b.WriteString("| sitemap | redirectd CPU per request (us) | / redirectd exact | / nginx sitemap-miss |\n|---|--:|--:|--:|\n")
	for _, sc := range []string{"sitemap-hit-first", "sitemap-hit-last", "sitemap-miss", "sitemap-mixed"} {
		if v := cpu(own, sc); v > 0 {
			fmt.Fprintf(b, "| %s | %.1f | %s | %s |\n", sc, v, ratio(v, exact), ratio(v, nginxMiss))
		}
	}
	b.WriteString("\n")
}

// scaleAndSoak writes the scale and soak tables, when the run had them.
func scaleAndSoak(b *strings.Builder, res *Results) {
	if len(res.Scale) > 0 {
		b.WriteString("| scale: exact rules | server | start-up (ms), CPU in it | RSS idle (MiB) | RSS after load (MiB) | PSS after load (MiB) | peak, VmHWM (MiB) | exact hit req/s | CPU per request (us) |\n|--:|---|--:|--:|--:|--:|--:|--:|--:|\n")
		for _, s := range res.Scale {
			if s.Failed != "" {
				fmt.Fprintf(b, "| %d | %s | failed: %s | | | | | | |\n", s.Exact, s.Server, oneLine(s.Failed))
				continue
			}
			fmt.Fprintf(b, "| %d | %s | %.0f (%s) | %.1f | %.1f | %s | %s | %.0f | %.1f |\n", s.Exact, s.Server, s.StartupMS, orNone(s.StartupCPUMS), s.RSSIdleMiB, s.RSSLoadMiB,
				orNone(s.PSSLoadMiB), orNone(s.PeakMiB), s.RPS, s.CPUPerReqUS)
		}
		b.WriteString("\n")
	}
	if len(res.Soak) > 0 {
		b.WriteString("| soak (mixed, access log on) | duration | req/s | RSS start -> end (MiB) | growth (MiB/min) | second half (MiB/min) |\n|---|--:|--:|--:|--:|--:|\n")
		for _, s := range res.Soak {
			if s.Failed != "" || len(s.Samples) == 0 {
				fmt.Fprintf(b, "| %s | failed: %s | | | | |\n", s.Server, oneLine(s.Failed))
				continue
			}
			fmt.Fprintf(b, "| %s | %.0f s | %.0f | %.1f -> %.1f | %.3f | %.3f |\n", s.Server, s.DurationS, s.RPS,
				s.Samples[0][1], s.Samples[len(s.Samples)-1][1], s.GrowthPerMin, s.GrowthHalfMin)
		}
		b.WriteString("\n")
	}
}

func orNone(v float64) string {
	if v == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", v)
}

// ratio is redirectd's value over the best peer's, "-" when either is
// missing.
func ratio(names []string, vals []float64, higher bool) string {
	own, best := 0.0, 0.0
	for i, n := range names {
		if vals[i] == 0 {
			continue
		}
		switch {
		case n == "redirectd":
			own = vals[i]
		case peers[n] && (best == 0 || (higher && vals[i] > best) || (!higher && vals[i] < best)):
			best = vals[i]
		}
	}
	if own == 0 || best == 0 {
		return "-"
	}
	return ratioString(own / best)
}

// ratioString writes a ratio with two decimals, or two significant digits
// below 0.1, where a hundredfold gap would round to 0.00.
func ratioString(r float64) string {
	if r < 0.1 {
		return fmt.Sprintf("%.2g", r)
	}
	return fmt.Sprintf("%.2f", r)
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.ReplaceAll(s, "|", "/")
	return shorten.Text(s, 200)
}

// idleTable writes the memory per idle connection of one idle scenario
// (name; kind names its connections), when the run had it.
func idleTable(b *strings.Builder, res *Results, head headFunc, row rowFunc, name, kind string, of func(*ServerResult) *IdleResult) {
	if !slices.ContainsFunc(res.Servers, func(s *ServerResult) bool { return of(s) != nil }) {
		return
	}
	conns := 0
	for _, s := range res.Servers {
		if r := of(s); r != nil && r.Conns > 0 {
			conns = r.Conns
		}
	}
	fmt.Fprintf(b, "%s: the server's memory growth with %d idle %s keep-alive connections open (each did a full handshake and one request), over %d:\n\n", name, conns, kind, conns)
	head(name, "redirectd / best peer")
	idle := func(get func(*IdleResult) float64) func(*ServerResult) float64 {
		return func(s *ServerResult) float64 {
			if r := of(s); r != nil && r.Failed == "" {
				return get(r)
			}
			return 0
		}
	}
	memoryRows(b, res, []memRow{
		{fmt.Sprintf("PSS per idle %s connection (KiB)", kind), idle(func(r *IdleResult) float64 { return r.PSSPerConnKiB })},
		{fmt.Sprintf("RSS per idle %s connection (KiB)", kind), idle(func(r *IdleResult) float64 { return r.RSSPerConnKiB })},
		{"PSS before (MiB)", idle(func(r *IdleResult) float64 { return r.Before.PSS })},
		{"PSS with the connections open (MiB)", idle(func(r *IdleResult) float64 { return r.After.PSS })},
	}, row, func(s *ServerResult) string {
		if r := of(s); r != nil && r.Failed != "" {
			return "failed"
		}
		return ""
	})
}

// tlsTables writes the idle TLS memory per connection and redirectd's
// HTTPS figures against the HTTPS targets, when the run had them.
func tlsTables(b *strings.Builder, res *Results, head headFunc, row rowFunc) {
	idleTable(b, res, head, row, "tls-idle", "TLS", func(s *ServerResult) *IdleResult { return s.TLSIdle })
	idleTable(b, res, head, row, "h2-idle", "HTTP/2", func(s *ServerResult) *IdleResult { return s.H2Idle })
	if v := tlsVerdicts(res); len(v) > 0 {
		b.WriteString("redirectd over HTTPS against its targets (same run):\n\n| target | redirectd | reference | ratio | verdict |\n|---|--:|--:|--:|---|\n")
		for _, x := range v {
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", x.Target, x.Own, x.Ref, ratioString(x.Ratio), x.Verdict)
		}
		b.WriteString("\n")
	}
}

// tlsVerdict is one of the HTTPS targets, as measured in one run.
type tlsVerdict struct {
	Target, Own, Ref string
	Ratio            float64 // redirectd's figure over the reference
	Verdict          string  // "met" or "**missed**"
}

// tlsVerdicts checks the HTTPS targets: keep-alive HTTPS req/s at least
// the best peer's, CPU per request no more than the best peer's,
// handshakes/s (tls-churn) at least twice nginx's, CPU per full handshake
// (tls-full) no more than nginx's. A target whose figures
// are missing is left out.
func tlsVerdicts(res *Results) []tlsVerdict {
	fig := func(s *ServerResult, sc string, get func(*ScenarioResult) float64) float64 {
		if s == nil || s.Failed != "" {
			return 0
		}
		if r := s.scenario(sc); r != nil && r.Failed == "" && r.Skipped == "" {
			return get(r)
		}
		return 0
	}
	var own *ServerResult
	for _, s := range res.Servers {
		if s.Name == "redirectd" {
			own = s
		}
	}
	// best is the best peer's figure and its name.
	best := func(sc string, get func(*ScenarioResult) float64, higher bool) (float64, string) {
		v, name := 0.0, ""
		for _, s := range res.Servers {
			x := fig(s, sc, get)
			if !peers[s.Name] || x == 0 {
				continue
			}
			if v == 0 || (higher && x > v) || (!higher && x < v) {
				v, name = x, s.Name
			}
		}
		return v, name
	}
	rps := func(r *ScenarioResult) float64 { return r.RPS }
	cpu := func(r *ScenarioResult) float64 { return r.CPUPerReqUS }
	var out []tlsVerdict
	add := func(target string, own, ref float64, refName, format string, factor float64, higher bool) {
		if own == 0 || ref == 0 {
			return
		}
		r := own / ref
		ok := (higher && r >= factor) || (!higher && r <= factor)
		v := tlsVerdict{Target: target, Own: fmt.Sprintf(format, own), Ref: fmt.Sprintf(format+" (%s)", ref, refName), Ratio: r, Verdict: "met"}
		if !ok {
			v.Verdict = "**missed**"
		}
		out = append(out, v)
	}
	ref, name := best("tls-exact", rps, true)
	add("tls-exact req/s >= best peer", fig(own, "tls-exact", rps), ref, name, "%.0f", 1, true)
	ref, name = best("tls-exact", cpu, false)
	add("tls-exact CPU per request <= best peer", fig(own, "tls-exact", cpu), ref, name, "%.1f us", 1, false)
	var nginx *ServerResult
	for _, s := range res.Servers {
		if s.Name == "nginx" {
			nginx = s
		}
	}
	add("tls-churn handshakes/s >= 2x nginx", fig(own, "tls-churn", rps), fig(nginx, "tls-churn", rps), "nginx", "%.0f", 2, true)
	add("tls-full CPU per full handshake <= nginx", fig(own, "tls-full", cpu), fig(nginx, "tls-full", cpu), "nginx", "%.1f us", 1, false)
	return out
}

// busyTable shows how busy the server and wrk kept their CPUs in each
// timed scenario, so a figure bounded by the load generator reads as such:
// the server cannot be shown faster than wrk can ask. Results from before
// the figure was kept have no table.
func busyTable(b *strings.Builder, res *Results, names, order []string) {
	var rows []string
	marked := false
	for _, sc := range order {
		cells, found := make([]string, len(res.Servers)), false
		for i, s := range res.Servers {
			cells[i] = "-"
			if r := s.scenario(sc); r != nil && r.ClientBusy > 0 {
				cells[i], found = fmt.Sprintf("%.0f / %.0f", 100*r.ServerBusy, 100*r.ClientBusy), true
				if r.ClientBusy >= wrkBound*float64(cpuCount(res.Settings.ClientCPUs)) {
					cells[i], marked = cells[i]+" (wrk)", true
				}
			}
		}
		if found {
			rows = append(rows, fmt.Sprintf("| %s | %s |\n", sc, strings.Join(cells, " | ")))
		}
	}
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(b, "| CPU busy, %% of one CPU: server / wrk | %s |\n|---|%s\n", strings.Join(names, " | "), strings.Repeat("--:|", len(names)))
	b.WriteString(strings.Join(rows, "") + "\n")
	if marked {
		fmt.Fprintf(b, "(wrk): wrk kept its CPUs at least %.0f %% busy, so the load generator, not the server, bounded that run's req/s.\n\n", 100*wrkBound)
	}
}

// wrkBound is the share of its CPUs at which wrk is taken to bound a run.
const wrkBound = 0.95

// cpuCount counts the CPUs of a list as cpuList writes it ("1" or "8,9,10").
func cpuCount(list string) int { return max(1, strings.Count(list, ",")+1) }
