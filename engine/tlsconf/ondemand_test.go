package tlsconf

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/VictoriaMetrics/metrics"
	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/internal/testutil"
	"github.com/redirectd/redirectd/internal/testutil/acmetest"
	"github.com/redirectd/redirectd/matcher"
)

// onDemandRig is the real server (engine) with hosts = [] and on_demand
// on, its decision reading the engine's serving rule set as the daemon's
// does, in front of an in-process Pebble that validates with HTTP-01 on
// the server's plain port.
type onDemandRig struct {
	t       *testing.T
	pb      *pebble
	m       *Manager
	srv     *engine.Server
	set     *metrics.Set
	cfg     *Settings
	tlsAddr string
	// skew is added to the gate's clock: a test moves past a backoff
	// by adding to it, not by waiting it out.
	skew atomic.Int64
}

// rigHandshakeTimeout is the rig's TLS handshake timeout. A handshake
// that waited for anything (an order, a slot) would hold its client
// until then; atOnce, half of it, tells "refused at once" from that
// with a margin no loaded machine needs (a refusal takes milliseconds).
const (
	rigHandshakeTimeout = 15 * time.Second
	atOnce              = rigHandshakeTimeout / 2
)

func startOnDemand(t *testing.T) *onDemandRig {
	httpAddr, httpPort := freeAddr(t)
	tlsAddr, tlsPort := freeAddr(t)
	r := &onDemandRig{t: t, pb: startPebble(t, httpPort, tlsPort, acmetest.NoRenewal), set: metrics.NewSet(), tlsAddr: tlsAddr}
	r.cfg = &Settings{
		HTTPListen: httpAddr,
		TLSListen:  tlsAddr,
		ACME: &ACME{CA: r.pb.dirURL, CARoot: r.pb.caRoot, Storage: t.TempDir(),
			Names: []string{}, OnDemand: true, OnDemandN: 100, OnDemandPer: time.Hour},
	}
	decide := RulesCover(func() HostCover { return r.srv.Rules() })
	m, err := New(r.cfg, decide, r.set, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	r.m = m
	m.gate.now = func() time.Time { return time.Now().Add(time.Duration(r.skew.Load())) } // before any handshake
	r.srv = engine.New(engine.Options{
		Listen: httpAddr, EventLoops: 1,
		TLS: &engine.TLSOptions{Listen: tlsAddr, Config: m.TLSConfig(), HandshakeTimeout: rigHandshakeTimeout,
			Handshake: func(st *tls.ConnectionState, err error) {
				if err != nil {
					m.HandshakeFailed(err)
				} else {
					m.HandshakeDone(st.Version)
				}
			}},
		ACMEChallenge: m.HTTPChallenge,
	}, hostRules(t, "exact.example.com", "*.wild.example.com", "*.ask.example.com"))
	done := make(chan error, 1)
	go func() { done <- r.srv.Run() }()
	select {
	case <-r.srv.Ready():
	case err := <-done:
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		r.srv.Stop(ctx)
		<-done
	})
	m.Start()
	return r
}

