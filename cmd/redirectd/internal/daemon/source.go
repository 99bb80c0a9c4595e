package daemon

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redirectd/redirectd/engine/admin/edit/edits"
	"github.com/redirectd/redirectd/engine/admin/edit/ruleset"

	"github.com/VictoriaMetrics/metrics"

	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/config/source"
	"github.com/redirectd/redirectd/engine/admin/edit"
	"github.com/redirectd/redirectd/internal/safego"
)

// fetchTimeout bounds one fetch, body included: 512 MiB at 1 MiB/s.
const fetchTimeout = 10 * time.Minute

// ruleSource pulls rule sets from [rules] source. Its fields, but the
// metrics', are guarded by service.mu.
type ruleSource struct {
	cfg     config.RulesSource
	fetcher *source.Fetcher
	cache   *source.Cache
	// latest is the source's newest version that loaded: what serves
	// unless a rollback pinned another.
	latest edit.Version
	// seen are the validators of the source's last answer, good version
	// or bad, sent with the next fetch: a bad version is not fetched and
	// refused again every poll while it stays at the source.
	seen source.Validators
	// bad is the hash of the last version that did not load, badErr why:
	// while the source keeps it (a 304 to its validators, or the same
	// files again), each poll counts the failure again, and the age of
	// the last success grows, so an alert sees a source stuck on a bad
	// version as it sees one that is down.
	bad    string
	badErr error
	// lastErr is the last failure's text: a failure repeated every poll
	// is logged once, not every few seconds.
	lastErr  string
	failRun  int
	kick     chan struct{}
	metrics  *metrics.Set
	started  time.Time
	lastOK   atomic.Int64 // unix nanoseconds of the last good fetch, 0 for none
	failures map[source.Reason]*metrics.Counter
	changed  *metrics.Counter
	same     *metrics.Counter
}

// candidate is a rule set from the source, to be loaded, and what loading
// it does to a rollback's pin.
type candidate struct {
	dir  string
	meta edit.Version
	pin  edits.Pin
	// edits, on a node without a source, is a version of edits to lay
	// over the config's rules instead of the one serving (a promote, a
	// rollback).
	edits *edit.Version
}

// startSource, with [rules] source, serves the version the cache holds
// (the pinned one, else the last good one) and starts polling the source;
// stop ends the polling. Without a source it does nothing.
func (s *service) startSource() (stop func(), err error) {
	rc := s.cfg.Reload.RulesSource
	if rc.Source == "" {
		return func() {}, nil
	}
	cache, err := source.OpenCache(rc.CacheDir)
	if err != nil {
		return nil, err
	}
	rs := &ruleSource{cfg: rc, cache: cache, kick: make(chan struct{}, 1), metrics: metrics.NewSet(), started: time.Now(),
		fetcher: &source.Fetcher{URL: rc.Source, Header: headerFunc(rc)}}
	rs.register(&s.versions)
	if h, n, ok := cache.Interrupted(); ok {
		if cache.Refused(h) {
			s.log.Error("the rule set version loading when redirectd last stopped is refused from now on: the process ended during each of its last loads", "version", h, "times", n, "refused", cache.RefusedFile())
		} else {
			s.log.Warn("redirectd stopped while loading a rule set version; it is loaded again", "version", h, "times", n, "refused_after", source.MaxInterruptedLoads)
		}
	}
	s.mu.Lock()
	s.rs = rs
	s.recoverSource()
	s.loadCached()
	s.mu.Unlock()
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer safego.Recover("rules source poll")
		defer close(done)
		s.pollSource(quit)
	}()
	return func() { close(quit); <-done }, nil
}

