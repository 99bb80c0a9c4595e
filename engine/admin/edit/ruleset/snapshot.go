package ruleset

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redirectd/redirectd/engine/admin"
	"github.com/redirectd/redirectd/engine/admin/edit"
	"github.com/redirectd/redirectd/engine/admin/edit/edits"
	"github.com/redirectd/redirectd/matcher"
)

// Snapshot is the rules serving and their version's hash, taken
// together at each swap: an archive made from one is labelled with its
// own version, whatever swaps meanwhile, and the origins shown beside
// the rules are those of the rules shown.
type Snapshot struct {
	Hash string
	Set  *matcher.Set
	// Edits and Number are the edits laid over the config's rules in
	// Set and their version's number, on an edited node (Edits nil
	// elsewhere), whose /ruleset carries who made each edited rule;
	// Made says who made each version that made them, and why.
	Edits  *edits.Overlay
	Number int
	Made   map[int]edit.Audit
	// Origins, on a node fed by an edited node's /ruleset, say who
	// made Set's edited rules (nil: the archive did not say).
	Origins *Origins
}

// Archive is the archive of the version serving, made on the first
// fetch after the version changes, with its ETag: one value, replaced
// whole.
type Archive struct {
	// mu serialises the making, not the service's lock: a promote
	// holds that for as long as its load.
	mu  sync.Mutex
	cur atomic.Pointer[edit.Ruleset]
}

// Get returns snap's rules as a rule-set archive in the form [rules]
// source reads (a .tar.gz holding redirectd.toml), with the version's
// hash as its ETag: an edited node can be a fleet's source. The archive
// and its ETag come from one snapshot of the rules and are returned as
// one immutable value, so a fetch never gets one version's archive
// under another's ETag; a copy is kept in dir for the operator. w
// writes the rules as a config holds them.
func (a *Archive) Get(snap *Snapshot, dir string, w TOML) (edit.Ruleset, error) {
	if snap == nil {
		return edit.Ruleset{}, fmt.Errorf("%w: no rules loaded yet", edit.ErrNoRuleset)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	var err error
	if cur := a.cur.Load(); cur != nil && cur.ETag == strconv.Quote(snap.Hash) {
		return *cur, nil
	}
	file := filepath.Join(dir, "ruleset.tar.gz")
	var origins []byte
	if snap.Edits != nil {
		if origins, err = json.Marshal(OriginsOf(snap.Number, snap.Edits, snap.Made)); err != nil {
			return edit.Ruleset{}, err
		}
	}
	data, err := Write(file, snap.Set, snap.Hash, origins, w)
	if err != nil {
		return edit.Ruleset{}, fmt.Errorf("cannot write the rule-set archive: %w", err)
	}
	rs := &edit.Ruleset{Data: data, ETag: strconv.Quote(snap.Hash), Time: time.Now()}
	a.cur.Store(rs)
	return *rs, nil
}

// Take returns the snapshot of set, the rules about to serve as version
// hash, with origins (from a fleet source's archive, nil for none). On
// an edited node (ed keeps versions) it holds the edits of v, the
// version about to serve, else those serving (a reload of the config
// keeps them), with who made the versions that made them, and why. It is
// called where the store is not written meanwhile (the daemon's lock on
// changes held, or at start): they are read from it here, not
// by a page or a fetch while a promote commits.
func Take(hash string, set *matcher.Set, origins *Origins, ed *edits.State, v *edit.Version) *Snapshot {
	sn := &Snapshot{Hash: hash, Set: set, Origins: origins}
	if ed == nil || ed.Store() == nil {
		return sn
	}
	if v != nil {
		sn.Edits, sn.Number = edits.FromEdits(v.Edits), v.Number
	} else {
		var cur *edit.Version
		cur, sn.Edits = ed.Serving()
		if cur != nil {
			sn.Number = cur.Number
		}
	}
	sn.Made = map[int]edit.Audit{}
	for _, e := range sn.Edits.Edits() {
		for _, n := range []int{e.Version, e.Restored} {
			if _, ok := sn.Made[n]; !ok && n > 0 {
				sn.Made[n] = ed.Made(n)
			}
		}
	}
	return sn
}

// Show sets the origin and last change of r, listed as ri, as /rules
// and the console show them: on a fleet node its editor's from the
// archive's origins, on an edited node its edit's. sn may be nil (no
// rules loaded yet).
func (sn *Snapshot) Show(ri *admin.RuleInfo, r *matcher.Rule) {
	if sn == nil {
		return
	}
	if sn.Origins != nil {
		sn.Origins.Show(ri, r)
	}
	if e, ok := sn.Edits.For(r); ok {
		ri.RuleChange = &admin.RuleChange{}
		if e.Op != edit.OpConfig {
			// A rollback's mark of the config's rule has no editor.
			ri.RuleChange = &admin.RuleChange{Added: e.At.UTC().Format(time.RFC3339), ChangedBy: e.By, Message: sn.Made[e.Version].Message}
		}
		if r := restoreOf(e, sn.Made); r != nil {
			ri.Restored = r.text()
		}
	}
}

// Explained returns the rules explain reads and how it names a rule:
// on a fleet node whose archive said who made its rules, by origin
// (Origins.Name), with the rules taken with them; else set, by its
// place (name nil).
func (sn *Snapshot) Explained(set *matcher.Set) (*matcher.Set, func(*matcher.Rule) string) {
	if sn == nil || sn.Origins == nil || sn.Set == nil {
		return set, nil
	}
	return sn.Set, sn.Origins.Name
}
