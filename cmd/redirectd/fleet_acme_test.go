package main

import (
	"crypto/tls"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redirectd/redirectd/internal/testutil"
	"github.com/redirectd/redirectd/internal/testutil/acmetest"
)

// The ACME fleet's network: the fleet test's layout on a /24 of its own,
// so that the two drills never share an address.
const (
	acmeNet       = "10.214.0."
	acmeSource    = acmeNet + "1"  // root namespace: the rule source and Pebble
	acmeLB        = acmeNet + "2"  // HAProxy, :80 and :443
	acmeClient    = acmeNet + "10" // the load generator
	acmeNames     = 50             // names the rules name at the start
	acmeRate      = 100            // handshakes per second through HAProxy
	acmeLength    = 30 * time.Second
	acmeAddAt     = 4 * time.Second  // a name is added at the rule source
	acmeRedisDown = 12 * time.Second // redis-server is killed, for acmeOutage
	acmeOutage    = 10 * time.Second
	acmeHandshake = 30 * time.Second
)

var acmeNodes = []string{acmeNet + "11", acmeNet + "12"}

// acmeName is the i-th name of the rule set; all are one registered
// domain, fleet.example, whose on_demand_per_domain_week the nodes set to
// 51: the 50 and the one added, for the fleet (each node orders about
// half).
func acmeName(i int) string { return fmt.Sprintf("h%02d.fleet.example", i) }

// acmeRules is the rule set naming hosts.
func acmeRules(hosts []string) map[string]string {
	var b strings.Builder
	for _, h := range hosts {
		fmt.Fprintf(&b, "[[rule]]\nhost = %q\nfrom = \"/fleet\"\nto = \"/v1\"\n\n", h)
	}
	return map[string]string{"redirectd.toml": b.String()}
}

