package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/redirectd/redirectd/benchmarks/rules"

	"github.com/redirectd/redirectd/internal/testutil"
)

// testHarness builds redirectd, starts the origin nginx and returns a
// harness for a small rule set, or skips without nginx.
func testHarness(t *testing.T) (*harness, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts every server: not in -short")
	}
	testutil.FindNginx(t) // the origin of the upstream scenarios
	// Not t.TempDir: nginx's workers run as nobody and must reach the files.
	work, err := os.MkdirTemp("", "compare-test-")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(work, 0o755)
	t.Cleanup(func() { os.RemoveAll(work) })
	bin := testBinary(t)
	server, client, err := splitCPUs("", max(2, runtime.NumCPU()))
	if err != nil {
		t.Fatal(err)
	}
	raiseFileLimit()
	spec := rules.Spec{Exact: 50, Prefix: 10, Regex: 5}
	h := &harness{s: Settings{Spec: spec, ServerCPUs: cpuList(server), ClientCPUs: cpuList(client), NServer: len(server), NClient: len(client),
		Warmup: time.Second, Duration: time.Second, Runs: 1, Concurrency: 10,
		// The tests check that memory is read and idle connections
		// stay open, not the figures: no settling (tls-idle's and
		// h2-idle's 3 s each were 24 of TestServersAnswerOverTLS's 26 s).
		Settle: 0},
		work: work, script: filepath.Join(work, "requests.lua"), scenarios: Scenarios(spec), reqFiles: map[string]string{}}
	if err := writeWrkScript(h.script); err != nil {
		t.Fatal(err)
	}
	for _, sc := range h.scenarios {
		h.reqFiles[sc.Name] = filepath.Join(work, sc.Name+".req")
		if err := writeRequests(h.reqFiles[sc.Name], sc); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join(work, "origin")
	mkdirs(dir)
	port, _ := freePort()
	argv, err := originConfig(dir, port)
	if err != nil {
		t.Fatal(err)
	}
	origin, err := start("origin", h.s.ClientCPUs, argv, nil, filepath.Join(dir, "server.log"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(origin.Stop)
	h.origin = fmt.Sprintf("127.0.0.1:%d", port)
	if _, err := waitReady(origin, h.origin, Req{Path: "/", Raw: simpleRequest("/", false), Want: Want{Status: 200, Body: originBody}}, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	return h, bin
}

// Every server, from the config generated for it, answers every scenario
// as the rules say: the check the harness runs before timing.
func TestServersAnswerEveryScenario(t *testing.T) {
	h, bin := testHarness(t)
	for _, srv := range allServers(bin) {
		t.Run(srv.Name(), func(t *testing.T) {
			if srv.Package() != "" {
				if _, err := exec.LookPath(srv.Program()); err != nil {
					testutil.Missing(t, fmt.Sprintf("%s is not installed (apt-get install %s)", srv.Program(), srv.Package()))
				}
			}
			for _, origin := range []string{"", h.origin} {
				p, addr, startup, err := h.launch(srv, Instance{Spec: h.s.Spec, Origin: origin}, "test"+map[bool]string{true: "-upstream"}[origin != ""])
				if err != nil {
					t.Fatal(err)
				}
				if startup <= 0 || p.RSS() <= 0 || len(p.Tree()) == 0 {
					t.Errorf("start-up %v, RSS %d, processes %v", startup, p.RSS(), p.Tree())
				}
				for _, sc := range h.scenarios {
					if !sc.Proxy && sc.Upstream == (origin != "") {
						if err := verify(addr, sc); err != nil {
							t.Errorf("%s: %v", sc.Name, err)
						}
					}
				}
				p.Stop()
				if !p.Exited() {
					t.Errorf("%s still runs after Stop", srv.Name())
				}
			}
			// proxy: one exact rule, every other request forwarded.
			p, addr, _, err := h.launch(srv, Instance{Spec: proxySpec, Origin: h.origin}, "test-proxy")
			if err != nil {
				t.Fatal(err)
			}
			for _, sc := range h.scenarios {
				if sc.Proxy {
					if err := verify(addr, sc); err != nil {
						t.Errorf("%s: %v", sc.Name, err)
					}
				}
			}
			p.Stop()
			// The sitemap corpus, as each server is configured with it.
			const keys = 300
			p, addr, _, err = h.launch(srv, Instance{Spec: h.s.Spec, Sitemap: keys}, "test-sitemap")
			if srv.Name() == "caddy" {
				if !errors.Is(err, errNoSitemap) {
					t.Errorf("caddy on the sitemap corpus: %v, want errNoSitemap", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer p.Stop()
			if m := p.Mem(); m.RSS <= 0 || m.PSS <= 0 || m.PSS > m.RSS || m.Peak < m.RSS {
				t.Errorf("memory: %+v", m)
			}
			for _, sc := range SitemapScenarios(keys) {
				if err := verify(addr, sc); err != nil {
					t.Errorf("%s: %v", sc.Name, err)
				}
			}
			if rd, ok := srv.(*redirectd); ok {
				if wall, load, err := rd.checkTime(filepath.Join(h.work, srv.Name()+"-test-sitemap"), h.s.ServerCPUs, 1); err != nil || wall <= load || load <= 0 {
					t.Errorf("check: %v, load %v, %v", wall, load, err)
				}
			}
		})
	}
}

// The check fails a server that answers wrongly, and wrk and the load
// generator measure a real server.
func TestCheckAndLoad(t *testing.T) {
	h, bin := testHarness(t)
	srv := &redirectd{name: "redirectd", bin: bin}
	p, addr, _, err := h.launch(srv, Instance{Spec: h.s.Spec}, "load")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	hit := exactHit(h.s.Spec)
	wrong := []Scenario{
		{Name: "wrong location", Reqs: []Req{{Path: hit, Raw: simpleRequest(hit, false), Want: Want{Status: 301, Location: "https://elsewhere/"}}}},
		{Name: "wrong status", Reqs: []Req{{Path: "/nothing", Raw: simpleRequest("/nothing", false), Want: Want{Status: 200}}}},
		{Name: "wrong body", Reqs: []Req{{Path: "/nothing", Raw: simpleRequest("/nothing", false), Want: Want{Status: 404, Body: originBody}}}},
		{Name: "no close", Churn: true, Reqs: []Req{{Path: hit, Raw: simpleRequest(hit, false), Want: expect(h.s.Spec, hit)}}},
	}
	for _, sc := range wrong {
		if err := verify(addr, sc); err == nil {
			t.Errorf("%s: the check passed", sc.Name)
		}
	}

	var mixed Scenario
	for _, sc := range h.scenarios {
		if sc.Name == "mixed" {
			mixed = sc
		}
	}
	reqs := make([][]byte, len(mixed.Reqs))
	for i, r := range mixed.Reqs {
		reqs[i] = []byte(r.Raw)
	}
	c0 := p.CPU()
	lr, err := fixedRate(addr, reqs, 500, 10, 200*time.Millisecond, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if lr.Errors != 0 || lr.Requests < 400 || lr.Requests > 600 || lr.Total < lr.Requests || lr.P50US <= 0 || lr.P999US < lr.P50US {
		t.Errorf("500 req/s for 1 s: %+v", lr)
	}
	if p.CPU() <= c0 {
		t.Errorf("the server's CPU time did not grow under load (%v)", c0)
	}

	if _, err := exec.LookPath("wrk"); err != nil {
		t.Skip("wrk is not installed (apt-get install wrk)")
	}
	for _, depth := range []int{1, 16} {
		w, err := runWrk(h.s.ClientCPUs, 1, 10, time.Second, "http://"+addr, h.script, h.reqFiles["mixed"], depth)
		if err != nil {
			t.Fatal(err)
		}
		if w.Requests < 100 || w.Connect+w.Read+w.Write+w.Timeout != 0 {
			t.Errorf("wrk, %d per write: %+v", depth, w)
		}
	}
}

// SchedCPU counts the CPU a process's threads ran, in nanoseconds, from
// its start, and agrees with the 10 ms ticks of CPU.
func TestSchedCPU(t *testing.T) {
	p, err := start("busy", "0", []string{"sh", "-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; sleep 30"}, nil, filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	if got := p.SchedCPU(); got <= 0 {
		t.Errorf("SchedCPU = %v at once, want the exec's own time at least", got)
	}
	if p.CPU() > p.SchedCPU()+20*time.Millisecond {
		t.Errorf("CPU %v is over SchedCPU %v by more than two ticks", p.CPU(), p.SchedCPU())
	}
}