// hostRules is a rule set with one rule per host.
func hostRules(t *testing.T, hosts ...string) *matcher.Set {
	t.Helper()
	var rules []matcher.Rule
	for _, h := range hosts {
		rules = append(rules, matcher.Rule{Kind: matcher.Exact, Host: h, From: "/old", To: "/new", Status: 301})
	}
	s, err := matcher.Compile(rules)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// swap serves hosts' rules, as a reload or a new version at the rule
// source does in the daemon: the swap, then Prune.
func (r *onDemandRig) swap(hosts ...string) {
	r.srv.Swap(hostRules(r.t, hosts...))
	r.m.Prune()
}

// reload applies r.cfg after edit changed its [acme].
func (r *onDemandRig) reload(edit func(a *ACME)) {
	r.t.Helper()
	a := *r.cfg.ACME
	edit(&a)
	r.cfg.ACME = &a
	if err := r.m.Reload(r.cfg); err != nil {
		r.t.Fatal(err)
	}
}

// handshake handshakes as name, verifying against Pebble's root, and
// returns the error and how long it took.
func (r *onDemandRig) handshake(name string) (time.Duration, error) {
	start := time.Now()
	_, err := handshake(r.tlsAddr, &tls.Config{ServerName: name, RootCAs: r.pb.roots})
	return time.Since(start), err
}

func (r *onDemandRig) wantCert(name string) {
	r.t.Helper()
	if took, err := r.handshake(name); err != nil {
		r.t.Fatalf("%s: no certificate after %s: %v", name, took.Round(time.Millisecond), err)
	}
}

// wantRefused checks that name is refused at once with the alert
// unrecognized_name and that Pebble saw no order for it.
func (r *onDemandRig) wantRefused(name string) {
	r.t.Helper()
	took, err := r.handshake(name)
	if err == nil || !strings.Contains(err.Error(), "unrecognized name") {
		r.t.Errorf("%s: err = %v, want the alert unrecognized_name", name, err)
	}
	if took > atOnce {
		r.t.Errorf("%s: refused after %s, want at once", name, took)
	}
	if n := r.pb.Orders(name); n != 0 {
		r.t.Errorf("%s: Pebble saw %d orders, want none", name, n)
	}
}

func (r *onDemandRig) wantOrders(name string, want int) {
	r.t.Helper()
	if n := r.pb.Orders(name); n != want {
		r.t.Errorf("%s: Pebble saw %d orders, want %d", name, n, want)
	}
}

func (r *onDemandRig) metric(result string) float64 {
	return metricValue(r.set, `redirectd_tls_on_demand_total{result="`+result+`"}`)
}

// TestOnDemand drives on-demand issuance through the real server with
// hosts = []: an exact host gets its certificate at its first handshake
// and is ordered once; a name outside the rules is refused with
// unrecognized_name and never ordered; a name added by a rule swap gets
// one, a name removed is refused and kept in storage; the ask URL allows
// and denies; past the rate a handshake is refused at once, and past the
// weekly bound per registered domain without an order; after a CA
// failure the name backs off, refused at once without a new order, and
// gets its certificate once the CA works and the backoff is over.
func TestOnDemand(t *testing.T) {
	if testing.Short() {
		t.Skip("issues certificates: about 10s")
	}
	oldBase, oldMax := backoffBase, backoffMax
	backoffBase, backoffMax = 2*time.Second, 4*time.Second
	t.Cleanup(func() { backoffBase, backoffMax = oldBase, oldMax })
	r := startOnDemand(t)

	t.Run("exact host at its first handshake", func(t *testing.T) {
		r.t = t
		r.wantCert("exact.example.com")
		r.wantCert("exact.example.com")
		r.wantOrders("exact.example.com", 1)
		if v := r.metric(odIssued); v != 1 {
			t.Errorf("issued = %v, want 1", v)
		}
	})
	t.Run("outside the rules", func(t *testing.T) {
		r.t = t
		before := r.pb.Total()
		r.wantRefused("other.example.com")
		r.wantRefused("wild.example.com") // the wildcard's own apex is no rule's host
		if n := r.pb.Total(); n != before {
			t.Errorf("Pebble saw %d new orders for names outside the rules", n-before)
		}
		if v := r.metric(odRefused); v < 2 {
			t.Errorf("refused = %v, want 2", v)
		}
		waitMetricAtLeast(t, r.set, `redirectd_tls_handshake_failures_total{reason="unknown_sni"}`, 2)
	})
	t.Run("not DNS host names", func(t *testing.T) {
		// Under a wildcard host, but no CA issues for them: refused
		// before any budget is spent, never ordered.
		r.t = t
		before, refused := r.pb.Total(), r.metric(odRefused)
		for _, name := range []string{"x..wild.example.com", "-1.wild.example.com", "a_2.wild.example.com", "a-.wild.example.com"} {
			r.wantRefused(name)
		}
		if n := r.pb.Total(); n != before {
			t.Errorf("Pebble saw %d orders for names that are not host names", n-before)
		}
		if v := r.metric(odRefused) - refused; v != 4 {
			t.Errorf("refused grew by %v, want 4", v)
		}
	})
	t.Run("added and removed by a swap", func(t *testing.T) {
		r.t = t
		r.wantRefused("added.example.com")
		r.swap("exact.example.com", "added.example.com", "*.wild.example.com", "*.ask.example.com")
		r.wantCert("added.example.com")
		r.wantOrders("added.example.com", 1)

		r.swap("added.example.com", "*.wild.example.com", "*.ask.example.com")
		r.wantRefused("nothing.example.com")
		if _, err := r.handshake("exact.example.com"); err == nil || !strings.Contains(err.Error(), "unrecognized name") {
			t.Errorf("exact.example.com, removed from the rules: err = %v, want unrecognized_name", err)
		}
		st := r.m.acme.Load()
		if n := len(st.cache.AllMatchingCertificates("exact.example.com")); n != 0 {
			t.Errorf("removed name: %d certificates still cached (and renewed)", n)
		}
		if !st.stored(context.Background(), "exact.example.com") {
			t.Error("removed name: its certificate left storage before expiring")
		}
		// Put back before it expires: served from storage, no new order.
		r.swap("exact.example.com", "added.example.com", "*.wild.example.com", "*.ask.example.com")
		r.wantCert("exact.example.com")
		r.wantOrders("exact.example.com", 1)
	})
	t.Run("ask", func(t *testing.T) {
		r.t = t
		var asked atomic.Int32
		ask := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			asked.Add(1)
			if req.URL.Query().Get("domain") != "yes.ask.example.com" || req.URL.Query().Get("key") != "v" {
				http.Error(w, "no", http.StatusForbidden)
			}
		}))
		t.Cleanup(ask.Close)
		r.reload(func(a *ACME) { a.Ask = ask.URL + "/allowed?key=v" })
		r.wantCert("yes.ask.example.com")
		r.wantRefused("no.ask.example.com")
		r.wantRefused("no.ask.example.com") // the answer is kept
		if n := asked.Load(); n != 2 {
			t.Errorf("the ask URL was asked %d times, want 2 (yes once, no once)", n)
		}
		if v := r.metric(odDenied); v != 2 {
			t.Errorf("denied = %v, want 2", v)
		}
		r.reload(func(a *ACME) { a.Ask = "" })
	})
	t.Run("rate", func(t *testing.T) {
		r.t = t
		// exact, added and yes.ask were admitted in the last hour.
		r.reload(func(a *ACME) { a.OnDemandN = 3 })
		took, err := r.handshake("over.wild.example.com")
		if err == nil {
			t.Fatal("a fourth name got a certificate past on_demand_rate 3/1h")
		}
		if took > atOnce {
			t.Errorf("refused past the rate after %s, want at once", took)
		}
		r.wantOrders("over.wild.example.com", 0)
		if v := r.metric(odRateLimited); v != 1 {
			t.Errorf("rate_limited = %v, want 1", v)
		}
		r.reload(func(a *ACME) { a.OnDemandN = 100 })
	})
	t.Run("per registered domain", func(t *testing.T) {
		r.t = t
		// exact, added and yes.ask: three orders under example.com.
		r.reload(func(a *ACME) { a.PerDomainWeek = 3 })
		took, err := r.handshake("dom.wild.example.com")
		if err == nil {
			t.Fatal("a fourth example.com name got a certificate past on_demand_per_domain_week 3")
		}
		if took > atOnce {
			t.Errorf("refused past the weekly bound after %s, want at once", took)
		}
		r.wantOrders("dom.wild.example.com", 0)
		if v := r.metric(odDomainLimited); v != 1 {
			t.Errorf("domain_limited = %v, want 1", v)
		}
		r.reload(func(a *ACME) { a.PerDomainWeek = 100 })
	})
	t.Run("backoff after a CA failure", func(t *testing.T) {
		r.t = t
		r.pb.Fail.Store(true)
		took, err := r.handshake("fail.wild.example.com")
		if err == nil {
			t.Fatal("a certificate from a CA that refuses every order")
		}
		t.Logf("first handshake against the failing CA: %s: %v", took.Round(time.Millisecond), err)
		if took > atOnce {
			t.Errorf("the failed order held the handshake %s, want it to fail without retrying", took)
		}
		r.wantOrders("fail.wild.example.com", 1)
		took, err = r.handshake("fail.wild.example.com")
		if err == nil || took > atOnce {
			t.Errorf("during the backoff: took %s, err %v; want refused at once", took, err)
		}
		r.wantOrders("fail.wild.example.com", 1)
		if r.metric(odFailed) != 1 || r.metric(odBackoff) != 1 {
			t.Errorf("failed = %v, backoff = %v; want 1 and 1", r.metric(odFailed), r.metric(odBackoff))
		}
		r.pb.Fail.Store(false)
		r.skew.Add(int64(backoffBase)) // the gate's clock past the backoff
		r.wantCert("fail.wild.example.com")
		r.wantOrders("fail.wild.example.com", 2)
	})
	t.Run("on_demand turned off", func(t *testing.T) {
		r.t = t
		r.reload(func(a *ACME) { a.OnDemand = false })
		r.m.Prune() // the daemon's, after the swap that comes with a reload
		st := r.m.acme.Load()
		for _, name := range []string{"added.example.com", "fail.wild.example.com"} {
			if n := len(st.cache.AllMatchingCertificates(name)); n != 0 {
				t.Errorf("%s: %d certificates still cached with on_demand off, which the managed config would renew", name, n)
			}
		}
	})
}