// recoverSource completes the audit log of a node with a source: the
// last change recorded (a pin, an unpin, a new version) whose state in
// cache_dir did not follow, because the process ended between the two,
// gets its abort record. (Only the last can be: each change is recorded
// after the one before it took effect or was aborted.) A new version
// that became current but whose end of a pin did not follow is
// completed instead. s.mu is held.
func (s *service) recoverSource() {
	r := s.ed.LastRecord()
	if r == nil || s.ed.AuditLog() == nil {
		return
	}
	cache := s.rs.cache
	cur, _, _ := cache.Current()
	pinned, isPinned := cache.Pinned()
	var took bool
	switch r.Action {
	case "pin":
		took = isPinned && pinned == r.Hash
	case "unpin":
		took = !isPinned
	case "source":
		took = cur.Hash == r.Hash
		if took && isPinned {
			// current is its commit: the pin it ends (makeCurrent's
			// second write) is completed, not the change undone.
			if err := cache.SetPinned(""); err != nil {
				s.log.Error("cannot end in [rules] cache_dir the pin that the last new version from the source ended; the pinned version serves", "err", err)
			}
			return
		}
	default:
		return
	}
	if took {
		return
	}
	s.log.Warn("a change recorded in [admin] audit_log did not take effect before redirectd stopped: recording its abort", "action", r.Action, "version", r.Hash, "author", r.Author)
	abort := edit.Record{Time: edits.Now(), Action: "abort", Hash: r.Hash, Author: r.Author, Recovered: true,
		Message: "the " + r.Action + " recorded above did not take effect: redirectd stopped before it committed"}
	if err := s.ed.AuditLog().Append(abort); err != nil {
		s.ed.HoldAbort(abort)
		s.log.Error("cannot append an abort record to [admin] audit_log; it is appended before the next record", "err", err)
	}
}

// headerFunc returns the Fetcher's Header: source_header as configured, or
// source_header_file read at each fetch (a rotated token needs no reload).
func headerFunc(rc config.RulesSource) func() (string, string, error) {
	switch {
	case rc.SourceHeader != "":
		name, value, _ := config.ParseHeader(rc.SourceHeader) // checked by config
		return func() (string, string, error) { return name, value, nil }
	case rc.SourceHeaderFile != "":
		return func() (string, string, error) {
			b, err := os.ReadFile(rc.SourceHeaderFile)
			if err != nil {
				return "", "", fmt.Errorf("[rules] source_header_file: %w", err)
			}
			name, value, err := config.ParseHeader(strings.TrimRight(string(b), "\r\n"))
			if err != nil {
				return "", "", fmt.Errorf("[rules] source_header_file %s: %w", rc.SourceHeaderFile, err)
			}
			return name, value, nil
		}
	}
	return nil
}

func (rs *ruleSource) register(vl *edits.VersionLog) {
	m := rs.metrics
	m.NewGauge(`redirectd_rules_source_last_success_timestamp_seconds`, func() float64 {
		return float64(rs.lastOK.Load()) / 1e9
	})
	// The age counts from start while no fetch has succeeded, so an alert
	// on it fires for a node that never reached its source too.
	m.NewGauge(`redirectd_rules_source_age_seconds`, func() float64 {
		last := time.Unix(0, rs.lastOK.Load())
		if rs.lastOK.Load() == 0 {
			last = rs.started
		}
		return time.Since(last).Seconds()
	})
	rs.changed = m.NewCounter(`redirectd_rules_source_fetches_total{result="changed"}`)
	rs.same = m.NewCounter(`redirectd_rules_source_fetches_total{result="unchanged"}`)
	rs.failures = map[source.Reason]*metrics.Counter{}
	for _, r := range source.Reasons {
		rs.failures[r] = m.NewCounter(fmt.Sprintf(`redirectd_rules_source_failures_total{reason=%q}`, r))
	}
	m.NewGauge(`redirectd_rules_pinned`, func() float64 {
		if vl.Pinned() {
			return 1
		}
		return 0
	})
}

