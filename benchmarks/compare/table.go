package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
)

// The README's section between these markers is rewritten by `compare table`.
const (
	tableStart = "<!-- bench-compare:start -->"
	tableEnd   = "<!-- bench-compare:end -->"
)

// tableMain is `compare table [-readme README.md] results.json`.
func tableMain(args []string) error {
	fs := flag.NewFlagSet("table", flag.ContinueOnError)
	readme := fs.String("readme", "README.md", "file whose marked section is replaced")
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
	label := "Full run"
	if res.Quick {
		label = "**QUICK run** (one short run per scenario, on a shared machine: indicative only)"
	}
	st := res.Settings
	fmt.Fprintf(&b, "%s of `make bench-compare`, %s, commit %s. Rules: %d exact, %d prefix, %d regex. Each scenario: %.0f s warm-up, then %d x %.0f s with %d connections, median kept. Servers on CPU %s, load on CPU %s. Machine: %s, %d CPUs, %d MiB, Linux %s, %s.\n\n",
		label, res.Date, res.Commit, st.Exact, st.Prefix, st.Regex, st.WarmupS, st.Runs, st.DurationS, st.Concurrency,
		st.ServerCPUs, st.ClientCPUs, res.Machine.CPU, res.Machine.CPUs, res.Machine.MemMiB, res.Machine.Kernel, res.Machine.Go)
	var vs []string
	for _, s := range res.Servers {
		vs = append(vs, fmt.Sprintf("%s %s", s.Name, s.Version))
	}
	vs = append(vs, "wrk "+res.Versions["wrk"])
	fmt.Fprintf(&b, "Versions: %s.\n\n", strings.Join(vs, "; "))

	names := make([]string, len(res.Servers))
	for i, s := range res.Servers {
		names[i] = s.Name
	}
	head := func(title, ratio string) {
		fmt.Fprintf(&b, "| %s | %s | %s |\n|---|%s--:|\n", title, strings.Join(names, " | "), ratio, strings.Repeat("--:|", len(names)))
	}
	order := []string{"exact", "prefix", "regex", "miss", "mixed", "exact-churn", "pipelined", "upstream", "upstream-churn", "fixed-rate"}
	cell := func(s *ServerResult, sc string, get func(*ScenarioResult) float64, format string) (string, float64) {
		if s.Failed != "" {
			return "failed to start", 0
		}
		r := s.scenario(sc)
		switch {
		case r == nil:
			return "-", 0
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
	} {
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

	fmt.Fprintf(&b, "Mixed at a fixed %.0f req/s (latency from each request's send time):\n\n", res.FixedRate)
	head("fixed rate", "redirectd / best peer")
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
			c, v := cell(s, "fixed-rate", f.get, f.format)
			cells, vals = append(cells, c), append(vals, v)
		}
		row(f.label, cells, vals, false)
	}
	b.WriteString("\n")

	head("memory and start-up", "redirectd / best peer")
	for _, f := range []struct {
		label string
		get   func(*ServerResult) float64
	}{
		{"start-up to first correct answer (ms)", func(s *ServerResult) float64 { return s.StartupMS }},
		{"RSS idle (MiB)", func(s *ServerResult) float64 { return s.RSSIdleMiB }},
		{"RSS after load (MiB)", func(s *ServerResult) float64 { return s.RSSLoadMiB }},
	} {
		var cells []string
		var vals []float64
		for _, s := range res.Servers {
			if s.Failed != "" {
				cells, vals = append(cells, "failed to start"), append(vals, 0)
				continue
			}
			cells, vals = append(cells, fmt.Sprintf("%.1f", f.get(s))), append(vals, f.get(s))
		}
		row(f.label, cells, vals, false)
	}
	b.WriteString("\n")

	if len(res.Scale) > 0 {
		b.WriteString("| scale: exact rules | server | start-up (ms) | RSS idle (MiB) | RSS after load (MiB) | exact hit req/s | CPU per request (us) |\n|--:|---|--:|--:|--:|--:|--:|\n")
		for _, s := range res.Scale {
			if s.Failed != "" {
				fmt.Fprintf(&b, "| %d | %s | failed: %s | | | | |\n", s.Exact, s.Server, oneLine(s.Failed))
				continue
			}
			fmt.Fprintf(&b, "| %d | %s | %.0f | %.1f | %.1f | %.0f | %.1f |\n", s.Exact, s.Server, s.StartupMS, s.RSSIdleMiB, s.RSSLoadMiB, s.RPS, s.CPUPerReqUS)
		}
		b.WriteString("\n")
	}
	if len(res.Soak) > 0 {
		b.WriteString("| soak (mixed, access log on) | duration | req/s | RSS start -> end (MiB) | growth (MiB/min) | second half (MiB/min) |\n|---|--:|--:|--:|--:|--:|\n")
		for _, s := range res.Soak {
			if s.Failed != "" || len(s.Samples) == 0 {
				fmt.Fprintf(&b, "| %s | failed: %s | | | | |\n", s.Server, oneLine(s.Failed))
				continue
			}
			fmt.Fprintf(&b, "| %s | %.0f s | %.0f | %.1f -> %.1f | %.3f | %.3f |\n", s.Server, s.DurationS, s.RPS,
				s.Samples[0][1], s.Samples[len(s.Samples)-1][1], s.GrowthPerMin, s.GrowthHalfMin)
		}
		b.WriteString("\n")
	}
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
	}
	if len(failures) > 0 {
		b.WriteString("Failed (not timed):\n\n- " + strings.Join(failures, "\n- ") + "\n")
	}
	return b.String()
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
	return fmt.Sprintf("%.2f", own/best)
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.ReplaceAll(s, "|", "/")
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}
