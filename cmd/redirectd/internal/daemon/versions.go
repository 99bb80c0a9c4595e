package daemon

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redirectd/redirectd/cmd/redirectd/internal/configload"
	"github.com/redirectd/redirectd/engine/promtext"

	"github.com/VictoriaMetrics/metrics"

	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/config/source"
	"github.com/redirectd/redirectd/engine/admin/edit"
	"github.com/redirectd/redirectd/internal/shorten"
	"github.com/redirectd/redirectd/matcher"
)

// ruleVersion is one rule set as loaded. Only this is held per version, not
// its rules: a compiled million-rule set is about 50 MiB, and even its
// rule list twice that, so ten of them in memory would cost a gigabyte
// for an occasional diff or rollback. The files of a version from the
// source are kept in cache_dir/versions/HASH instead, and loaded again
// (through reloadLocked, like any reload) when asked for.
type ruleVersion struct {
	// Version is the version as /versions lists it (the editing model's
	// one type of a version); its Serving and Pinned are set only as
	// it is listed, from the versionLog.
	edit.Version
	// origins, just loaded from the source's rule set, say who made its
	// edited rules; taken into the rules' snapshot, never kept in the
	// version log.
	origins *ruleOrigins
}

// versionLog lists the versions loaded, newest first. Its own mutex, not
// the service's, guards it: /versions answers while a long reload holds
// the service's.
type versionLog struct {
	mu      sync.Mutex
	list    []ruleVersion
	keep    int
	serving string
	pinned  bool
	// loaded is set once a rule set has loaded: /readyz is 503 before.
	loaded atomic.Bool
	// info is the set holding redirectd_rules_version_info, remade when
	// the version serving changes (its label is the hash).
	info atomic.Pointer[metrics.Set]
	// diffing serialises diffs: each may load two versions' rules.
	diffing sync.Mutex
	diff    diffCache
}

// initVersions records the version of the config serve loaded, unless
// its rules come from a source (startSource loads them).
func (s *service) initVersions(cfg *config.Config) {
	s.versions.keep = cfg.Reload.KeepVersions
	if s.versions.keep == 0 {
		s.versions.keep = config.DefaultKeepVersions
	}
	if cfg.Reload.Source != "" {
		return
	}
	local := localVersion(cfg, s.loader)
	s.recordVersion(describe(s.ed, local, nil), cfg.Set.Len(), keepPin)
	s.listPromoted(local)
}

// listPromoted lists, after the version serving, the other versions the
// commit record of edits_dir keeps (newest first), then the config's own
// rules (version 0, which a rollback can restore): a restart keeps what
// /versions showed. Their rule counts are not known until one is loaded.
func (s *service) listPromoted(local ruleVersion) {
	st := s.ed.Store()
	if st == nil {
		return
	}
	vl := &s.versions
	vl.mu.Lock()
	defer vl.mu.Unlock()
	nums := st.Numbers()
	slices.Reverse(nums)
	nums = append(nums, 0)
	for _, n := range nums {
		if len(vl.list) >= vl.keep {
			return
		}
		v, err := st.Head(n)
		if err != nil {
			continue
		}
		rv := describe(s.ed, local, v)
		rv.LoadedAt = time.Time{}
		if !slices.ContainsFunc(vl.list, func(o ruleVersion) bool { return o.Hash == rv.Hash }) {
			vl.list = append(vl.list, rv)
		}
	}
}

// localVersion describes a config's own rules: its hash covers the config
// file and the map and CSV files it names. Their earlier contents are not
// kept, so such a version is listed, not rolled back to.
func localVersion(cfg *config.Config, example configload.Loader) ruleVersion {
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
	return ruleVersion{Version: edit.Version{Hash: hex.EncodeToString(h.Sum(nil))[:source.HashLen], LoadedAt: time.Now(), Source: "file:" + cfg.Path}}
}

// pinState is what a load does to the pin of a rollback.
type pinState uint8

