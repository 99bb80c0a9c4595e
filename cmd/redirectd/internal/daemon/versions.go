package daemon

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
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
// Rollback and Unpin loading through apply.

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

func (s *service) Rollback(to string, a edit.Audit) (string, error) {
	if s.rs == nil && s.ed.Store() != nil {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.rollbackEdits(to, a)
	}
	v, err := s.versions.Find(to)
	if err != nil {
		return "", err
	}
	if !v.Kept || s.rs == nil {
		return "", fmt.Errorf("version %s came from the local config, whose earlier files are not kept: only versions from [rules] source can be rolled back to", to)
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
	return fmt.Sprintf("serving %s, pinned until the source changes or POST /versions/unpin: %s", to, msg), nil
}

// Unpin ends a rollback's pin, recorded in the audit log with a, the
// caller.
func (s *service) Unpin(a edit.Audit) (string, error) {
	if s.rs == nil {
		return "", errors.New("nothing is pinned: rollback needs [rules] source")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.versions.Pinned() {
		return "", errors.New("nothing is pinned: POST /versions/rollback?to=HASH pins a version")
	}
	cache := s.rs.cache
	unpinned := func() error { return cache.SetPinned("") }
	latest := s.rs.latest
	if latest.Hash == "" || latest.Hash == s.versions.ServingHash() {
		if _, err := s.apply(change{action: "unpin", who: a, keep: true, durable: unpinned}); err != nil {
			return "", err
		}
		s.versions.SetPinned(false)
		return "unpinned; the source's version serves already", nil
	}
	c, err := s.rs.cached(latest.Hash)
	if err == nil {
		var msg string
		c.pin = edits.ClearPin
		if msg, err = s.apply(change{action: "unpin", who: a, c: c, durable: unpinned}); err == nil {
			return "unpinned; serving the source's version " + latest.Hash + ": " + msg, nil
		}
	}
	return "", fmt.Errorf("cannot load the source's version %s, so the pin stays: %w", latest.Hash, err)
}

func (s *service) Diff(from, to string, limit int) (*edit.VersionDiff, error) {
	return s.versions.Diff(from, to, limit, s.versionRules)
}

// versionRules returns the rules of version hash: the serving set's when
// it serves, else loaded from the cache (compiled: the loader has no
// cheaper path, and a diff is rare).
func (s *service) versionRules(hash string) (*matcher.Set, error) {
	v, err := s.versions.Find(hash)
	if err != nil {
		return nil, err
	}
	if hash == s.versions.ServingHash() {
		return s.srv.Rules(), nil
	}
	if s.rs == nil && s.ed.Store() != nil {
		return s.editedRules(v)
	}
	if !v.Kept || s.rs == nil {
		return nil, fmt.Errorf("version %s came from the local config, whose earlier files are not kept: only versions from [rules] source can be compared", hash)
	}
	cfg, err := config.LoadRuleSetFor(s.cfg.Reload, s.rs.cache.Dir(hash), v.Entry, s.srv.Rules().HeaderFields()...)
	if err != nil {
		return nil, fmt.Errorf("cannot load version %s from [rules] cache_dir: %w", hash, err)
	}
	return cfg.Set, nil
}

// editedRules rebuilds the rules of version v of an edited node: the
// config as it is now, with v's stored edits (none for number 0) laid
// over it. A version from before the config last changed is rebuilt on
// the config of now: the edits are kept, not the config's files.
func (s *service) editedRules(v edit.Version) (*matcher.Set, error) {
	cfg, err := s.loader.Load(s.file)
	if err != nil {
		return nil, fmt.Errorf("cannot load the config to rebuild version %s: %w", v.Hash, err)
	}
	ev, err := s.ed.Store().Load(v.Number)
	if err != nil {
		return nil, fmt.Errorf("version %s: %w", v.Hash, edit.ErrUnknownVersion)
	}
	if err := applyEdits(s.ed, cfg, ev, s.log); err != nil {
		return nil, err
	}
	return cfg.Set, nil
}
