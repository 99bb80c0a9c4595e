package edit

import (
	"encoding/json"
	"time"
)

// Version is one rule-set version: as /versions and the versions page
// list it (its JSON), and as it is kept on disk (Marshal), a promoted
// version in edits_dir and a fetched one in the source's cache alike.
// The one type of a version.
type Version struct {
	// Hash is the content hash of the rule set's files (12 hex digits).
	Hash string `json:"hash"`
	// LoadedAt is when this process last loaded it; zero for a version
	// only found in the cache.
	LoadedAt time.Time `json:"loaded_at,omitzero"`
	// FetchedAt is when it was fetched from the source.
	FetchedAt    time.Time `json:"fetched_at,omitzero"`
	Source       string    `json:"source"`
	ETag         string    `json:"etag,omitempty"`
	LastModified string    `json:"last_modified,omitempty"`
	// Rules counts its rules when this process loaded it.
	Rules   int  `json:"rules,omitempty"`
	Serving bool `json:"serving"`
	// Pinned: it serves after a rollback, and neither polls nor reloads
	// replace it until the source changes or POST /versions/unpin.
	Pinned bool `json:"pinned,omitempty"`
	// Kept: its files are kept, so it can be compared and rolled back to.
	Kept bool `json:"kept"`
	// Number is the version's number on a node edited through drafts
	// (0: the config's own rules, before any promote); Author, Message
	// and Counts are the promote's or rollback's that made it.
	Number  int     `json:"number,omitempty"`
	Author  string  `json:"author,omitempty"`
	Message string  `json:"message,omitempty"`
	Counts  *Counts `json:"counts,omitempty"`

	// Kept on disk, not listed: a promoted version's Base (the version
	// its draft started from), Time (when it was promoted), Rollback
	// (it was made by a rollback), RollbackOf (the version a rollback
	// restored: 0, the config's own rules, is one too) and Edits,
	// every edit since the config's own rules, not only this promote's,
	// so that loading it needs no other version; a fetched version's
	// Entry, the rules TOML inside its folder in the cache.
	Base       int       `json:"-"`
	Time       time.Time `json:"-"`
	Rollback   bool      `json:"-"`
	RollbackOf int       `json:"-"`
	Edits      []Edit    `json:"-"`
	Entry      string    `json:"-"`
}

// storedVersion is a Version as kept on disk: each store writes the
// fields it has, its edits last, so that a reader of the head (what
// /versions lists) stops before them. The fields and names are those of
// the files older versions wrote, which read back as they were.
type storedVersion struct {
	Number       int       `json:"number,omitempty"`
	Base         int       `json:"base,omitempty"`
	Author       string    `json:"author,omitempty"`
	Message      string    `json:"message,omitempty"`
	Time         time.Time `json:"time,omitzero"`
	Counts       *Counts   `json:"counts,omitempty"`
	Rollback     bool      `json:"rollback,omitempty"`
	RollbackOf   int       `json:"rollback_of,omitempty"`
	Hash         string    `json:"hash,omitempty"`
	Entry        string    `json:"entry,omitempty"`
	Source       string    `json:"source,omitempty"`
	ETag         string    `json:"etag,omitempty"`
	LastModified string    `json:"last_modified,omitempty"`
	FetchedAt    time.Time `json:"fetched_at,omitzero"`
	Edits        []Edit    `json:"edits,omitempty"`
}

// Marshal returns v as it is kept on disk.
func (v *Version) Marshal() ([]byte, error) {
	return json.Marshal(storedVersion{Number: v.Number, Base: v.Base, Author: v.Author, Message: v.Message, Time: v.Time,
		Counts: v.Counts, Rollback: v.Rollback, RollbackOf: v.RollbackOf, Hash: v.Hash, Entry: v.Entry, Source: v.Source, ETag: v.ETag,
		LastModified: v.LastModified, FetchedAt: v.FetchedAt, Edits: v.Edits})
}

// Unmarshal reads into v a version Marshal wrote, or an older
// redirectd did.
func (v *Version) Unmarshal(b []byte) error {
	var s storedVersion
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*v = Version{Number: s.Number, Base: s.Base, Author: s.Author, Message: s.Message, Time: s.Time, Counts: s.Counts,
		Rollback: s.Rollback || s.RollbackOf > 0, RollbackOf: s.RollbackOf, Hash: s.Hash, Entry: s.Entry, Source: s.Source, ETag: s.ETag, LastModified: s.LastModified,
		FetchedAt: s.FetchedAt, Edits: s.Edits}
	return nil
}

// Counts are the rules a change added, changed and removed: of a
// draft, a promote, a rollback and a diff alike.
type Counts struct {
	Added   int `json:"added"`
	Changed int `json:"changed"`
	Removed int `json:"removed"`
}

// Audit is who asks for a change to the rules served, and why.
type Audit struct {
	Author  string
	Message string
}

// Record is one line of the audit log: a change to the rules served, or
// the abort of one whose record was written but that never served.
type Record struct {
	Time   time.Time `json:"time"`
	Action string    `json:"action"` // promote, rollback, pin, unpin, reload, source, abort
	// Version is the number of an edited node's version, Hash the
	// content hash of a version of [rules] source.
	Version    int     `json:"version,omitempty"`
	Hash       string  `json:"hash,omitempty"`
	Base       int     `json:"base"`
	RollbackOf int     `json:"rollback_of,omitempty"`
	Author     string  `json:"author"`
	Message    string  `json:"message"`
	Counts     *Counts `json:"counts,omitempty"`
	// Recovered is set on a record that recovery at start wrote for a
	// change the process made but could not record before it ended.
	Recovered bool `json:"recovered,omitempty"`
}

// VersionDiff is what changed between two versions. Rules are matched by
// host, match kind, from and query conditions; a rule in both whose
// target, status or options differ is changed. The lists hold at most the
// limit asked for; the counts are whole.
type VersionDiff struct {
	From         string `json:"from"`
	To           string `json:"to"`
	AddedCount   int    `json:"added_count"`
	RemovedCount int    `json:"removed_count"`
	ChangedCount int    `json:"changed_count"`
	Changes[Rule]
	Truncated bool `json:"truncated,omitempty"`
}

// Versioner is what a Backend implements when it keeps rule-set versions.
// Its methods are called from several request goroutines at once. It
// stores and loads; who may call it is the Service's to decide.
type Versioner interface {
	// Versions lists the versions kept, the latest loaded first.
	Versions() []Version
	// Diff compares version from with version to, listing at most limit
	// rules of each kind. An unknown hash is ErrUnknownVersion.
	Diff(from, to string, limit int) (*VersionDiff, error)
	// Rollback serves version to and says what it did; a is recorded
	// in the audit trail.
	Rollback(to string, a Audit) (string, error)
	// Unpin ends a rollback's pin and serves the source's latest
	// version; a is recorded in the audit trail.
	Unpin(a Audit) (string, error)
}