// loadCached lists the versions the cache keeps and serves the pinned or
// current one, so a node restarted while the source is down serves what
// it served before. s.mu is held.
func (s *service) loadCached() {
	rs := s.rs
	for _, m := range rs.cache.List() {
		if !s.versions.AddOlder(metaVersion(m)) {
			break
		}
	}
	cur, ok, err := rs.cache.Current()
	if err != nil {
		s.log.Error("cannot read the last good version in [rules] cache_dir; waiting for the source", "err", err)
	}
	if !ok {
		return
	}
	rs.latest, rs.seen = cur, validators(cur)
	want, pinned := cur, false
	if h, ok := rs.cache.Pinned(); ok {
		if m, err := rs.cache.Version(h); err == nil {
			want, pinned = m, true
		}
	}
	c := &candidate{dir: rs.cache.Dir(want.Hash), meta: want, pin: edits.ClearPin}
	if pinned {
		c.pin = edits.SetPin
	}
	if _, err := s.reloadLocked(c, nil); err != nil {
		// Forget its validators: a 304 to them would leave the node
		// without rules while the source holds good ones.
		rs.latest, rs.seen = edit.Version{}, source.Validators{}
		s.log.Error("cannot serve the version in [rules] cache_dir; waiting for the source", "version", want.Hash, "err", err)
		return
	}
	s.pruneCache() // a smaller keep_versions than the last run's
	s.log.Info("serving the rule set kept in [rules] cache_dir until the source answers", "version", want.Hash, "pinned", pinned, "fetched", want.FetchedAt)
}

// cached returns the version hash from the cache as a candidate.
func (rs *ruleSource) cached(hash string) (*candidate, error) {
	m, err := rs.cache.Version(hash)
	if err != nil {
		return nil, err
	}
	return &candidate{dir: rs.cache.Dir(hash), meta: m}, nil
}

// kickSource asks the poller to fetch now rather than at its next tick.
func (s *service) kickSource() {
	if s.rs != nil {
		select {
		case s.rs.kick <- struct{}{}:
		default:
		}
	}
}

// pollSource fetches at once, then every poll interval give or take a
// fifth at random, so that a fleet started together does not ask the
// source in lock step, until quit closes.
func (s *service) pollSource(quit <-chan struct{}) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	safego.Go("source quit", func() { <-quit; cancel() })
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-s.rs.kick:
		}
		s.pollOnce(ctx)
		t.Reset(jitter(s.rs.cfg.Poll.Std()))
	}
}

// jitter returns d stretched or shrunk by up to a fifth, at random.
func jitter(d time.Duration) time.Duration {
	return time.Duration(float64(d) * (0.8 + 0.4*rand.Float64()))
}

