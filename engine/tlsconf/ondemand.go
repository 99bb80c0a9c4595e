package tlsconf

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/VictoriaMetrics/metrics"
	"golang.org/x/net/publicsuffix"
	"golang.org/x/sync/singleflight"

	"github.com/redirectd/redirectd/internal/safego"
)

// On-demand results, the values of the result label of
// redirectd_tls_on_demand_total.
const (
	odIssued        = "issued"         // an order succeeded
	odFailed        = "failed"         // an order failed: the name backs off
	odQueued        = "queued"         // a handshake waited for an order
	odRefused       = "refused"        // no rule names the host
	odDenied        = "denied"         // the ask URL refused, or did not answer
	odRateLimited   = "rate_limited"   // over on_demand_rate
	odDomainLimited = "domain_limited" // over on_demand_per_domain_week
	odQueueFull     = "queue_full"     // over on_demand_queue
	odBackoff       = "backoff"        // refused while the name backs off after a failure
)

var odResults = []string{odIssued, odFailed, odQueued, odRefused, odDenied, odRateLimited, odDomainLimited, odQueueFull, odBackoff}

// Errors of an on-demand handshake that gets no certificate, wrapped in
// ErrNoCertificate by getCertificate.
var (
	errOnDemandRate   = errors.New("on_demand_rate reached")
	errOnDemandDomain = errors.New("on_demand_per_domain_week reached for the registered domain")
	errOnDemandQueue  = errors.New("on_demand_queue is full")
	errOnDemandBusy   = errors.New("the order is still running")
)

// onDemandParallel is how many on-demand orders run at once; the others
// wait in the queue. Let's Encrypt allows 300 new orders per 3 hours per
// account: a few at a time is plenty.
const onDemandParallel = 4

// orderTimeout bounds one on-demand order, which runs on under the
// Manager's life when the handshake that started it gives up: the next
// handshake finds the certificate in storage.
var orderTimeout = 2 * time.Minute

// The backoff of a name whose order failed: refused at once for
// backoffBase, doubling per failure up to backoffMax. Tests lower them.
var (
	backoffBase = time.Minute
	backoffMax  = time.Hour
)

// week is the window of on_demand_per_domain_week.
const week = 7 * 24 * time.Hour

// gate bounds the on-demand orders of a Manager: one order per name at a
// time (later handshakes for it wait for that one: singleflight), the rate, the waiting
// handshakes, and a backoff for names whose order failed. The orders per
// registered domain per week are counted in the storage (ordercount.go),
// so that a fleet sharing it counts together. It outlives reloads, so that a reload
// refills no budget. Only handshakes for a name with no certificate in
// the cache or in storage come here.
type gate struct {
	log     *slog.Logger
	limiter *limiter
	counts  map[string]*metrics.Counter
	ctx     context.Context // the Manager's: orders end with it
	slots   chan struct{}
	waiting atomic.Int64
	// One sampler per kind of refusal, each at most a line per logEvery.
	noRule, denied, full logSampler
	now                  func() time.Time

	// flights runs one order per name; the handshakes for a name whose
	// order runs share it.
	flights singleflight.Group

	mu       sync.Mutex
	queueMax int
	perWeek  int
	failures map[string]failure
}

// refusal is an order refused before it started (the name backs off, or
// the rate is reached): the handshakes that share it did not wait.
type refusal struct{ err error }

func (r refusal) Error() string { return r.err.Error() }
func (r refusal) Unwrap() error { return r.err }

// failure is a name's backoff: refused until until; n failures so far.
type failure struct {
	until time.Time
	n     int
}

func newGate(ctx context.Context, set *metrics.Set, log *slog.Logger, l *limiter) *gate {
	g := &gate{log: log, limiter: l, ctx: ctx, slots: make(chan struct{}, onDemandParallel), now: time.Now,
		counts:   map[string]*metrics.Counter{},
		queueMax: defaultOnDemandQueue, perWeek: defaultOnDemandPerWeek,
		failures: map[string]failure{}}
	for _, r := range odResults {
		g.counts[r] = set.GetOrCreateCounter(fmt.Sprintf(`redirectd_tls_on_demand_total{result=%q}`, r))
	}
	return g
}

func (g *gate) set(perWeek, queue int) {
	g.mu.Lock()
	g.perWeek, g.queueMax = perWeek, queue
	g.mu.Unlock()
}

// weekLimit is on_demand_per_domain_week.
func (g *gate) weekLimit() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.perWeek
}

func (g *gate) count(result string) { g.counts[result].Inc() }