// TestGate checks the gate's bounds without a CA: handshakes for a name
// being ordered share its one order; past on_demand_queue a handshake is
// refused at once; a failed order backs off the name, and a success
// clears it.
func TestGate(t *testing.T) {
	now := time.Unix(1e9, 0)
	l := newLimiter()
	l.now = func() time.Time { return now }
	l.set(100, time.Hour)
	set := metrics.NewSet()
	g := newGate(t.Context(), set, testLogger(t), l)
	g.now = func() time.Time { return now }
	g.set(2, 3)

	release := make(chan error)
	var calls atomic.Int32
	order := func(ctx context.Context) error {
		calls.Add(1)
		return <-release
	}
	results := make(chan error, 3)
	for range 3 {
		go func() { results <- g.obtain(context.Background(), "a.example.co.uk", false, order) }()
	}
	waitFor(t, "three handshakes waiting", func() bool { return g.waiting.Load() == 3 })
	if err := g.obtain(context.Background(), "b.example.co.uk", false, order); err != errOnDemandQueue {
		t.Errorf("a fourth waiting handshake: err = %v, want %v", err, errOnDemandQueue)
	}
	release <- nil
	for range 3 {
		if err := <-results; err != nil {
			t.Errorf("a handshake sharing the order: %v", err)
		}
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("three handshakes for one name made %d orders, want 1", n)
	}

	// An order fails: the name backs off, refused without an order.
	go func() { release <- errOnDemandBusy }()
	if err := g.obtain(context.Background(), "b.x.example.co.uk", false, order); err != errOnDemandBusy {
		t.Errorf("a failing order: err = %v", err)
	}
	if err := g.obtain(context.Background(), "b.x.example.co.uk", false, order); err == nil || !strings.Contains(err.Error(), "last order failed") {
		t.Errorf("during the backoff: err = %v, want the backoff", err)
	}
	// An order the weekly count refuses is counted as such.
	now = now.Add(backoffBase)
	go func() { release <- fmt.Errorf("aborted: %w", errOnDemandDomain) }()
	if err := g.obtain(context.Background(), "b.x.example.co.uk", false, order); !errors.Is(err, errOnDemandDomain) {
		t.Errorf("an order over the weekly count: err = %v", err)
	}
	now = now.Add(backoffMax)
	go func() { release <- nil }()
	if err := g.obtain(context.Background(), "b.x.example.co.uk", false, order); err != nil {
		t.Errorf("after the backoff: %v", err)
	}
	if n := calls.Load(); n != 4 {
		t.Errorf("%d orders, want 4", n)
	}
	for result, want := range map[string]float64{odIssued: 2, odFailed: 1, odQueueFull: 1, odBackoff: 1, odDomainLimited: 1, odQueued: 6} {
		if v := metricValue(set, `redirectd_tls_on_demand_total{result="`+result+`"}`); v != want {
			t.Errorf("%s = %v, want %v", result, v, want)
		}
	}
}

