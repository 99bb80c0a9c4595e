package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/redirectd/redirectd/benchmarks/rules"
	"github.com/redirectd/redirectd/engine/testport"
)

// harness holds what one run shares: settings, the work directory, the
// scenarios with their request files, and the origin for forwarded misses.
type harness struct {
	s         Settings
	work      string
	self      string // this executable, run again as `loadgen`
	script    string // the wrk Lua script
	scenarios []Scenario
	reqFiles  map[string]string
	origin    string
	res       *Results
	tlsFiles  *TLSFiles // the HTTPS scenarios' certificate; nil without them
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1e3 }

// freePort is a port for a server to listen on, drawn below the
// kernel's ephemeral range (testport.Reserve): HAProxy and redirectd bind
// with SO_REUSEPORT, so a port the kernel had meanwhile handed to another
// program's ":0" listener would be shared with it.
func freePort() (int, error) {
	_, port, err := testport.Reserve()
	return port, err
}

// launch configures and starts srv from a fresh directory and waits for its
// first correct answer to in.ready() (the last exact rule, or the
// sitemap's first key).
func (h *harness) launch(srv Server, in Instance, tag string) (*Proc, string, time.Duration, error) {
	in.Dir = filepath.Join(h.work, srv.Name()+"-"+tag)
	if err := mkdirs(in.Dir); err != nil {
		return nil, "", 0, err
	}
	port, err := freePort()
	if err != nil {
		return nil, "", 0, err
	}
	in.Port, in.CPUs = port, h.s.NServer
	if in.TLS != nil {
		if in.TLSPort, err = freePort(); err != nil {
			return nil, "", 0, err
		}
	}
	argv, env, err := srv.Configure(in)
	if err != nil {
		return nil, "", 0, err
	}
	p, err := start(srv.Name(), h.s.ServerCPUs, argv, env, filepath.Join(in.Dir, "server.log"))
	if err != nil {
		return nil, "", 0, err
	}
	if in.TLS != nil {
		p.TLSAddr = tlsListen(in)
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	startup, err := waitReady(p, addr, in.ready(), 5*time.Minute)
	if err != nil {
		p.Stop()
		return nil, "", 0, err
	}
	p.StartupCPU = p.SchedCPU()
	return p, addr, startup, nil
}

// timed runs sc against the server with wrk: a warm-up, then Runs runs.
func (h *harness) timed(p *Proc, addr string, sc Scenario) *ScenarioResult {
	if err := h.warmUp(addr, sc); err != nil {
		return &ScenarioResult{Name: sc.Name, Failed: err.Error()}
	}
	return h.repeat(sc.Name, func() (Run, error) { return h.timedRun(p, addr, sc) })
}

// repeat runs once Runs times and gives the median of the runs, named
// name, or the first run's failure.
func (h *harness) repeat(name string, once func() (Run, error)) *ScenarioResult {
	var runs []Run
	for range h.s.Runs {
		run, err := once()
		if err != nil {
			return &ScenarioResult{Name: name, Failed: err.Error()}
		}
		runs = append(runs, run)
	}
	r := median(runs)
	r.Name = name
	return r
}

// scenariosWhere is the run's scenarios that keep holds for, in order.
func (h *harness) scenariosWhere(keep func(Scenario) bool) []Scenario {
	var scs []Scenario
	for _, sc := range h.scenarios {
		if keep(sc) {
			scs = append(scs, sc)
		}
	}
	return scs
}

// target is the URL wrk loads for sc on addr.
func target(addr string, sc Scenario) string {
	if sc.TLS {
		return "https://" + addr
	}
	return "http://" + addr
}

// warmUp runs wrk on sc for the warm-up, untimed.
func (h *harness) warmUp(addr string, sc Scenario) error {
	_, err := runWrk(h.s.ClientCPUs, h.s.NClient, h.s.Concurrency, h.s.Warmup, target(addr, sc), h.script, h.reqFiles[sc.Name], sc.Pipeline)
	return err
}

// timedRun is one timed run of sc with wrk, with the server's CPU over it.
func (h *harness) timedRun(p *Proc, addr string, sc Scenario) (Run, error) {
	c0 := p.CPU()
	w, err := runWrk(h.s.ClientCPUs, h.s.NClient, h.s.Concurrency, h.s.Duration, target(addr, sc), h.script, h.reqFiles[sc.Name], sc.Pipeline)
	c1 := p.CPU()
	if err != nil {
		return Run{}, err
	}
	if w.Requests == 0 {
		return Run{}, errors.New("no request was answered")
	}
	wall := float64(w.DurationUS)
	return Run{
		RPS:   float64(w.Requests) / (wall / 1e6),
		P50US: float64(w.P50US), P99US: float64(w.P99US), P999US: float64(w.P999US),
		CPUPerReqUS: float64((c1 - c0).Microseconds()) / float64(w.Requests),
		Errors:      w.Connect + w.Read + w.Write + w.Timeout,
		ServerBusy:  float64((c1 - c0).Microseconds()) / wall,
		ClientBusy:  float64(w.ClientCPU.Microseconds()) / wall,
	}, nil
}

// scenario runs one scenario: checked first, timed only when every answer
// was right.
func (h *harness) scenario(p *Proc, addr string, sc Scenario) *ScenarioResult {
	verify := verifyTLS
	if sc.H2 {
		verify = verifyH2
	}
	if err := verify(addr, sc, h.tlsFiles); err != nil {
		logf("  %-15s FAILED the check: %v", sc.Name, err)
		return &ScenarioResult{Name: sc.Name, Failed: "wrong answer: " + err.Error()}
	}
	var r *ScenarioResult
	switch {
	case sc.H2:
		r = h.h2Timed(p, addr, sc)
	case sc.Full:
		r = h.handshakes(p, addr, sc)
	default:
		r = h.timed(p, addr, sc)
	}
	if r.Failed != "" {
		logf("  %-15s FAILED: %s", sc.Name, r.Failed)
	} else {
		r.RSSAfterMiB = p.Mem().RSS
		logf("  %-15s %9.0f req/s  p50 %7.0f us  p99 %7.0f us  p99.9 %7.0f us  %6.1f us CPU/req  %d errors  RSS %.1f MiB",
			sc.Name, r.RPS, r.P50US, r.P99US, r.P999US, r.CPUPerReqUS, r.Errors, r.RSSAfterMiB)
	}
	return r
}

// maxThroughput is the first phase for one server: start-up, memory, and
// every reference scenario without an upstream or a fixed rate (none of
// it when none of those scenarios was chosen).
func (h *harness) maxThroughput(srv Server) *ServerResult {
	sr := &ServerResult{Name: srv.Name(), Version: srv.Version()}
	if !hasScenario(h.scenarios, Scenario.onMain) {
		return sr
	}
	logf("%s %s: starting with %d exact, %d prefix, %d regex rules", srv.Name(), sr.Version, h.s.Spec.Exact, h.s.Spec.Prefix, h.s.Spec.Regex)
	p, addr, startup, err := h.launch(srv, Instance{Spec: h.s.Spec}, "main")
	if err != nil {
		sr.Failed = err.Error()
		logf("  FAILED to start: %v", err)
		return sr
	}
	defer p.Stop()
	sr.StartupMS, sr.StartupCPUMS = float64(startup.Microseconds())/1e3, ms(p.StartupCPU)
	time.Sleep(h.s.Settle)
	idle := p.Mem()
	sr.RSSIdleMiB, sr.PSSIdleMiB = idle.RSS, idle.PSS
	logf("  start-up %.1f ms (%.1f ms of CPU), idle: %s", sr.StartupMS, sr.StartupCPUMS, idle)
	for _, sc := range h.scenarios {
		if sc.onMain() {
			sr.Scenarios = append(sr.Scenarios, h.scenario(p, addr, sc))
		}
	}
	load := p.Mem()
	sr.RSSLoadMiB, sr.PSSLoadMiB, sr.PeakMiB = load.RSS, load.PSS, load.Peak
	logf("  after load: %s", load)
	return sr
}

func (m Mem) String() string {
	return fmt.Sprintf("RSS %.1f MiB, PSS %.1f MiB, peak %.1f MiB", m.RSS, m.PSS, m.Peak)
}

// sitemap is the phase on the sitemap corpus: a server of its own started
// with it, start-up, memory after start, the sitemap scenarios, memory
// after them, and for redirectd the time `check` takes on the corpus.
func (h *harness) sitemap(srv Server, sr *ServerResult) {
	r := &SitemapResult{Keys: h.s.Sitemap}
	sr.Sitemap = r
	scs := h.scenariosWhere(func(sc Scenario) bool { return sc.Sitemap })
	logf("%s: the sitemap corpus, %d regex keys", srv.Name(), h.s.Sitemap)
	in := Instance{Spec: h.s.Spec, Sitemap: h.s.Sitemap}
	p, addr, startup, err := h.launch(srv, in, "sitemap")
	if err != nil {
		if errors.Is(err, errNoSitemap) {
			r.Skipped = err.Error()
			logf("  skipped: %v", err)
		} else {
			r.Failed = err.Error()
			logf("  FAILED to start: %v", err)
		}
		for _, sc := range scs {
			res := &ScenarioResult{Name: sc.Name, Skipped: r.Skipped}
			if r.Failed != "" {
				res.Failed = "did not start on the sitemap corpus"
			}
			sr.Scenarios = append(sr.Scenarios, res)
		}
		return
	}
	r.StartupMS, r.StartupCPUMS = float64(startup.Microseconds())/1e3, ms(p.StartupCPU)
	time.Sleep(h.s.Settle)
	r.Idle = p.Mem()
	logf("  start-up %.1f ms (%.1f ms of CPU), after start: %s", r.StartupMS, r.StartupCPUMS, r.Idle)
	for _, sc := range scs {
		sr.Scenarios = append(sr.Scenarios, h.scenario(p, addr, sc))
	}
	r.Load = p.Mem()
	logf("  after load: %s", r.Load)
	p.Stop()
	if rd, ok := srv.(*redirectd); ok {
		var walls, loads []float64
		for range 3 {
			wall, load, err := rd.checkTime(filepath.Join(h.work, srv.Name()+"-sitemap"), h.s.ServerCPUs, h.s.NServer)
			if err != nil {
				r.CheckFailed = err.Error()
				logf("  check FAILED: %v", err)
				break
			}
			walls, loads = append(walls, float64(wall.Microseconds())/1e3), append(loads, float64(load.Microseconds())/1e3)
		}
		if r.CheckFailed == "" {
			r.CheckMS, r.CheckLoadMS = medianOf(walls), medianOf(loads)
			logf("  redirectd check: %.0f ms (load+compile %.0f ms), median of 3", r.CheckMS, r.CheckLoadMS)
		}
	}
}

// forwarding runs the scenarios that is picks on an instance of srv with
// the rules of spec that forwards misses to the origin.
func (h *harness) forwarding(srv Server, sr *ServerResult, spec rules.Spec, tag string, is func(Scenario) bool) {
	if !hasScenario(h.scenarios, is) {
		return
	}
	if tag == "proxy" {
		logf("%s: proxy, %d exact rule, every request forwarded", srv.Name(), spec.Exact)
	}
	p, addr, _, err := h.launch(srv, Instance{Spec: spec, Origin: h.origin}, tag)
	for _, sc := range h.scenarios {
		if !is(sc) {
			continue
		}
		if err != nil {
			sr.Scenarios = append(sr.Scenarios, &ScenarioResult{Name: sc.Name, Failed: err.Error()})
			continue
		}
		sr.Scenarios = append(sr.Scenarios, h.scenario(p, addr, sc))
	}
	if err == nil {
		p.Stop()
	}
}

// chooseRate is half the lowest mixed req/s, Caddy left out (it is tens of
// times slower, and would set a rate that tells nothing about the others)
// unless it is the only server.
func chooseRate(servers []*ServerResult) float64 {
	pick := func(withCaddy bool) float64 {
		low := 0.0
		for _, s := range servers {
			if s.Name == "caddy" && !withCaddy {
				continue
			}
			if m := s.scenario("mixed"); m != nil && m.Failed == "" && m.RPS > 0 && (low == 0 || m.RPS < low) {
				low = m.RPS
			}
		}
		return low
	}
	low := pick(false)
	if low == 0 {
		low = pick(true)
	}
	return float64(int(low / 2))
}

// scale measures start-up, memory and exact hits with n exact rules.
func (h *harness) scale(srv Server, n int) *ScaleResult {
	spec := rules.Spec{Exact: n, Prefix: h.s.Spec.Prefix, Regex: h.s.Spec.Regex}
	r := &ScaleResult{Exact: n, Server: srv.Name()}
	logf("%s with %d exact rules", srv.Name(), n)
	p, addr, startup, err := h.launch(srv, Instance{Spec: spec}, fmt.Sprintf("scale-%d", n))
	if err != nil {
		r.Failed = err.Error()
		logf("  FAILED to start: %v", err)
		return r
	}
	defer func() {
		p.Stop()
		os.RemoveAll(filepath.Join(h.work, srv.Name()+"-"+fmt.Sprintf("scale-%d", n)))
	}()
	r.StartupMS, r.StartupCPUMS = float64(startup.Microseconds())/1e3, ms(p.StartupCPU)
	time.Sleep(h.s.Settle)
	r.RSSIdleMiB = mib(p.RSS())
	hit := exactHit(spec)
	sc := Scenario{Name: "exact", Reqs: []Req{{Path: hit, Raw: simpleRequest(hit, false), Want: expect(spec, hit)}}}
	file := filepath.Join(h.work, fmt.Sprintf("scale-%d.req", n))
	if err := writeRequests(file, sc); err != nil {
		r.Failed = err.Error()
		return r
	}
	h.reqFiles["scale"] = file
	sc.Name = "scale"
	res := h.scenario(p, addr, sc)
	r.Failed, r.RPS, r.CPUPerReqUS = res.Failed, res.RPS, res.CPUPerReqUS
	load := p.Mem()
	r.RSSLoadMiB, r.PSSLoadMiB, r.PeakMiB = load.RSS, load.PSS, load.Peak
	logf("  start-up %.1f ms (%.1f ms of CPU), RSS idle %.1f MiB, after load: %s", r.StartupMS, r.StartupCPUMS, r.RSSIdleMiB, load)
	return r
}

// soak runs mixed traffic for SOAK with the access log on, sampling RSS.
func (h *harness) soak(srv Server) *SoakResult {
	r := &SoakResult{Server: srv.Name(), DurationS: h.s.Soak.Seconds()}
	logf("%s: soak for %s with the access log on", srv.Name(), h.s.Soak)
	dir := filepath.Join(h.work, srv.Name()+"-soak")
	p, addr, _, err := h.launch(srv, Instance{Spec: h.s.Spec, AccessLog: filepath.Join(dir, "access.log")}, "soak")
	if err != nil {
		r.Failed = err.Error()
		return r
	}
	defer func() { p.Stop(); os.RemoveAll(dir) }()
	every := 15 * time.Second
	if h.s.Soak < 2*time.Minute { // short soaks (tests, trials) still get a curve
		every = h.s.Soak / 8
	}
	type out struct {
		w   wrkSummary
		err error
	}
	done := make(chan out, 1)
	go func() {
		w, err := runWrk(h.s.ClientCPUs, h.s.NClient, h.s.Concurrency, h.s.Soak, "http://"+addr, h.script, h.reqFiles["mixed"], 1)
		done <- out{w, err}
	}()
	t0 := time.Now()
	tick := time.NewTicker(every)
	defer tick.Stop()
	r.Samples = append(r.Samples, [2]float64{0, mib(p.RSS())})
	for {
		select {
		case <-tick.C:
			r.Samples = append(r.Samples, [2]float64{time.Since(t0).Seconds(), mib(p.RSS())})
			continue
		case o := <-done:
			if o.err != nil {
				r.Failed = o.err.Error()
				return r
			}
			r.RPS = float64(o.w.Requests) / (float64(o.w.DurationUS) / 1e6)
		}
		break
	}
	r.Samples = append(r.Samples, [2]float64{time.Since(t0).Seconds(), mib(p.RSS())})
	r.GrowthPerMin = slope(r.Samples) * 60
	half := r.DurationS / 2
	var second [][2]float64
	for _, s := range r.Samples {
		if s[0] >= half {
			second = append(second, s)
		}
	}
	r.GrowthHalfMin = slope(second) * 60
	logf("  %.0f req/s, RSS %.1f -> %.1f MiB, %.3f MiB/min (second half %.3f)", r.RPS, r.Samples[0][1], r.Samples[len(r.Samples)-1][1], r.GrowthPerMin, r.GrowthHalfMin)
	return r
}

// gitCommit is HEAD's short hash, with -dirty when the tree has changes.
func gitCommit() string {
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	c := strings.TrimSpace(string(out))
	if st, _ := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); len(st) > 0 {
		c += "-dirty"
	}
	return c
}

// buildRedirectd builds ./cmd/redirectd of the working tree, or of ref
// when ref is not empty (from `git archive`, in a directory of its own).
func buildRedirectd(work, ref string) (string, error) {
	bin := filepath.Join(work, "redirectd")
	src := "."
	if ref != "" {
		src = filepath.Join(work, "baseline-src")
		bin = filepath.Join(work, "redirectd-baseline")
		if err := mkdirs(src); err != nil {
			return "", err
		}
		cmd := exec.Command("sh", "-c", `git archive --format=tar "$1" | tar -x -C "$2"`, "sh", ref, src)
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("BASELINE=%s: cannot export that commit: %w: %s", ref, err, out)
		}
	}
	cmd := exec.Command("go", "build", "-trimpath", "-o", bin, "./cmd/redirectd")
	cmd.Dir = src
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("cannot build redirectd%s: %w: %s", map[bool]string{true: " at " + ref}[ref != ""], err, out)
	}
	return bin, nil
}