// pollOnce asks the source once and loads what is new.
func (s *service) pollOnce(ctx context.Context) {
	rs := s.rs
	s.mu.Lock()
	prev := rs.seen
	s.mu.Unlock()
	staged, err := rs.cache.Stage()
	if err != nil {
		s.sourceFailed(&source.Error{Reason: source.ReasonArchive, Err: fmt.Errorf("cannot write to [rules] cache_dir: %w", err)})
		return
	}
	fctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	f, err := rs.fetcher.Fetch(fctx, staged, prev)
	cancel()
	if err != nil || f == nil {
		os.RemoveAll(staged)
		if ctx.Err() != nil {
			return // stopping
		}
		switch {
		case err != nil:
			s.sourceFailed(err)
		case s.stillBad():
		default:
			rs.same.Inc()
			s.sourceOK()
		}
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rs.seen = f.Validators
	meta := edit.Version{Hash: f.Hash, Entry: f.Entry, Source: rs.cfg.Source, ETag: f.ETag, LastModified: f.LastModified, FetchedAt: time.Now()}
	switch f.Hash {
	case rs.latest.Hash: // the same files under new validators
		if _, err := rs.cache.Commit(staged, meta); err == nil {
			rs.latest = meta
		}
		rs.bad, rs.badErr = "", nil // the bad version is gone from the source
		rs.same.Inc()
		s.sourceOK()
		return
	case rs.bad:
		os.RemoveAll(staged)
		s.sourceFailed(rs.badErr)
		return
	}
	dir, err := rs.cache.Commit(staged, meta)
	if err != nil {
		os.RemoveAll(staged)
		s.sourceFailed(&source.Error{Reason: source.ReasonArchive, Err: err})
		return
	}
	wasPinned := s.versions.Pinned()
	if _, err := s.apply(change{action: "source", who: edit.Audit{Author: "source", Message: rs.cfg.Source}, c: &candidate{dir: dir, meta: meta, pin: edits.ClearPin}, durable: rs.makeCurrent(f.Hash)}); err != nil {
		if errors.Is(err, edit.ErrNotDurable) {
			// Not the version's fault: asked again at the next poll.
			rs.seen = prev
			s.sourceFailed(&source.Error{Reason: source.ReasonArchive, Err: err})
			return
		}
		rs.bad = f.Hash
		rs.badErr = &source.Error{Reason: source.ReasonInvalid, Err: fmt.Errorf("the source's rule set %s does not load, so the running rules stay: %w", f.Hash, err)}
		s.pruneCache()
		s.sourceFailed(rs.badErr)
		return
	}
	rs.latest, rs.bad, rs.badErr = meta, "", nil
	if wasPinned {
		s.log.Warn("the source changed: the rollback's pin ends", "version", f.Hash)
	}
	s.pruneCache()
	rs.changed.Inc()
	s.sourceOK()
	s.log.Info("new rule set from the source", "version", f.Hash, "etag", f.ETag, "source", rs.cfg.Source)
}

// makeCurrent returns the durable step of a new version from the
// source: it becomes current and ends a pin, as one change.
func (rs *ruleSource) makeCurrent(hash string) func() error {
	cache := rs.cache
	return func() error {
		prev, _, _ := cache.Current()
		if err := cache.SetCurrent(hash); err != nil {
			return err
		}
		if err := cache.SetPinned(""); err != nil {
			if prev.Hash != "" {
				cache.SetCurrent(prev.Hash) // as it was: the change is aborted
			}
			return err
		}
		return nil
	}
}

// stillBad counts a 304 to the validators of a version that did not load
// as that failure again, and reports whether it was one.
func (s *service) stillBad() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rs.bad == "" {
		return false
	}
	s.sourceFailed(s.rs.badErr)
	return true
}

// pruneCache removes the versions no longer listed, but the source's
// latest (unpin's target).
func (s *service) pruneCache() {
	keep := s.versions.KeptHashes()
	keep[s.rs.latest.Hash] = true
	s.rs.cache.Prune(keep)
}

func (s *service) sourceOK() {
	rs := s.rs
	rs.lastOK.Store(time.Now().UnixNano())
	if rs.failRun > 0 {
		s.log.Info("the source answers again", "failures", rs.failRun)
	}
	rs.lastErr, rs.failRun = "", 0
}

// sourceFailed counts a failure by its reason and logs it, unless it is
// the same failure as the last poll's.
func (s *service) sourceFailed(err error) {
	rs := s.rs
	rs.failures[source.ReasonOf(err)].Inc()
	rs.failRun++
	if msg := err.Error(); msg != rs.lastErr {
		rs.lastErr = msg
		s.log.Error("cannot update the rules from the source; the running rules stay (a failure repeated at each poll is logged once)",
			"source", rs.cfg.Source, "reason", source.ReasonOf(err), "err", err)
	}
}