// obtain gets name a certificate through order, or returns why not at
// once: a name backing off, over a limit, or a full queue. A handshake
// for a name already being ordered waits for that order. It waits at most
// until ctx (the handshake's) ends; the order itself goes on.
func (g *gate) obtain(ctx context.Context, name string, wild bool, order func(context.Context) error) error {
	g.mu.Lock()
	queueMax := int64(g.queueMax)
	g.mu.Unlock()
	if n := g.waiting.Add(1); n > queueMax {
		g.waiting.Add(-1)
		g.count(odQueueFull)
		g.full.log(g.log, "acme: on-demand handshake refused: on_demand_queue is full", name, "queue", queueMax)
		return errOnDemandQueue
	}
	defer g.waiting.Add(-1)
	ch := g.flights.DoChan(name, func() (any, error) { return nil, g.run(name, wild, order) })
	select {
	case r := <-ch:
		var ref refusal
		if errors.As(r.Err, &ref) {
			return ref.err
		}
		g.count(odQueued)
		return r.Err
	case <-ctx.Done():
		g.count(odQueued) // a refusal comes at once: this handshake waited for an order
		return fmt.Errorf("%w: %v", errOnDemandBusy, ctx.Err())
	}
}

// admit reports why name may not be ordered now (the backoff, the rate),
// or nil.
func (g *gate) admit(name string, wild bool) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := g.now()
	if fl, ok := g.failures[name]; ok && now.Before(fl.until) {
		g.count(odBackoff)
		return fmt.Errorf("the last order failed; next try after %s", fl.until.Format(time.RFC3339))
	}
	if !g.limiter.allow(name, wild) {
		g.count(odRateLimited)
		n, per := g.limiter.limits()
		g.log.Warn("acme: on-demand order refused: on_demand_rate reached", "host", name, "rate", fmt.Sprintf("%d/%s", n, per), "wildcard_only", wild)
		return errOnDemandRate
	}
	return nil
}

// run is name's flight: it admits the order (a refusal is returned as
// one), runs it once a slot is free, and records its outcome. It runs on
// singleflight's goroutine, under the Manager's life: the order goes on
// when the handshakes that wait for it give up.
func (g *gate) run(name string, wild bool, order func(context.Context) error) (err error) {
	defer safego.RecoverErr("on-demand order", &err)
	if err := g.admit(name, wild); err != nil {
		return refusal{err}
	}
	g.log.Info("acme: on-demand order queued", "host", name, "waiting", g.waiting.Load())
	select {
	case g.slots <- struct{}{}:
	case <-g.ctx.Done():
		g.finish(name, g.ctx.Err())
		return g.ctx.Err()
	}
	ctx, cancel := context.WithTimeout(g.ctx, orderTimeout)
	start := g.now()
	err = order(ctx)
	cancel()
	<-g.slots
	switch {
	case errors.Is(err, errOnDemandDomain):
		g.count(odDomainLimited) // the log line is countOrder's
	case err != nil:
		g.count(odFailed)
	default:
		g.count(odIssued)
		g.log.Info("acme: on-demand certificate obtained", "host", name, "took", g.now().Sub(start).Round(time.Millisecond))
	}
	g.finish(name, err)
	return err
}

// finish sets or clears name's backoff after its order ended with err.
func (g *gate) finish(name string, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if err == nil {
		delete(g.failures, name)
	} else {
		now := g.now()
		fl := g.failures[name]
		if now.Sub(fl.until) > backoffMax {
			fl.n = 0 // a failure long ago starts over
		}
		d := backoffBase << min(fl.n, 20)
		if d > backoffMax || d <= 0 {
			d = backoffMax
		}
		fl.n++
		fl.until = now.Add(d)
		g.failures[name] = fl
		g.log.Error("acme: on-demand order failed; handshakes for the name are refused until the backoff ends",
			"host", name, "failures", fl.n, "retry_after", d, "err", err)
		g.sweepFailures(now)
	}
}

// sweepFailures forgets backoffs long over, once there are many: the map
// holds at most the names admitted in the last backoffMax or so.
func (g *gate) sweepFailures(now time.Time) {
	if len(g.failures) < 1024 {
		return
	}
	for k, fl := range g.failures {
		if now.Sub(fl.until) > backoffMax {
			delete(g.failures, k)
		}
	}
}

// registeredDomain is name's registered domain by the public suffix
// list ("example.co.uk" for "a.b.example.co.uk"); name itself when it has
// none (a public suffix, a single label).
func registeredDomain(name string) string {
	d, err := publicsuffix.EffectiveTLDPlusOne(name)
	if err != nil {
		return name
	}
	return d
}

// logSampler writes at most one line per logEvery, with the number of
// events it left out: a scanner sending a thousand names a second must
// not flood the log. No lock: the handshake path only adds.
type logSampler struct {
	last    atomic.Int64 // unix nanoseconds of the last line
	skipped atomic.Int64
}

const logEvery = 10 * time.Second

func (s *logSampler) log(log *slog.Logger, msg, host string, args ...any) {
	now := time.Now().UnixNano()
	last := s.last.Load()
	if now-last < int64(logEvery) || !s.last.CompareAndSwap(last, now) {
		s.skipped.Add(1)
		return
	}
	args = append(args, "host", host, "others_since_last_line", s.skipped.Swap(0))
	log.Warn(msg, args...)
}