// TestFleetACME runs the fleet of TestFleet with HTTPS and on-demand
// certificates: HAProxy forwards :80 and :443 with PROXY v2 to two
// nodes, which share one certificate storage in one redis-server
// ([acme.redis], each node with its own local copy) and order from an
// in-process Pebble whose VA resolves every name to HAProxy, so each
// challenge reaches whichever node HAProxy picks (Redis carries the
// challenge to the node that did not order). 50 names the rule set names
// get their certificates on their first handshakes, all at once; then,
// under 100 handshakes a second for 30 s, a name added at the rule source
// gets its certificate, a name outside the rules is refused with
// unrecognized_name, and redis-server is killed for 10 s and started
// again (its append-only file keeps the data); at the end a 52nd name is
// refused by on_demand_per_domain_week = 51, counted for the fleet. Pass
// means: every handshake succeeded (but the refused names'), Pebble was
// asked exactly one order per name and none for the names refused, and
// both nodes hold every name's certificate. It runs with TestFleet (REDIRECTD_FLEET=1,
// make test-fleet).
func TestFleetACME(t *testing.T) {
	hap, bin := fleetNeeds(t)
	f := newFleet(t, "rda", fleetAddrs{acmeSource, acmeLB, acmeClient, acmeNodes})

	// Pebble in the root namespace, validating through HAProxy.
	pb := acmetest.Start(t, acmetest.Options{Listen: acmeSource + ":0", Target: acmeLB, HTTPPort: 80, TLSPort: 443, Validity: acmetest.NoRenewal})

	hosts := make([]string, acmeNames)
	for i := range hosts {
		hosts[i] = acmeName(i)
	}
	origin := &ruleOrigin{}
	origin.publish(t, acmeRules(hosts))
	srcAddr := f.serveOrigin(acmeSource, origin)

	// One redis-server on the root namespace's fleet address, its data
	// kept across a kill in an append-only file written at each command.
	redis := testutil.RunRedis(t, "--bind", acmeSource, "127.0.0.1", "--protected-mode", "no", "--appendonly", "yes", "--appendfsync", "always")
	_, redisPort, _ := net.SplitHostPort(redis.Addr)
	redisAddr := net.JoinHostPort(acmeSource, redisPort)
	nodes := f.startNodes(bin, acmeNodes, func(n *fleetNode) string {
		return fmt.Sprintf(`[server]
listen = "%[1]s:8080"
proxy_protocol = true
trusted_proxies = [%[2]q]

[admin]
listen = "%[1]s:9180"
token = "fleet-admin"

[tls]
listen = "%[1]s:8443"
handshake_timeout = "30s"

[acme]
storage = "acme"
ca = %[4]q
ca_root = %[5]q
hosts = []
on_demand = true
on_demand_rate = "200/1h"
on_demand_per_domain_week = 51

[acme.redis]
address = %[3]q

[rules]
source = "http://%[6]s/site.tar.gz"
poll = "1s"
cache_dir = "cache"
source_header = "Authorization: Bearer fleet"
`, n.addr, acmeLB, redisAddr, pb.DirURL, pb.CARootFile, srcAddr)
	})
	waitServing(t, nodes, "", 10*time.Second)

	// HAProxy: the fleet example's backend, once for the plain port (the
	// HTTP-01 challenges) and once for HTTPS (TLS-ALPN-01 and the load).
	plainBackend := fleetBackend(t, []haproxyNode{{acmeNodes[0] + ":8080", "9180"}, {acmeNodes[1] + ":8080", "9180"}})
	tlsBackend := strings.Replace(fleetBackend(t, []haproxyNode{{acmeNodes[0] + ":8443", "9180"}, {acmeNodes[1] + ":8443", "9180"}}),
		"backend redirectd", "backend redirectd_tls", 1)
	f.startHAProxy(hap, func(sock string) string {
		return fmt.Sprintf(`global
	stats socket %s mode 600 level admin
	maxconn 4096
defaults
	mode tcp
	timeout connect 2s
	timeout client 40s
	timeout server 40s
	retries 3
	option redispatch
frontend plain
	bind %[2]s:80
	default_backend redirectd
frontend https
	bind %[2]s:443
	default_backend redirectd_tls
%[3]s
%[4]s
`, sock, acmeLB, plainBackend, tlsBackend)
	}, "redirectd", "redirectd_tls")

	// get handshakes through HAProxy as name from the load generator's
	// namespace and asks GET /fleet: the 301's Location, or an error.
	get := func(name string) (string, error) {
		c, err := tls.DialWithDialer(&net.Dialer{Timeout: acmeHandshake + 5*time.Second}, "tcp", acmeLB+":443",
			&tls.Config{ServerName: name, RootCAs: pb.Roots})
		if err != nil {
			return "", err
		}
		return locationOn(c, name, "/fleet", 5*time.Second)
	}
	// inLG runs fn in the load generator's namespace and waits for it;
	// t.Errorf, not Fatalf, since it runs on the load's goroutines too.
	inLG := func(fn func()) {
		done := make(chan struct{})
		if err := inNetns(f.prefix+"lg", func() { defer close(done); fn() }); err != nil {
			t.Errorf("into the load generator's namespace: %v", err)
			fn()
			return
		}
		<-done
	}

	// Every name's first handshake, all at once.
	start := time.Now()
	firstErrs := make([]error, acmeNames)
	var wg sync.WaitGroup
	for i := range acmeNames {
		wg.Add(1)
		go inLG(func() {
			defer wg.Done()
			if loc, err := get(acmeName(i)); err != nil || loc != "/v1" {
				firstErrs[i] = fmt.Errorf("Location %q: %v", loc, err)
			}
		})
	}
	wg.Wait()
	firstTook := time.Since(start)
	for i, err := range firstErrs {
		if err != nil {
			t.Errorf("%s: the first handshake got no certificate: %v", acmeName(i), err)
		}
	}

	// The load: acmeRate handshakes a second over the names, while a name
	// is added at the source.
	var sent, failed atomic.Int64
	var failMu sync.Mutex
	var failures []string
	total := int(acmeRate * acmeLength / time.Second)
	ticks := make(chan int, total)
	var workers sync.WaitGroup
	for range 32 {
		workers.Add(1)
		go inLG(func() {
			defer workers.Done()
			for i := range ticks {
				// Two ticks a name, so that round robin gives each name
				// to both nodes (with i%acmeNames, an even count of
				// names, one node would see only the even ones).
				name := acmeName(i / 2 % acmeNames)
				_, err := get(name)
				sent.Add(1)
				if err != nil {
					failed.Add(1)
					failMu.Lock()
					failures = append(failures, fmt.Sprintf("%s %s: %v", time.Now().Format("15:04:05.000"), name, err))
					failMu.Unlock()
				}
			}
		})
	}
	loadStart := time.Now()
	loadDone := make(chan struct{})
	go func() {
		defer close(loadDone)
		for i := range total {
			time.Sleep(time.Until(loadStart.Add(time.Duration(i) * time.Second / acmeRate)))
			ticks <- i
		}
		close(ticks)
		workers.Wait()
	}()

	// A name outside the rules: refused, never ordered.
	var outsideErr error
	inLG(func() { _, outsideErr = get("outside.fleet.example") })
	if outsideErr == nil || !strings.Contains(outsideErr.Error(), "unrecognized name") {
		t.Errorf("outside.fleet.example: err = %v, want the alert unrecognized_name", outsideErr)
	}

	// A name added at the rule source gets its certificate once the nodes
	// serve the new version.
	time.Sleep(time.Until(loadStart.Add(acmeAddAt)))
	added := "added.fleet.example"
	origin.publish(t, acmeRules(append(hosts, added)))
	publishedAt := time.Now()
	var addedErr error
	var addedAfter time.Duration
	for {
		var loc string
		inLG(func() { loc, addedErr = get(added) })
		if addedErr == nil && loc == "/v1" {
			addedAfter = time.Since(publishedAt)
			break
		}
		if time.Since(publishedAt) > 15*time.Second {
			t.Errorf("%s: no certificate 15 s after the source published it: %v", added, addedErr)
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	// Both nodes have served every name before Redis goes: a node that
	// never read a certificate has no copy of it to serve from.
	holds := func(n *fleetNode, names []string) (int, string) {
		_, b, err := n.admin("/metrics")
		if err != nil {
			t.Errorf("%s /metrics: %v", n.name, err)
		}
		held := 0
		for _, name := range names {
			if strings.Contains(string(b), fmt.Sprintf(`redirectd_tls_certificate_expiry_seconds{name=%q,source="acme"}`, name)) {
				held++
			}
		}
		return held, string(b)
	}
	// Served by both nodes: the balancer's round robin, shared with the
	// load's workers, reaches each in a few requests, but not in a fixed
	// number, so ask until both have served it (within 10 s). The other
	// node may not have the version naming it yet (it polls the source):
	// until then it refuses the name, which is not a failure unless it
	// lasts.
	var lastErr error
	if !testutil.Eventually(testutil.Patience, func() bool {
		inLG(func() {
			if _, err := get(added); err != nil {
				lastErr = err
			}
		})
		for _, n := range nodes {
			if held, _ := holds(n, []string{added}); held != 1 {
				return false
			}
		}
		return true
	}) {
		t.Errorf("%s: not served by both nodes 10 s after its first certificate (last error: %v)", added, lastErr)
	}
	time.Sleep(time.Until(loadStart.Add(acmeRedisDown)))
	for _, n := range nodes {
		if held, _ := holds(n, append(hosts, added)); held != len(hosts)+1 {
			t.Errorf("%s holds %d of %d certificates before Redis stops", n.name, held, len(hosts)+1)
		}
	}
	failedBefore := failed.Load()
	redis.Stop()
	downAt := time.Now()
	var downSeen int
	for _, n := range nodes {
		if testutil.Eventually(5*time.Second, func() bool {
			_, m := holds(n, nil)
			v, ok := testutil.Metric(m, `redirectd_tls_storage_up{backend="redis"}`)
			return ok && v == 0
		}) {
			downSeen++
		}
	}
	time.Sleep(time.Until(downAt.Add(acmeOutage)))
	redis.Start()
	failedDuring := failed.Load() - failedBefore
	<-loadDone

	// A 52nd name is over on_demand_per_domain_week for the fleet, though
	// each node ordered only about half of the 51.
	over := "over.fleet.example"
	v := nodes[0].serving()
	origin.publish(t, acmeRules(append(hosts, added, over)))
	waitServing(t, nodes, v, 10*time.Second)
	var overErr error
	inLG(func() { _, overErr = get(over) })
	if overErr == nil {
		t.Errorf("%s got a certificate past on_demand_per_domain_week 51 for the fleet", over)
	}
	domainLimited := 0.0
	for _, n := range nodes {
		_, m := holds(n, nil)
		v, _ := testutil.Metric(m, `redirectd_tls_on_demand_total{result="domain_limited"}`)
		domainLimited += v
	}
	if domainLimited != 1 {
		t.Errorf("domain_limited over both nodes = %v, want 1", domainLimited)
	}

	// Each name ordered exactly once, the outside name never.
	orders := pb.AllOrders()
	for _, name := range append(hosts, added) {
		if orders[name] != 1 {
			t.Errorf("%s: Pebble was asked %d orders, want exactly 1", name, orders[name])
		}
	}
	for _, name := range []string{"outside.fleet.example", over} {
		if n := orders[name]; n != 0 {
			t.Errorf("%s: %d orders, want none", name, n)
		}
	}
	// Both nodes hold every name's certificate (they served it), and saw
	// Redis come back.
	for _, n := range nodes {
		held, m := holds(n, append(hosts, added))
		issued, _ := testutil.Metric(m, `redirectd_tls_on_demand_total{result="issued"}`)
		up, _ := testutil.Metric(m, `redirectd_tls_storage_up{backend="redis"}`)
		t.Logf("fleet acme: %s holds %d of %d certificates; its orders that issued: %v; storage up %v", n.name, held, len(hosts)+1, issued, up)
		if held != len(hosts)+1 {
			t.Errorf("%s lacks the certificates of %d names", n.name, len(hosts)+1-held)
		}
	}
	if downSeen != len(nodes) {
		t.Errorf("only %d of %d nodes reported the storage down while redis-server was killed", downSeen, len(nodes))
	}
	t.Logf("fleet acme: redis-server killed for %s mid-run: %d handshakes failed meanwhile", acmeOutage, failedDuring)
	t.Logf("fleet acme: %d first handshakes, all at once, done in %s; then %d handshakes in %s at %d/s, %d failed; %s served %s after the source published it; %d orders in all",
		acmeNames, firstTook.Round(time.Millisecond), sent.Load(), acmeLength, acmeRate, failed.Load(), added, addedAfter.Round(time.Millisecond), pb.Total())
	if failed.Load() != 0 {
		t.Errorf("%d handshakes under load failed, the first: %v", failed.Load(), failures[:min(5, len(failures))])
	}
	if t.Failed() || testing.Verbose() {
		for _, n := range nodes {
			for _, l := range strings.Split(n.stderr.String(), "\n") {
				if strings.Contains(l, "level=ERROR") || strings.Contains(l, "level=WARN") || strings.Contains(l, "certificate obtained") {
					t.Logf("%s: %s", n.name, l)
				}
			}
		}
	}
}
