package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
)

// fixedServer is one server's instance in the fixed-rate phase and the
// runs it has had so far, by scenario.
type fixedServer struct {
	sr     *ServerResult
	p      *Proc
	addr   string
	runs   map[string][]Run
	failed map[string]string
}

// fixedPhase runs the fixed-rate scenarios (fixed-rate, exact-rate,
// prefix-rate) at rate on an instance of each server started for them.
// The instances are all up at once, idle but for the one under load, and
// the runs alternate between them: run i goes through the servers
// starting from the i-th. On a shared machine the load drifts over
// minutes; alternating puts that drift on every server alike, and run i
// of two servers is a pair whose ratio can be taken on its own, which is
// how the table reports the run-to-run spread.
func (h *harness) fixedPhase(servers []Server, rate float64) {
	scs := h.scenariosWhere(func(sc Scenario) bool { return sc.Fixed && !sc.Sitemap })
	if len(scs) == 0 {
		return
	}
	failAll := func(sr *ServerResult, why string) {
		for _, sc := range scs {
			sr.Scenarios = append(sr.Scenarios, &ScenarioResult{Name: sc.Name, Failed: why})
		}
	}
	var up []*fixedServer
	for i, srv := range servers {
		sr := h.res.Servers[i]
		switch {
		case sr.Failed != "":
			continue
		case rate <= 0:
			failAll(sr, "no server had a mixed figure to set the rate (set RATE)")
			continue
		}
		p, addr, _, err := h.launch(srv, Instance{Spec: h.s.Spec}, "fixed")
		if err != nil {
			failAll(sr, err.Error())
			continue
		}
		defer p.Stop()
		up = append(up, &fixedServer{sr: sr, p: p, addr: addr, runs: map[string][]Run{}, failed: map[string]string{}})
	}
	logf("fixed rate %.0f req/s: %d servers up at once, runs alternating", rate, len(up))
	for _, sc := range scs {
		for _, f := range up {
			if err := verifyTLS(f.addr, sc, h.tlsFiles); err != nil {
				f.failed[sc.Name] = "wrong answer: " + err.Error()
			}
		}
		for i := range h.s.Runs {
			for k := range up {
				f := up[(i+k)%len(up)]
				if f.failed[sc.Name] != "" {
					continue
				}
				run, err := h.loadRun(f.p, f.addr, sc, rate)
				if err != nil {
					f.failed[sc.Name] = err.Error()
					continue
				}
				logf("  %-15s run %d %-10s %6.1f us CPU/req  %5.2f switches/req  p99 %7.0f us  %d errors", sc.Name, i+1, f.sr.Name, run.CPUPerReqUS, run.SwitchesPerReq, run.P99US, run.Errors)
				f.runs[sc.Name] = append(f.runs[sc.Name], run)
			}
		}
		for _, f := range up {
			f.sr.Scenarios = append(f.sr.Scenarios, f.result(sc.Name))
		}
	}
}

// result is the scenario's median over f's runs, or its failure.
func (f *fixedServer) result(name string) *ScenarioResult {
	if why := f.failed[name]; why != "" {
		logf("  %-15s %-10s FAILED: %s", name, f.sr.Name, why)
		return &ScenarioResult{Name: name, Failed: why}
	}
	r := median(f.runs[name])
	r.Name = name
	r.RSSAfterMiB = f.p.Mem().RSS
	lo, hi := cpuSpread(r.Runs)
	logf("  %-15s %-10s %6.1f us CPU/req (runs %.1f-%.1f)  %5.2f switches/req  p99 %7.0f us  RSS %.1f MiB", name, f.sr.Name, r.CPUPerReqUS, lo, hi, r.SwitchesPerReq, r.P99US, r.RSSAfterMiB)
	return r
}

// loadRun is one run of sc at rate with the load generator (warm-up
// included), with the server's CPU over it.
func (h *harness) loadRun(p *Proc, addr string, sc Scenario, rate float64) (Run, error) {
	c0, s0 := p.CPU(), p.Switches()
	out, err := exec.Command("taskset", "-c", h.s.ClientCPUs, h.self, "loadgen", "-addr", addr,
		"-rate", fmt.Sprint(rate), "-c", strconv.Itoa(h.s.Concurrency), "-warmup", h.s.Warmup.String(),
		"-d", h.s.Duration.String(), "-requests", h.reqFiles[sc.Name]).Output()
	c1, s1 := p.CPU(), p.Switches()
	if err != nil {
		return Run{}, fmt.Errorf("loadgen: %v", err)
	}
	var lr LoadResult
	if err := json.Unmarshal(out, &lr); err != nil {
		return Run{}, fmt.Errorf("loadgen output %q: %v", out, err)
	}
	if lr.Total == 0 {
		return Run{}, errors.New("no request was answered: " + lr.FirstError)
	}
	return Run{RPS: lr.Achieved, P50US: lr.P50US, P99US: lr.P99US, P999US: lr.P999US,
		CPUPerReqUS: float64((c1 - c0).Microseconds()) / float64(lr.Total),
		Errors:      int64(lr.Errors), Rate: rate, PacerLagUS: lr.PacerLagUS,
		SwitchesPerReq: float64(s1-s0) / float64(lr.Total)}, nil
}

// cpuSpread is the lowest and highest CPU per request of runs.
func cpuSpread(runs []Run) (lo, hi float64) {
	for i, r := range runs {
		if i == 0 || r.CPUPerReqUS < lo {
			lo = r.CPUPerReqUS
		}
		if i == 0 || r.CPUPerReqUS > hi {
			hi = r.CPUPerReqUS
		}
	}
	return lo, hi
}

// pairedRatios is redirectd's CPU per request over the best peer's, run
// by run (the fixed-rate runs alternate, so run i of each server was
// measured back to back), lowest and highest; ok is false without
// redirectd, a peer, or runs in step.
func pairedRatios(servers []*ServerResult, name string) (lo, hi float64, ok bool) {
	var own []Run
	var peerRuns [][]Run
	for _, s := range servers {
		r := s.scenario(name)
		if s.Failed != "" || r == nil || r.Failed != "" || r.Skipped != "" {
			continue
		}
		switch {
		case s.Name == "redirectd":
			own = r.Runs
		case peers[s.Name]:
			peerRuns = append(peerRuns, r.Runs)
		}
	}
	if len(own) == 0 || len(peerRuns) == 0 {
		return 0, 0, false
	}
	for i, o := range own {
		best := 0.0
		for _, pr := range peerRuns {
			if i < len(pr) && pr[i].CPUPerReqUS > 0 && (best == 0 || pr[i].CPUPerReqUS < best) {
				best = pr[i].CPUPerReqUS
			}
		}
		if best == 0 {
			return 0, 0, false
		}
		r := o.CPUPerReqUS / best
		if !ok || r < lo {
			lo = r
		}
		if !ok || r > hi {
			hi = r
		}
		ok = true
	}
	return lo, hi, ok
}
