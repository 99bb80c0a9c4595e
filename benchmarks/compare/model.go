package main

import "time"

// modelTables are what turns the reference config into an nginx-model
// one, as an import of an nginx site writes it: nginx's $uri for every
// rule, a second server (www -> apex) so that every request chooses its
// server, server-level steps that run before the flat rules on every
// request and match nothing in the model scenarios, and locations with
// steps that run only when the flat rules miss. model-exact is the exact
// scenario's request against this: what the nginx model costs an
// exact-map hit.
const modelTables = `
[rules.defaults]
uri = "nginx"

[[server_rewrite]]
host = "www.example.org"
steps = 'return 308 https://example.org$request_uri;'

[[server_rewrite]]
steps = '''
if ($http_x_forwarded_proto = "http") { return 301 https://$host$request_uri; }
rewrite ^/index\.html$ / permanent;
'''

[[location]]
match = "exact"
path = "/healthz"
steps = 'return 200 "ok";'

[[location]]
path = "/docs/"
steps = '''
rewrite ^(.*)/usage/?$ $1/usage/overview.html redirect;
rewrite ^/docs/(?!(v\d|latest)/)(?:.+) /docs/v2/ redirect;
'''

  [[location.location]]
  path = "/docs/v1/"
  steps = 'rewrite ^/docs/v1/old/(.*)$ /docs/v2/$1 permanent;'

[[location]]
match = "regex"
path = '\.php$'
steps = 'return 410;'

[[location]]
match = "named"
path = "notfound"
steps = 'return 302 /search?q=$uri;'
`

// model is the phase of the scenarios on the nginx-model config
// (Scenario.Model): redirectd only; the other servers' main configs are
// nginx's model already, or have none. Two instances run side by side,
// the reference config as it is and the nginx-model one, and each
// scenario's runs alternate between them (base first, then model first,
// and so on), so that the ratio of <scenario>-base to <scenario> is
// measured in the same minutes, whatever else the machine runs.
func (h *harness) model(srv Server, sr *ServerResult) {
	scs := h.scenariosWhere(func(sc Scenario) bool { return sc.Model })
	if len(scs) == 0 {
		return
	}
	fail := func(why string, skipped bool) {
		for _, sc := range scs {
			for _, name := range []string{sc.Name + "-base", sc.Name} {
				r := &ScenarioResult{Name: name, Failed: why}
				if skipped {
					r.Failed, r.Skipped = "", why
				}
				sr.Scenarios = append(sr.Scenarios, r)
			}
		}
	}
	if _, ok := srv.(*redirectd); !ok {
		fail("redirectd's nginx-model config", true)
		return
	}
	logf("%s: the nginx-model config beside the reference one, runs alternating", srv.Name())
	base, baddr, _, err := h.launch(srv, Instance{Spec: h.s.Spec}, "model-base")
	if err != nil {
		logf("  FAILED to start: %v", err)
		fail(err.Error(), false)
		return
	}
	defer base.Stop()
	p, addr, startup, err := h.launch(srv, Instance{Spec: h.s.Spec, Model: true}, "model")
	if err != nil {
		logf("  FAILED to start: %v", err)
		fail(err.Error(), false)
		return
	}
	defer p.Stop()
	time.Sleep(h.s.Settle)
	logf("  start-up %.1f ms, idle: %s", float64(startup.Microseconds())/1e3, p.Mem())
	for _, sc := range scs {
		sr.Scenarios = append(sr.Scenarios, h.alternate(sc, [2]*Proc{base, p}, [2]string{baddr, addr})...)
	}
}

// alternate checks sc on both instances, warms both up, and times
// Runs runs on each, alternating, into sc's -base and own results.
func (h *harness) alternate(sc Scenario, ps [2]*Proc, addrs [2]string) []*ScenarioResult {
	names := [2]string{sc.Name + "-base", sc.Name}
	out := func(f func(i int) *ScenarioResult) []*ScenarioResult {
		return []*ScenarioResult{f(0), f(1)}
	}
	for i := range 2 {
		if err := verify(addrs[i], sc); err != nil {
			logf("  %-15s FAILED the check: %v", names[i], err)
			return out(func(j int) *ScenarioResult {
				return &ScenarioResult{Name: names[j], Failed: "wrong answer from " + names[i] + ": " + err.Error()}
			})
		}
		if err := h.warmUp(addrs[i], sc); err != nil {
			return out(func(j int) *ScenarioResult { return &ScenarioResult{Name: names[j], Failed: err.Error()} })
		}
	}
	var runs [2][]Run
	for r := range h.s.Runs {
		for k := range 2 {
			i := (r + k) % 2 // base first, then model first, ...
			run, err := h.timedRun(ps[i], addrs[i], sc)
			if err != nil {
				return out(func(j int) *ScenarioResult { return &ScenarioResult{Name: names[j], Failed: err.Error()} })
			}
			runs[i] = append(runs[i], run)
		}
	}
	return out(func(i int) *ScenarioResult {
		res := median(runs[i])
		res.Name = names[i]
		res.RSSAfterMiB = ps[i].Mem().RSS
		logf("  %-17s %9.0f req/s  p50 %7.0f us  p99 %7.0f us  %6.2f us CPU/req  %d errors  RSS %.1f MiB",
			res.Name, res.RPS, res.P50US, res.P99US, res.CPUPerReqUS, res.Errors, res.RSSAfterMiB)
		return res
	})
}
