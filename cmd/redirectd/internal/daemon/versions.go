package daemon

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/redirectd/redirectd/cmd/redirectd/internal/configload"
	"github.com/redirectd/redirectd/engine/promtext"
	"github.com/redirectd/redirectd/internal/safego"

	"github.com/VictoriaMetrics/metrics"

	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/config/source"
	"github.com/redirectd/redirectd/engine/admin/edit"
	"github.com/redirectd/redirectd/engine/admin/edit/edits"
	"github.com/redirectd/redirectd/engine/admin/edit/ruleset"
	"github.com/redirectd/redirectd/matcher"
)

// settleVersion records the version of cfg, the config serve loaded,
// with the rules serving, then lets whoever waits for it go on
// (versionReady); see settleWhenServing.
func (s *service) settleVersion(cfg *config.Config) {
	defer close(s.versionReady)
	s.initVersions(cfg)
	if h := s.versions.ServingHash(); h != "" {
		s.snap.Store(ruleset.Take(h, s.srv.Rules(), nil, s.ed, nil))
	}
}

// settleWhenServing returns what records cfg's version once the
// listeners answer: settleVersion on a goroutine of its own, for the
// hash reads every config and map file again through SHA-256 (at a
// million rules, 13 % of the CPU to the first answer), and the admin
// endpoints and changes of rules wait for it. With [rules] source there
// is no hash to make (startSource loads the source's version): the wait
// ends now, before startSource, whose polls change rules.
func (s *service) settleWhenServing(cfg *config.Config) func() {
	if cfg.Reload.Source != "" {
		s.settleVersion(cfg)
		return func() {}
	}
	return func() { safego.Go("version hash", func() { s.settleVersion(cfg) }) }
}

// awaitVersion waits until the version of the config serve loaded is
// recorded: a change of rules comes after it in the version log.
func (s *service) awaitVersion() { <-s.versionReady }

// initVersions records the version of the config serve loaded, unless
// its rules come from a source (startSource loads them).
func (s *service) initVersions(cfg *config.Config) {
	s.versions.SetKeep(cmp.Or(cfg.Reload.KeepVersions, config.DefaultKeepVersions))
	if cfg.Reload.Source != "" {
		return
	}
	local := localVersion(cfg, s.loader)
	s.recordVersion(s.ed.Describe(local, nil), cfg.Set.Len(), edits.KeepPin)
	s.ed.ListKept(&s.versions, local)
}

// localVersion describes a config's own rules: its hash covers the config
// file and the map and CSV files it names. Their earlier contents are not
// kept, so such a version is listed, not rolled back to.
func localVersion(cfg *config.Config, example configload.Loader) edit.Version {
	h := sha256.New()
	for _, f := range append([]string{cfg.Path}, cfg.Files...) {
		io.WriteString(h, f+"\x00")
		if in, err := os.Open(f); err == nil {
			io.Copy(h, in)
			in.Close()
		} else if cfg.Path == example.Name {
			b, _ := fs.ReadFile(example.Example, f)
			h.Write(b)
		}
	}
	return edit.Version{Hash: hex.EncodeToString(h.Sum(nil))[:source.HashLen], LoadedAt: time.Now(), Source: "file:" + cfg.Path}
}

// recordVersion notes that v serves now, with n rules, and sets the
// pin; the version metric follows the version serving.
func (s *service) recordVersion(v edit.Version, n int, p edits.Pin) {
	if s.versions.Record(v, n, p) {
		set := metrics.NewSet()
		set.NewGauge(fmt.Sprintf(`redirectd_rules_version_info{hash=%q}`, v.Hash), func() float64 { return 1 })
		s.versionInfo.Store(set)
	}
}

// The edit.Versioner methods: the version log's (edits.VersionLog),
// which decides what a rollback, an unpin and a diff do (versionops.go
// there); Rollback and Unpin load through apply.

func (s *service) Versions() []edit.Version { return s.versions.Versions() }

// rulesReady says why no rules serve yet: only with a source, before its
// first version (fetched or cached) loads.
func (s *service) rulesReady() error {
	if s.versions.Loaded() {
		return nil
	}
	return fmt.Errorf("no rule set loaded yet: waiting for [rules] source (the log says why it has not loaded)")
}

