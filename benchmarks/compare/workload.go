package main

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/redirectd/redirectd/benchmarks/rules"
)

// Want is the answer a request must get: a status, and for redirects the
// Location; Body, when not zero, is the length of the body (forwarded
// misses answer 200 with 1 KiB from the origin).
type Want struct {
	Status   int
	Location string
	Body     int
}

// Req is one request of a scenario: its bytes on the wire and its answer.
type Req struct {
	Path string
	Raw  string
	Want Want
}

// Scenario is one timed workload.
type Scenario struct {
	Name     string
	Reqs     []Req
	Pipeline int  // requests per write (wrk's pipeline pattern); 0 or 1: one
	Churn    bool // a new connection per request (Connection: close)
	Upstream bool // served by the instance that forwards misses
	// Proxy: served by an instance with one exact rule (proxySpec) that
	// forwards misses: the cost of forwarding alone, no regex tried first.
	Proxy   bool
	Fixed   bool // at a fixed rate by the loadgen, not wrk
	Sitemap bool // served by an instance configured with the sitemap corpus
	// TLS: sent over TLS to the instance's HTTPS port (tlsPhase).
	TLS bool
	// Full: a new connection per request with a full handshake each, by
	// `compare handshakes` (handshakes.go) rather than wrk, which resumes.
	Full bool
	// Idle: not timed; the memory of idle TLS keep-alive connections.
	Idle bool
	// H2: over HTTP/2 (ALPN h2), driven by h2load (h2load.go).
	H2 bool
	// Model: served by redirectd's instance with the reference rules in
	// an nginx-model config (model.go); the other servers skip it.
	Model bool
}

// onMain reports whether sc runs on the instance started with the
// reference rules and no upstream (the first phase).
func (sc Scenario) onMain() bool {
	return !sc.Upstream && !sc.Proxy && !sc.Fixed && !sc.Sitemap && !sc.TLS && !sc.Model
}

// forwards reports whether sc needs the origin.
func (sc Scenario) forwards() bool { return sc.Upstream || sc.Proxy }

// proxySpec is the rule set of the proxy scenario's instance: one exact
// rule, no prefix and no regex, so that a miss goes straight upstream.
var proxySpec = rules.Spec{Exact: 1}

// originBody is the size of the origin's answer to forwarded misses.
const originBody = 1024

// Paths of the single-path scenarios for spec s: the last rule of each kind,
// as rules.ExactHit, PrefixHit and LastRegex are for the reference set.
func exactHit(s rules.Spec) string  { return fmt.Sprintf("/exact/%d", s.Exact-1) }
func prefixHit(s rules.Spec) string { return fmt.Sprintf("/prefix/%d/a/b", s.Prefix-1) }
func lastRegex(s rules.Spec) string { return fmt.Sprintf("/regex/%d/123/abc", s.Regex-1) }

// simpleRequest is a GET with only a Host, as wrk sends by default.
func simpleRequest(path string, close bool) string {
	c := ""
	if close {
		c = "Connection: close\r\n"
	}
	return "GET " + path + " HTTP/1.1\r\nHost: www.example.com\r\n" + c + "\r\n"
}

// browserRequest is rules.BrowserRequest (about 650 bytes of a browser's
// headers) for path.
func browserRequest(path string) string {
	return strings.Replace(rules.BrowserRequest, " "+rules.ExactHit+" ", " "+path+" ", 1)
}

