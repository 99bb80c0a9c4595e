package edit

import "time"

// Version is one rule-set version as /versions and the versions page
// list it.
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
