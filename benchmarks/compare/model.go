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
// (Scenario.Model): redirectd only, on an instance of its own; the other
// servers' main configs are nginx's model already, or have none.
func (h *harness) model(srv Server, sr *ServerResult) {
	var scs []Scenario
	for _, sc := range h.scenarios {
		if sc.Model {
			scs = append(scs, sc)
		}
	}
	if len(scs) == 0 {
		return
	}
	if _, ok := srv.(*redirectd); !ok {
		for _, sc := range scs {
			sr.Scenarios = append(sr.Scenarios, &ScenarioResult{Name: sc.Name, Skipped: "redirectd's nginx-model config"})
		}
		return
	}
	logf("%s: the nginx-model config", srv.Name())
	p, addr, startup, err := h.launch(srv, Instance{Spec: h.s.Spec, Model: true}, "model")
	if err != nil {
		logf("  FAILED to start: %v", err)
		for _, sc := range scs {
			sr.Scenarios = append(sr.Scenarios, &ScenarioResult{Name: sc.Name, Failed: err.Error()})
		}
		return
	}
	defer p.Stop()
	time.Sleep(time.Second)
	logf("  start-up %.1f ms, idle: %s", float64(startup.Microseconds())/1e3, p.Mem())
	for _, sc := range scs {
		sr.Scenarios = append(sr.Scenarios, h.scenario(p, addr, sc, 0))
	}
}