// TestCountOrder checks the orders counted per registered domain in the
// storage: on-demand names past the bound are refused, names managed
// ahead of time only counted; another registered domain has its own
// count; orders older than a week drop out; a second Manager on the same
// storage (another node) sees the first one's orders.
func TestCountOrder(t *testing.T) {
	storage := t.TempDir()
	settings := &Settings{File: "redirectd.toml", TLSListen: "127.0.0.1:0",
		ACME: &ACME{CA: "https://127.0.0.1:1/dir", Storage: storage, Names: []string{"managed.example.co.uk"},
			OnDemand: true, PerDomainWeek: 2}}
	now := time.Unix(1e9, 0)
	manager := func() *acmeState {
		m := newManager(t, settings)
		m.gate.now = func() time.Time { return now }
		return m.acme.Load()
	}
	a, b := manager(), manager()
	ctx := context.Background()
	var got []string
	try := func(st *acmeState, name string) {
		err := st.countOrder(ctx, name)
		switch {
		case err == nil:
			got = append(got, name+" ok")
		case errors.Is(err, errOnDemandDomain):
			got = append(got, name+" refused")
		default:
			t.Fatalf("%s: %v", name, err)
		}
	}
	try(a, "x.example.co.uk")
	try(b, "y.a.example.co.uk") // the same registered domain, another node
	try(a, "z.example.co.uk")   // third this week: refused
	now = now.Add(time.Hour)
	try(b, "managed.example.co.uk") // counted, not refused
	try(a, "x.other.example")       // another registered domain
	now = now.Add(week - time.Hour)
	try(b, "z.example.co.uk") // the first two left the week; the managed one has not
	try(a, "w.example.co.uk")
	want := []string{"x.example.co.uk ok", "y.a.example.co.uk ok", "z.example.co.uk refused", "managed.example.co.uk ok",
		"x.other.example ok", "z.example.co.uk ok", "w.example.co.uk refused"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("orders (-want +got):\n%s", diff)
	}
}

// TestBackoffDoubles checks the backoff schedule: doubling per failure up
// to backoffMax, started over after a long quiet spell.
func TestBackoffDoubles(t *testing.T) {
	now := time.Unix(1e9, 0)
	g := newGate(t.Context(), metrics.NewSet(), testLogger(t), newLimiter())
	g.now = func() time.Time { return now }
	var got []time.Duration
	fail := func() {
		g.finish("a.example.com", errOnDemandBusy)
		got = append(got, g.failures["a.example.com"].until.Sub(now))
	}
	for range 8 {
		fail()
	}
	now = now.Add(3 * backoffMax)
	fail()
	want := []time.Duration{time.Minute, 2 * time.Minute, 4 * time.Minute, 8 * time.Minute, 16 * time.Minute, 32 * time.Minute, time.Hour, time.Hour, time.Minute}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("backoffs (-want +got):\n%s", diff)
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	if !testutil.Eventually(testutil.Patience, cond) {
		t.Fatalf("timed out waiting for %s", what)
	}
}