const (
	keepPin pinState = iota // a reload: the version serving stays, pinned or not
	pin                     // a rollback
	unpin                   // the source's version
)

// recordVersion notes that v serves now, with n rules, and sets the pin.
func (s *service) recordVersion(v ruleVersion, n int, p pinState) {
	vl := &s.versions
	vl.mu.Lock()
	defer vl.mu.Unlock()
	vl.forgetDiff()
	if p != keepPin {
		vl.pinned = p == pin
	}
	v.Rules = n
	if v.LoadedAt.IsZero() {
		v.LoadedAt = time.Now()
	}
	vl.list = slices.DeleteFunc(vl.list, func(o ruleVersion) bool { return o.Hash == v.Hash })
	vl.list = slices.Insert(vl.list, 0, v)
	if len(vl.list) > vl.keep {
		vl.list = vl.list[:vl.keep]
	}
	vl.loaded.Store(true)
	if vl.serving != v.Hash {
		vl.serving = v.Hash
		set := metrics.NewSet()
		set.NewGauge(fmt.Sprintf(`redirectd_rules_version_info{hash=%q}`, v.Hash), func() float64 { return 1 })
		vl.info.Store(set)
	}
}

// keptHashes returns the hashes of the versions listed, for the cache to
// keep.
func (vl *versionLog) keptHashes() map[string]bool {
	vl.mu.Lock()
	defer vl.mu.Unlock()
	keep := map[string]bool{}
	for _, v := range vl.list {
		keep[v.Hash] = true
	}
	return keep
}

// find returns the version hash, or ErrUnknownVersion.
func (vl *versionLog) find(hash string) (ruleVersion, error) {
	vl.mu.Lock()
	defer vl.mu.Unlock()
	for _, v := range vl.list {
		if v.Hash == hash {
			return v, nil
		}
	}
	return ruleVersion{}, fmt.Errorf("version %q: %w", cutQ(hash), edit.ErrUnknownVersion)
}

func (vl *versionLog) setPinned(p bool) {
	vl.mu.Lock()
	vl.pinned = p
	vl.mu.Unlock()
}

func (vl *versionLog) isPinned() bool {
	vl.mu.Lock()
	defer vl.mu.Unlock()
	return vl.pinned
}

// rulesReady says why no rules serve yet: only with a source, before its
// first version (fetched or cached) loads.
func (s *service) rulesReady() error {
	if s.versions.loaded.Load() {
		return nil
	}
	return fmt.Errorf("no rule set loaded yet: waiting for [rules] source (the log says why it has not loaded)")
}

func (s *service) writeVersionMetrics(w io.Writer) {
	if set := s.versions.info.Load(); set != nil {
		promtext.WriteSet(w, set, versionMetricHelp)
	}
	if s.rs != nil {
		promtext.WriteSet(w, s.rs.metrics, versionMetricHelp)
	}
}

// The edit.Versioner methods.

func (s *service) Versions() []edit.Version {
	vl := &s.versions
	vl.mu.Lock()
	defer vl.mu.Unlock()
	out := make([]edit.Version, 0, len(vl.list))
	for _, v := range vl.list {
		ver := v.Version
		ver.Serving = v.Hash == vl.serving
		ver.Pinned = ver.Serving && vl.pinned
		out = append(out, ver)
	}
	return out
}

func (s *service) Rollback(to string, a edit.Audit) (string, error) {
	if s.rs == nil && s.ed.Store() != nil {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.rollbackEdits(to, a)
	}
	v, err := s.versions.find(to)
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
	c.pin = pin
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
	if !s.versions.isPinned() {
		return "", errors.New("nothing is pinned: POST /versions/rollback?to=HASH pins a version")
	}
	cache := s.rs.cache
	unpinned := func() error { return cache.SetPinned("") }
	latest := s.rs.latest
	if latest.Hash == "" || latest.Hash == s.versions.servingHash() {
		if _, err := s.apply(change{action: "unpin", who: a, keep: true, durable: unpinned}); err != nil {
			return "", err
		}
		s.versions.setPinned(false)
		return "unpinned; the source's version serves already", nil
	}
	c, err := s.rs.cached(latest.Hash)
	if err == nil {
		var msg string
		c.pin = unpin
		if msg, err = s.apply(change{action: "unpin", who: a, c: c, durable: unpinned}); err == nil {
			return "unpinned; serving the source's version " + latest.Hash + ": " + msg, nil
		}
	}
	return "", fmt.Errorf("cannot load the source's version %s, so the pin stays: %w", latest.Hash, err)
}