func (s *service) writeVersionMetrics(w io.Writer) {
	if set := s.versionInfo.Load(); set != nil {
		promtext.WriteSet(w, set, versionMetricHelp)
	}
	if s.rs != nil {
		promtext.WriteSet(w, s.rs.metrics, versionMetricHelp)
	}
}

// Rollback serves version to again: on an edited node, as a new
// version of its edits (edits.State.Rollback); with a source, the cache's copy,
// pinned. What may be rolled back to is edits.VersionLog's to say.
func (s *service) Rollback(to string, a edit.Audit) (string, error) {
	if s.rs == nil && s.ed.Store() != nil {
		s.mu.Lock()
		defer s.mu.Unlock()
		serve, loaded := s.serveEdits()
		msg, err := s.ed.Rollback(to, &s.versions, a, serve)
		if *loaded {
			freeLoadGarbage() // see reloadLocked
		}
		return msg, err
	}
	if _, err := s.versions.PinTarget(to, s.rs != nil); err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.rs.cached(to)
	if err != nil {
		return "", err
	}
	c.pin = edits.SetPin
	cache := s.rs.cache
	msg, err := s.apply(change{action: "pin", who: a, c: c, durable: func() error { return cache.SetPinned(to) }})
	if err != nil {
		return "", fmt.Errorf("cannot roll back to %s; the running rules stay: %w", to, err)
	}
	s.log.Warn("rolled back; pinned until the source changes or POST /versions/unpin", "version", to, "author", a.Author, "message", a.Message)
	return edits.Pinned(to, msg), nil
}

// Unpin ends a rollback's pin, recorded in the audit log with a, the
// caller; edits.VersionLog says whether there is one and what serves
// after it.
func (s *service) Unpin(a edit.Audit) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var latest string
	if s.rs != nil {
		latest = s.rs.latest.Hash
	}
	target, err := s.versions.UnpinTarget(s.rs != nil, latest)
	if err != nil {
		return "", err
	}
	cache := s.rs.cache
	unpinned := func() error { return cache.SetPinned("") }
	if target == "" {
		if _, err := s.apply(change{action: "unpin", who: a, keep: true, durable: unpinned}); err != nil {
			return "", err
		}
		s.versions.SetPinned(false)
		return edits.Unpinned("", "", nil)
	}
	var msg string
	c, err := s.rs.cached(target)
	if err == nil {
		c.pin = edits.ClearPin
		msg, err = s.apply(change{action: "unpin", who: a, c: c, durable: unpinned})
	}
	return edits.Unpinned(target, msg, err)
}

// Diff compares two versions (edits.VersionLog), their rules loaded by
// versionLoader.
func (s *service) Diff(from, to string, limit int) (*edit.VersionDiff, error) {
	return s.versions.Diff(from, to, limit, func(hash string) (*matcher.Set, error) {
		return s.versions.VersionRules(hash, s.ed, s.rs != nil, versionLoader{s})
	})
}

// versionLoader is edits.RuleLoader by the daemon: the rules serving,
// the config loaded again, the source's cache.
type versionLoader struct{ s *service }

func (l versionLoader) Serving() *matcher.Set { return l.s.srv.Rules() }

// Edited compiles the config of now with v's edits (none for number 0)
// laid over it.
func (l versionLoader) Edited(v *edit.Version) (*matcher.Set, error) {
	s := l.s
	cfg, err := s.loader.Load(s.file)
	if err != nil {
		return nil, fmt.Errorf("cannot load the config to rebuild version %d: %w", v.Number, err)
	}
	if err := applyEdits(s.ed, cfg, v, s.log); err != nil {
		return nil, err
	}
	return cfg.Set, nil
}

// Fetched compiles version v from the cache (the loader has no cheaper
// path, and a diff is rare).
func (l versionLoader) Fetched(v edit.Version) (*matcher.Set, error) {
	s := l.s
	cfg, err := config.LoadRuleSetFor(s.cfg.Reload, s.rs.cache.Dir(v.Hash), v.Entry, s.srv.Rules().HeaderFields()...)
	if err != nil {
		return nil, fmt.Errorf("cannot load version %s from [rules] cache_dir: %w", v.Hash, err)
	}
	return cfg.Set, nil
}
