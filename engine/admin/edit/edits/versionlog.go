package edits

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redirectd/redirectd/engine/admin/edit"
	"github.com/redirectd/redirectd/internal/shorten"
	"github.com/redirectd/redirectd/matcher"
)

// VersionLog lists the versions loaded, newest first, which one serves
// and whether a rollback pinned it: what /versions and the versions page
// list, and what a diff or rollback may name. Only this is held per
// version, not its rules: a compiled million-rule set is about 50 MiB,
// so ten of them in memory would cost a gigabyte for an occasional diff
// or rollback; the daemon loads a version's rules again when asked for
// them. Its own mutex guards it: /versions answers while a long reload
// holds the daemon's.
type VersionLog struct {
	mu      sync.Mutex
	list    []edit.Version
	keep    int
	serving string
	pinned  bool
	// loaded is set once a rule set has loaded: /readyz is 503 before.
	loaded atomic.Bool
	// diffing serialises diffs: each may load two versions' rules.
	diffing sync.Mutex
	diff    diffCache
}

// Pin is what a load does to the pin of a rollback.
type Pin uint8

// The Pins of a load.
const (
	KeepPin  Pin = iota // a reload: the version serving stays, pinned or not
	SetPin              // a rollback
	ClearPin            // the source's version
)

// SetKeep bounds how many versions are listed.
func (vl *VersionLog) SetKeep(n int) {
	vl.mu.Lock()
	vl.keep = n
	vl.mu.Unlock()
}

// Record notes that v serves now, with n rules, and sets the pin. It
// reports whether the version serving changed.
func (vl *VersionLog) Record(v edit.Version, n int, p Pin) (changed bool) {
	vl.mu.Lock()
	defer vl.mu.Unlock()
	vl.forgetDiff()
	if p != KeepPin {
		vl.pinned = p == SetPin
	}
	v.Rules = n
	if v.LoadedAt.IsZero() {
		v.LoadedAt = time.Now()
	}
	vl.list = slices.DeleteFunc(vl.list, func(o edit.Version) bool { return o.Hash == v.Hash })
	vl.list = slices.Insert(vl.list, 0, v)
	if len(vl.list) > vl.keep {
		vl.list = vl.list[:vl.keep]
	}
	vl.loaded.Store(true)
	changed = vl.serving != v.Hash
	vl.serving = v.Hash
	return changed
}

// AddOlder lists v after the versions listed, unless it is listed
// already: a version kept from before this process started, whose rules
// are not loaded. It reports false once the list is full.
func (vl *VersionLog) AddOlder(v edit.Version) bool {
	vl.mu.Lock()
	defer vl.mu.Unlock()
	if len(vl.list) >= vl.keep {
		return false
	}
	if !slices.ContainsFunc(vl.list, func(o edit.Version) bool { return o.Hash == v.Hash }) {
		vl.list = append(vl.list, v)
	}
	return true
}

// KeptHashes returns the hashes of the versions listed, for the cache
// to keep.
func (vl *VersionLog) KeptHashes() map[string]bool {
	vl.mu.Lock()
	defer vl.mu.Unlock()
	keep := map[string]bool{}
	for _, v := range vl.list {
		keep[v.Hash] = true
	}
	return keep
}

// Find returns the version hash, or ErrUnknownVersion.
func (vl *VersionLog) Find(hash string) (edit.Version, error) {
	vl.mu.Lock()
	defer vl.mu.Unlock()
	for _, v := range vl.list {
		if v.Hash == hash {
			return v, nil
		}
	}
	return edit.Version{}, fmt.Errorf("version %q: %w", shorten.Text(hash, 64), edit.ErrUnknownVersion)
}

// SetPinned pins the version serving, or not.
func (vl *VersionLog) SetPinned(p bool) {
	vl.mu.Lock()
	vl.pinned = p
	vl.mu.Unlock()
}

// Pinned reports whether a rollback pinned the version serving.
func (vl *VersionLog) Pinned() bool {
	vl.mu.Lock()
	defer vl.mu.Unlock()
	return vl.pinned
}

// ServingHash is the hash of the version serving, "" before one loads.
func (vl *VersionLog) ServingHash() string {
	vl.mu.Lock()
	defer vl.mu.Unlock()
	return vl.serving
}

// Loaded reports whether a version has loaded.
func (vl *VersionLog) Loaded() bool { return vl.loaded.Load() }

// Versions lists the versions, the latest loaded first, each marked
// serving and pinned as it is.
func (vl *VersionLog) Versions() []edit.Version {
	vl.mu.Lock()
	defer vl.mu.Unlock()
	out := make([]edit.Version, 0, len(vl.list))
	for _, v := range vl.list {
		v.Serving = v.Hash == vl.serving
		v.Pinned = v.Serving && vl.pinned
		out = append(out, v)
	}
	return out
}

// Diff compares version from with version to ("": the serving one),
// listing at most limit rules of each kind; rules returns a version's
// rules. The diff last answered is kept (diffcache.go).
func (vl *VersionLog) Diff(from, to string, limit int, rules func(hash string) (*matcher.Set, error)) (*edit.VersionDiff, error) {
	if to == "" {
		to = vl.ServingHash()
	}
	vl.diffing.Lock()
	defer vl.diffing.Unlock()
	d, gen := vl.cachedDiff(from, to, limit)
	if d != nil {
		return d, nil
	}
	a, err := rules(from)
	if err != nil {
		return nil, err
	}
	b, err := rules(to)
	if err != nil {
		return nil, err
	}
	d = diffRules(a, b, limit)
	d.From, d.To = from, to
	vl.keepDiff(gen, from, to, limit, d)
	return d, nil
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

// Describe returns local, the version of a config's own rules, with the
// edits of v laid over it (the serving version's when v is nil): its
// number, author, message and counts, and a hash of its own.
func (ed *State) Describe(local edit.Version, v *edit.Version) edit.Version {
	if ed == nil || ed.store == nil {
		return local
	}
	if v == nil {
		v, _ = ed.Serving()
	}
	if v.Number == 0 {
		return local
	}
	local.Hash = EditedHash(local.Hash, v.Number)
	local.Number, local.Author, local.Message, local.Counts = v.Number, v.Author, v.Message, v.Counts
	local.Source += " + edits v" + strconv.Itoa(v.Number)
	local.Kept = true
	return local
}

// EditedHash mixes an edited version's number into the hash of the
// config it edits, of the same length, so that each version is told
// apart in /versions.
func EditedHash(h string, n int) string {
	if n == 0 {
		return h
	}
	sum := sha256.Sum256([]byte(h + "\x00edits\x00" + strconv.Itoa(n)))
	return hex.EncodeToString(sum[:])[:min(len(h), 2*len(sum))]
}

// ListKept lists in vl, after the versions listed, the other versions
// the commit record of edits_dir keeps (newest first), then the
// config's own rules (version 0, which a rollback can restore), each
// described over local: a restart keeps what /versions showed. Their
// rule counts are not known until one is loaded.
func (ed *State) ListKept(vl *VersionLog, local edit.Version) {
	st := ed.Store()
	if st == nil {
		return
	}
	nums := st.Numbers()
	slices.Reverse(nums)
	nums = append(nums, 0)
	for _, n := range nums {
		v, err := st.Head(n)
		if err != nil {
			continue
		}
		d := ed.Describe(local, v)
		d.LoadedAt = time.Time{}
		if !vl.AddOlder(d) {
			return
		}
	}
}