func (vl *versionLog) servingHash() string {
	vl.mu.Lock()
	defer vl.mu.Unlock()
	return vl.serving
}

func (s *service) Diff(from, to string, limit int) (*edit.VersionDiff, error) {
	if to == "" {
		to = s.versions.servingHash()
	}
	s.versions.diffing.Lock()
	defer s.versions.diffing.Unlock()
	d, gen := s.versions.cachedDiff(from, to, limit)
	if d != nil {
		return d, nil
	}
	a, err := s.versionRules(from)
	if err != nil {
		return nil, err
	}
	b, err := s.versionRules(to)
	if err != nil {
		return nil, err
	}
	d = diffRules(a, b, limit)
	d.From, d.To = from, to
	s.versions.keepDiff(gen, from, to, limit, d)
	return d, nil
}

// versionRules returns the rules of version hash: the serving set's when
// it serves, else loaded from the cache (compiled: the loader has no
// cheaper path, and a diff is rare).
func (s *service) versionRules(hash string) (*matcher.Set, error) {
	v, err := s.versions.find(hash)
	if err != nil {
		return nil, err
	}
	if hash == s.versions.servingHash() {
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

// diffRules compares two rule sets by Rule.Key, listing at most limit
// rules of each kind, in b's file order (a's for those removed).
func diffRules(a, b *matcher.Set, limit int) *edit.VersionDiff {
	oldRules := map[string]*matcher.Rule{}
	var order []string
	a.Each(func(r matcher.RuleHits) {
		k := r.Key()
		rc := *r.Rule
		oldRules[k] = &rc
		order = append(order, k)
	})
	d := &edit.VersionDiff{Changes: edit.NoChanges[edit.Rule]()}
	seen := map[string]bool{}
	b.Each(func(r matcher.RuleHits) {
		k := r.Key()
		seen[k] = true
		o, ok := oldRules[k]
		switch {
		case !ok:
			if d.AddedCount++; len(d.Added) < limit {
				d.Added = append(d.Added, diffRule(r.Rule))
			}
		case !o.Same(r.Rule):
			if d.ChangedCount++; len(d.Changed) < limit {
				d.Changed = append(d.Changed, edit.Change[edit.Rule]{Old: diffRule(o), New: diffRule(r.Rule)})
			}
		}
	})
	for _, k := range order {
		if !seen[k] {
			seen[k] = true // a key twice in a (per host of a map) is one removal
			if d.RemovedCount++; len(d.Removed) < limit {
				d.Removed = append(d.Removed, diffRule(oldRules[k]))
			}
		}
	}
	d.Truncated = d.AddedCount > len(d.Added) || d.RemovedCount > len(d.Removed) || d.ChangedCount > len(d.Changed)
	return d
}

func diffRule(r *matcher.Rule) edit.Rule {
	var q []string
	for _, c := range r.Query {
		q = append(q, c.Name+"="+c.Value)
	}
	return edit.Rule{Kind: r.Kind.String(), Host: r.Host, From: r.From, Query: strings.Join(q, "&"),
		To: r.To, Status: r.Status, Pass: r.Pass, Source: r.Source()}
}

func cutQ(s string) string { return shorten.Text(s, 64) }

// editedRules rebuilds the rules of version v of an edited node: the
// config as it is now, with v's stored edits (none for number 0) laid
// over it. A version from before the config last changed is rebuilt on
// the config of now: the edits are kept, not the config's files.
func (s *service) editedRules(v ruleVersion) (*matcher.Set, error) {
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