// expect is what the generated rule set answers for path: it mirrors
// rules.Rules (exact /exact/N, prefix /prefix/N/, regex
// ^/regex/N/(\d+)/(.*)$), so a server's answers are checked against the
// rules, not against another server.
func expect(s rules.Spec, path string) Want {
	var n int
	var rest string
	if _, err := fmt.Sscanf(path, "/exact/%d", &n); err == nil && path == fmt.Sprintf("/exact/%d", n) && n < s.Exact {
		return Want{Status: 301, Location: fmt.Sprintf("https://example.com/new/%d", n)}
	}
	if after, ok := strings.CutPrefix(path, "/prefix/"); ok {
		num, tail, found := strings.Cut(after, "/")
		if _, err := fmt.Sscanf(num, "%d", &n); found && err == nil && num == fmt.Sprint(n) && n < s.Prefix {
			return Want{Status: 302, Location: fmt.Sprintf("https://example.com/p/%d/%s", n, tail)}
		}
	}
	if after, ok := strings.CutPrefix(path, "/regex/"); ok {
		parts := strings.SplitN(after, "/", 3)
		if len(parts) == 3 && isDigits(parts[1]) {
			if _, err := fmt.Sscanf(parts[0], "%d", &n); err == nil && parts[0] == fmt.Sprint(n) && n < s.Regex {
				rest = parts[2]
				return Want{Status: 308, Location: fmt.Sprintf("https://example.com/r/%d/%s/%s", n, parts[1], rest)}
			}
		}
	}
	return Want{Status: 404}
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// mixedPaths returns n paths: 70 % exact hits spread over the rules, 15 %
// prefix hits, 5 % regex hits, 10 % misses, in a fixed shuffled order (the
// same on every run and for every server).
func mixedPaths(s rules.Spec, n int) []string {
	r := rand.New(rand.NewPCG(7, 11))
	out := make([]string, 0, n)
	for i := range n {
		switch pct := i * 100 / n; {
		case pct < 70:
			out = append(out, fmt.Sprintf("/exact/%d", r.IntN(s.Exact)))
		case pct < 85:
			out = append(out, fmt.Sprintf("/prefix/%d/%s/%d", r.IntN(s.Prefix), []string{"a", "docs", "x/y/z"}[r.IntN(3)], r.IntN(1000)))
		case pct < 90:
			out = append(out, fmt.Sprintf("/regex/%d/%d/%s", r.IntN(s.Regex), r.IntN(100000), []string{"abc", "a-title", "x/y"}[r.IntN(3)]))
		default:
			out = append(out, fmt.Sprintf("/missing/%d/page", r.IntN(1000000)))
		}
	}
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// Scenarios returns every scenario for spec s, in the order they run.
func Scenarios(s rules.Spec) []Scenario {
	one := func(path string, close bool, w Want) []Req {
		return []Req{{Path: path, Raw: simpleRequest(path, close), Want: w}}
	}
	var mixed []Req
	for _, p := range mixedPaths(s, 10000) {
		mixed = append(mixed, Req{Path: p, Raw: browserRequest(p), Want: expect(s, p)})
	}
	pipelined := make([]Req, 16)
	for i := range pipelined {
		pipelined[i] = one(exactHit(s), false, expect(s, exactHit(s)))[0]
	}
	upstream := Want{Status: 200, Body: originBody}
	return []Scenario{
		{Name: "exact", Reqs: one(exactHit(s), false, expect(s, exactHit(s)))},
		{Name: "prefix", Reqs: one(prefixHit(s), false, expect(s, prefixHit(s)))},
		{Name: "regex", Reqs: one(lastRegex(s), false, expect(s, lastRegex(s)))},
		{Name: "miss", Reqs: one(rules.Miss, false, Want{Status: 404})},
		{Name: "mixed", Reqs: mixed},
		{Name: "exact-churn", Reqs: one(exactHit(s), true, expect(s, exactHit(s))), Churn: true},
		{Name: "pipelined", Reqs: pipelined, Pipeline: 16},
		{Name: "upstream", Reqs: one(rules.Miss, false, upstream), Upstream: true},
		{Name: "upstream-churn", Reqs: one(rules.Miss, true, upstream), Upstream: true, Churn: true},
		{Name: "fixed-rate", Reqs: mixed, Fixed: true},
		// exact and prefix at the fixed rate: at full load wrk's one CPU
		// saturates before any server does, so req/s and CPU per request
		// there move with the client; at one offered load they do not.
		{Name: "exact-rate", Reqs: one(exactHit(s), false, expect(s, exactHit(s))), Fixed: true},
		{Name: "prefix-rate", Reqs: one(prefixHit(s), false, expect(s, prefixHit(s))), Fixed: true},
		{Name: "proxy", Reqs: one(rules.Miss, false, upstream), Proxy: true},
		{Name: "model-exact", Reqs: one(exactHit(s), false, expect(s, exactHit(s))), Model: true},
	}
}

// SitemapScenarios returns the scenarios on the sitemap corpus of n keys:
// a hit on the first key, on a key near the end, a miss, and 2,000
// requests in a fixed shuffled order, 90 % hits spread over the keys and
// 10 % misses. Requests carry only a Host, so the figures are about
// matching. (2,000, not 10,000 as in mixed: every request is checked
// before timing, and HAProxy and nginx take up to 10 ms for each.)
func SitemapScenarios(n int) []Scenario {
	one := func(path string, w Want) []Req {
		return []Req{{Path: path, Raw: simpleRequest(path, false), Want: w}}
	}
	hit := func(e rules.SitemapEntry) Want { return Want{Status: 301, Location: e.Location} }
	first, last := rules.SitemapFirst(), rules.SitemapLast(n)
	return []Scenario{
		{Name: "sitemap-hit-first", Reqs: one(first.Path, hit(first)), Sitemap: true},
		{Name: "sitemap-hit-last", Reqs: one(last.Path, hit(last)), Sitemap: true},
		{Name: "sitemap-miss", Reqs: one(rules.SitemapMiss, Want{Status: 404}), Sitemap: true},
		{Name: "sitemap-mixed", Reqs: sitemapMixed(n, 2000), Sitemap: true},
	}
}

// sitemapMixed is m requests: 90 % hits on entries drawn at random from
// the first n, 10 % misses, shuffled, the same on every call.
func sitemapMixed(n, m int) []Req {
	r := rand.New(rand.NewPCG(13, 17))
	es := rules.Sitemap(n)
	out := make([]Req, 0, m)
	for i := range m {
		if i*10 < m*9 {
			e := es[r.IntN(n)]
			out = append(out, Req{Path: e.Path, Raw: simpleRequest(e.Path, false), Want: Want{Status: 301, Location: e.Location}})
		} else {
			p := rules.SitemapMissN(r.IntN(1000000))
			out = append(out, Req{Path: p, Raw: simpleRequest(p, false), Want: Want{Status: 404}})
		}
	}
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// TLSScenarios are the HTTPS scenarios, on an instance with a
// TLS port: the exact hit on keep-alive connections; the exact hit with a
// new connection each (Connection: close), which is a handshake per
// request, resumed by wrk (tls-churn) or full (tls-full); and the memory
// of idle keep-alive connections.
func TLSScenarios(s rules.Spec) []Scenario {
	return []Scenario{
		{Name: "tls-exact", Reqs: []Req{exactReq(s, false)}, TLS: true},
		{Name: "tls-churn", Reqs: []Req{exactReq(s, true)}, TLS: true, Churn: true},
		{Name: "tls-full", Reqs: []Req{exactReq(s, true)}, TLS: true, Churn: true, Full: true},
		{Name: "tls-idle", Reqs: []Req{exactReq(s, false)}, TLS: true, Idle: true},
		// HTTP/2: one connection with 100 streams at once; a new
		// connection per request at a fixed rate; idle h2 connections.
		{Name: "h2-exact", Reqs: []Req{exactReq(s, false)}, TLS: true, H2: true},
		{Name: "h2-churn", Reqs: []Req{exactReq(s, false)}, TLS: true, H2: true, Churn: true},
		{Name: "h2-idle", Reqs: []Req{exactReq(s, false)}, TLS: true, H2: true, Idle: true},
	}
}

// selectedScenarios is every scenario the settings ask for, in the order
// they run: the reference ones, then those on the sitemap corpus.
func selectedScenarios(s Settings) []Scenario {
	all := append(Scenarios(s.Spec), TLSScenarios(s.Spec)...)
	if s.Sitemap > 0 {
		all = append(all, SitemapScenarios(s.Sitemap)...)
	}
	var out []Scenario
	for _, sc := range all {
		if s.selected(sc.Name) {
			out = append(out, sc)
		}
	}
	return out
}
