package ruleset

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"time"

	"github.com/redirectd/redirectd/engine/admin"
	"github.com/redirectd/redirectd/engine/admin/edit"
	"github.com/redirectd/redirectd/engine/admin/edit/edits"
	"github.com/redirectd/redirectd/matcher"
)

// OriginsFile is the file of a GET /ruleset archive, beside
// redirectd.toml, that says who made each rule an edit made: a node fed
// by the archive shows a rule's origin as its editor's (version,
// author), which the TOML cannot say (its rules' places are lines of the
// archive, "redirectd.toml:7930", which no editor wrote).
const OriginsFile = "origins.json"

// MaxOriginsBytes bounds the origins file a node reads: a
// million-edit version's is about 150 MB.
const MaxOriginsBytes = 1 << 30

// Origins are the origins of a version's edited rules, as the
// archive carries them.
type Origins struct {
	// Version is the number of the version the archive holds.
	Version int      `json:"version"`
	Edits   []Origin `json:"edits"`
	byKey   map[string]*Origin
}

// Origin is who made the edit of the rules of Host and From: the
// version that promoted it, the edit's author and time, and the
// promote's message; and, when a rollback served it again, that
// rollback's version, author and message (Restored): after a rollback
// to version 3 served as version 7, a rule of version 3 is still its
// editor's, brought back by whoever rolled back.
type Origin struct {
	Host string `json:"host,omitempty"`
	From string `json:"from"`
	// Conditions are those the edit names its rule by (matcher's
	// Rule.Conditions), none for an edit of every rule of Host and From.
	Conditions []string  `json:"conditions,omitempty"`
	Version    int       `json:"version"`
	Author     string    `json:"author,omitempty"`
	At         time.Time `json:"at"`
	Message    string    `json:"message,omitempty"`
	Restored   *Restore  `json:"restored,omitempty"`
}

// Restore is the rollback that served an edit again: its version, its
// author and its message.
type Restore struct {
	Version int    `json:"version"`
	Author  string `json:"author,omitempty"`
	Message string `json:"message,omitempty"`
}

// text is how /rules, explain and the console name r: "version 7
// (rollback by bob)".
func (r *Restore) text() string {
	s := fmt.Sprintf("version %d (rollback", r.Version)
	if r.Author != "" {
		s += " by " + r.Author
	}
	return s + ")"
}

// OriginsOf are the origins of ov's edits (deletes leave no rule) in
// version n; made says who made each version and why.
func OriginsOf(n int, ov *edits.Overlay, made map[int]edit.Audit) *Origins {
	o := &Origins{Version: n, Edits: []Origin{}}
	for _, e := range ov.Edits() {
		if e.Op == edit.OpDelete {
			continue
		}
		o.Edits = append(o.Edits, Origin{Host: e.Host, From: e.From, Conditions: e.Conds(), Version: e.Version, Author: e.By, At: e.At,
			Message: made[e.Version].Message, Restored: restoreOf(&e, made)})
	}
	return o
}

// ReadOrigins reads the origins file beside entry in dir, the folder of
// a rule set from the source; nil, nil when it has none (a source that
// is not an edited node's /ruleset).
func ReadOrigins(dir, entry string) (*Origins, error) {
	file := filepath.Join(dir, filepath.FromSlash(path.Dir(entry)), OriginsFile)
	st, err := os.Stat(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if st.Size() > MaxOriginsBytes {
		return nil, fmt.Errorf("%s is over %d bytes", OriginsFile, MaxOriginsBytes)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	o := &Origins{}
	if err := json.Unmarshal(b, o); err != nil {
		return nil, fmt.Errorf("%s: %w", OriginsFile, err)
	}
	o.byKey = make(map[string]*Origin, len(o.Edits))
	for i := range o.Edits {
		e := &o.Edits[i]
		o.byKey[edit.CondKey(e.Host, e.From, e.Conditions)] = e
	}
	return o, nil
}

// restoreOf is the rollback that served e again, nil for none.
func restoreOf(e *edit.Edit, made map[int]edit.Audit) *Restore {
	if e.Restored == 0 {
		return nil
	}
	m := made[e.Restored]
	return &Restore{Version: e.Restored, Author: m.Author, Message: m.Message}
}

// Show sets the origin of r, listed as ri, from o: the editor's version
// and author for a rule an edit made (the edit that names its
// conditions, else its host and from), "config" for one the source's
// config holds.
func (o *Origins) Show(ri *admin.RuleInfo, r *matcher.Rule) {
	var e *Origin
	ri.Source, e = o.of(r)
	if e == nil {
		return
	}
	ri.RuleChange = &admin.RuleChange{ChangedBy: e.Author, Message: e.Message}
	if e.Restored != nil {
		ri.Restored = e.Restored.text()
	}
	if !e.At.IsZero() {
		ri.Added = e.At.UTC().Format(time.RFC3339)
	}
}

// of returns the origin of r: "version 3 by ed" and the edit that made
// it (the edit that names its conditions, else its host and from),
// "version 3 by ed, restored in version 7 (rollback by bob)" when a
// rollback served that edit again, "config, restored in version 7
// (rollback by bob)" when a rollback made it the config's rule again,
// or "config" and nil for a rule the source's config holds. /rules and
// explain name a fleet node's rules by it.
func (o *Origins) of(r *matcher.Rule) (string, *Origin) {
	e, ok := o.byKey[edit.RuleCondKey(r)]
	if !ok {
		e, ok = o.byKey[edit.Key(r.Host, r.From)]
	}
	if !ok {
		return "config", nil
	}
	src := "config" // a rollback's mark: the config's rule again
	if e.Version > 0 {
		src = fmt.Sprintf("version %d", e.Version)
	}
	if e.Author != "" {
		src += " by " + e.Author
	}
	if e.Restored != nil {
		src += ", restored in " + e.Restored.text()
	}
	return src, e
}

// Name is of's text alone, for explain.
func (o *Origins) Name(r *matcher.Rule) string {
	src, _ := o.of(r)
	return src
}
