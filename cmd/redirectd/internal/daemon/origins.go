package daemon

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

// originsFile is the file of a GET /ruleset archive, beside
// redirectd.toml, that says who made each rule an edit made: a node fed
// by the archive shows a rule's origin as its editor's (version,
// author), which the TOML cannot say (its rules' places are lines of the
// archive, "redirectd.toml:7930", which no editor wrote).
const originsFile = "origins.json"

// maxOriginsBytes bounds the origins file a node reads: a
// million-edit version's is about 150 MB.
const maxOriginsBytes = 1 << 30

// ruleOrigins are the origins of a version's edited rules, as the
// archive carries them.
type ruleOrigins struct {
	// Version is the number of the version the archive holds.
	Version int          `json:"version"`
	Edits   []ruleOrigin `json:"edits"`
	byKey   map[string]*ruleOrigin
}

// ruleOrigin is who made the edit of the rules of Host and From: the
// version that promoted it, the edit's author and time, and the
// promote's message.
type ruleOrigin struct {
	Host string `json:"host,omitempty"`
	From string `json:"from"`
	// Conditions are those the edit names its rule by (matcher's
	// Rule.Conditions), none for an edit of every rule of Host and From.
	Conditions []string  `json:"conditions,omitempty"`
	Version    int       `json:"version"`
	Author     string    `json:"author,omitempty"`
	At         time.Time `json:"at"`
	Message    string    `json:"message,omitempty"`
}

// originsOf are the origins of ov's edits (deletes leave no rule) in
// version n; messages are the promote messages by version.
func originsOf(n int, ov *edits.Overlay, messages map[int]string) *ruleOrigins {
	o := &ruleOrigins{Version: n, Edits: []ruleOrigin{}}
	for _, e := range ov.Edits() {
		if e.Op == edit.OpDelete {
			continue
		}
		o.Edits = append(o.Edits, ruleOrigin{Host: e.Host, From: e.From, Conditions: e.Conds(), Version: e.Version, Author: e.By, At: e.At, Message: messages[e.Version]})
	}
	return o
}

// readOrigins reads the origins file beside entry in dir, the folder of
// a rule set from the source; nil, nil when it has none (a source that
// is not an edited node's /ruleset).
func readOrigins(dir, entry string) (*ruleOrigins, error) {
	file := filepath.Join(dir, filepath.FromSlash(path.Dir(entry)), originsFile)
	st, err := os.Stat(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if st.Size() > maxOriginsBytes {
		return nil, fmt.Errorf("%s is over %d bytes", originsFile, maxOriginsBytes)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	o := &ruleOrigins{}
	if err := json.Unmarshal(b, o); err != nil {
		return nil, fmt.Errorf("%s: %w", originsFile, err)
	}
	o.byKey = make(map[string]*ruleOrigin, len(o.Edits))
	for i := range o.Edits {
		e := &o.Edits[i]
		o.byKey[edit.CondKey(e.Host, e.From, e.Conditions)] = e
	}
	return o, nil
}

// show sets the origin of r, listed as ri, from o: the editor's version
// and author for a rule an edit made (the edit that names its
// conditions, else its host and from), "config" for one the source's
// config holds.
func (o *ruleOrigins) show(ri *admin.RuleInfo, r *matcher.Rule) {
	var e *ruleOrigin
	ri.Source, e = o.of(r)
	if e == nil {
		return
	}
	ri.RuleChange = &admin.RuleChange{ChangedBy: e.Author, Message: e.Message}
	if !e.At.IsZero() {
		ri.Added = e.At.UTC().Format(time.RFC3339)
	}
}

// of returns the origin of r: "version 3 by ed" and the edit that made
// it (the edit that names its conditions, else its host and from), or
// "config" and nil for a rule the source's config holds. /rules and
// explain name a fleet node's rules by it.
func (o *ruleOrigins) of(r *matcher.Rule) (string, *ruleOrigin) {
	e, ok := o.byKey[edit.RuleCondKey(r)]
	if !ok {
		e, ok = o.byKey[edit.Key(r.Host, r.From)]
	}
	if !ok {
		return "config", nil
	}
	src := fmt.Sprintf("version %d", e.Version)
	if e.Author != "" {
		src += " by " + e.Author
	}
	return src, e
}

// name is of's text alone, for explain.
func (o *ruleOrigins) name(r *matcher.Rule) string {
	src, _ := o.of(r)
	return src
}

// editsOf sets snap's edits on an edited node: those of c, the version
// about to serve, else those serving (a reload of the config keeps
// them), with the messages of the versions that made them. It is called
// where the store is not written meanwhile (s.mu held, or at start):
// the messages are read from it here, not by a page or a fetch while a
// promote commits.
func (s *service) editsOf(snap *rulesSnap, c *candidate) {
	ed := s.ed
	if ed.Store() == nil {
		return
	}
	if c != nil && c.edits != nil {
		snap.ov, snap.number = edits.FromEdits(c.edits.Edits), c.edits.Number
	} else {
		var cur *edit.Version
		cur, snap.ov = ed.Serving()
		if cur != nil {
			snap.number = cur.Number
		}
	}
	snap.messages = map[int]string{}
	for _, e := range snap.ov.Edits() {
		if _, ok := snap.messages[e.Version]; !ok && e.Version > 0 {
			snap.messages[e.Version] = ed.Message(e.Version)
		}
	}
}