// load loads the config, and with a source the rule set c (nil: the
// version serving), for reloadLocked, with the version it is and, for a
// rule set from an edited node, its rules' origins. With a source, the
// local config holds no rules; the source's settings take effect at a
// restart only.
func (s *service) load(c *candidate) (*config.Config, edit.Version, *ruleset.Origins, error) {
	cfg, err := s.loader.Load(s.file)
	if err != nil {
		return nil, edit.Version{}, nil, err
	}
	if s.rs == nil {
		if cfg.Reload.Source != "" {
			return nil, edit.Version{}, nil, errors.New(cfg.Path + ": [rules] source was added: restart redirectd to pull the rules from it; the running rules stay")
		}
		var v *edit.Version
		if c != nil {
			v = c.edits
		}
		if err := applyEdits(s.ed, cfg, v, s.log); err != nil {
			return nil, edit.Version{}, nil, err
		}
		return cfg, s.ed.Describe(localVersion(cfg, s.loader), v), nil, nil
	}
	if cfg.Reload.RulesSource != s.rs.cfg {
		return nil, edit.Version{}, nil, errors.New(cfg.Path + ": [rules] source, poll, source_header, cache_dir or keep_versions changed: restart redirectd to apply them; the running rules stay")
	}
	if c == nil {
		h := s.versions.ServingHash()
		if h == "" {
			return nil, edit.Version{}, nil, fmt.Errorf("no rule set from [rules] source has loaded yet; it is asked again now, and every %s", s.rs.cfg.Poll.Std())
		}
		if c, err = s.rs.cached(h); err != nil {
			return nil, edit.Version{}, nil, err
		}
	}
	if s.rs.cache.Refused(c.meta.Hash) {
		return nil, edit.Version{}, nil, fmt.Errorf("rule set %s from %s was loading when redirectd stopped, %d times in a row, and may have ended it: it is not loaded again (delete %s to try)",
			c.meta.Hash, c.meta.Source, source.MaxInterruptedLoads, s.rs.cache.RefusedFile())
	}
	if err := s.rs.cache.BeginLoad(c.meta.Hash); err != nil {
		s.log.Warn("cannot record the version loading in [rules] cache_dir; a rule set that ends the process would be loaded again after a restart", "err", err)
	}
	rules, err := config.LoadRuleSetFor(cfg.Reload, c.dir, c.meta.Entry, cfg.Server.HeaderList...)
	s.rs.cache.EndLoad()
	if err != nil {
		return nil, edit.Version{}, nil, fmt.Errorf("rule set %s from %s: %w", c.meta.Hash, c.meta.Source, err)
	}
	cfg.Set, cfg.Files, cfg.Skipped, cfg.SkippedEntries = rules.Set, nil, rules.Skipped, rules.SkippedEntries
	if cfg.Locations != nil {
		// A rule set holds no locations: the node's own config does.
		cfg.Set.SetLocations(cfg.Locations)
	}
	origins, err := ruleset.ReadOrigins(c.dir, c.meta.Entry)
	if err != nil {
		// Only what the rules pages show: the rules serve all the same.
		s.log.Warn("cannot read who made the rules of the rule set; they are shown by their place in it", "version", c.meta.Hash, "err", err)
	}
	return cfg, metaVersion(c.meta), origins, nil
}

// metaVersion is the version of the source's rule set m, kept in the
// cache, as /versions lists it.
func metaVersion(m edit.Version) edit.Version {
	m.Kept = true
	return m
}

// validators are the validators a fetch of m answered with, which the
// next fetch sends.
func validators(m edit.Version) source.Validators {
	return source.Validators{ETag: m.ETag, LastModified: m.LastModified}
}

// FetchRules fetches the rules of cfg's [rules] source once into dir, as
// a node's poll does, for `check -fetch`; it returns the file to load
// (config.LoadRuleSetFor), a path inside dir.
func FetchRules(ctx context.Context, cfg *config.Config, dir string) (string, error) {
	rc := cfg.Reload.RulesSource
	f := &source.Fetcher{URL: rc.Source, Header: headerFunc(rc)}
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	got, err := f.Fetch(ctx, dir, source.Validators{})
	if err != nil {
		return "", err
	}
	if got == nil {
		return "", errors.New("the source answered that nothing changed, to a request that named no version")
	}
	return got.Entry, nil
}
