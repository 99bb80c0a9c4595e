package admin

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// VersionInfo is one rule-set version as /versions lists it.
type VersionInfo struct {
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

// Counts are the rules a change added, changed and removed.
type Counts struct {
	Added   int `json:"added"`
	Changed int `json:"changed"`
	Removed int `json:"removed"`
}

// Audit is who asks for a promote or rollback, and why.
type Audit struct {
	Author  string
	Message string
}

// DiffRule is a rule as /versions/diff shows it.
type DiffRule struct {
	Kind   string `json:"kind"`
	Host   string `json:"host,omitempty"`
	From   string `json:"from"`
	Query  string `json:"query,omitempty"` // its query conditions, "a=1&b=2"
	To     string `json:"to,omitempty"`
	Status int    `json:"status,omitempty"`
	Pass   bool   `json:"pass,omitempty"`
	Source string `json:"source"` // "file:line" in its version
}

// RuleChange is a rule in both versions that answers differently.
type RuleChange struct {
	Old DiffRule `json:"old"`
	New DiffRule `json:"new"`
}

// VersionDiff is what changed between two versions. Rules are matched by
// host, match kind, from and query conditions; a rule in both whose
// target, status or options differ is changed. The lists hold at most the
// limit asked for; the counts are whole.
type VersionDiff struct {
	From         string       `json:"from"`
	To           string       `json:"to"`
	AddedCount   int          `json:"added_count"`
	RemovedCount int          `json:"removed_count"`
	ChangedCount int          `json:"changed_count"`
	Added        []DiffRule   `json:"added"`
	Removed      []DiffRule   `json:"removed"`
	Changed      []RuleChange `json:"changed"`
	Truncated    bool         `json:"truncated,omitempty"`
}

// Versioner is what a Backend implements when it keeps rule-set versions;
// the /versions endpoints exist only then. Its methods are called from
// several request goroutines at once, like Backend's.
type Versioner interface {
	// Versions lists the versions kept, the latest loaded first.
	Versions() []VersionInfo
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

// ErrUnknownVersion is a hash that is not among the versions kept; the
// endpoints answer it with 404. Any other error of a Versioner is a 409:
// the request is understood but cannot be done in the present state.
var ErrUnknownVersion = errors.New("no such version; GET /versions lists the versions kept")

// Diff lists at most this many rules of each kind unless ?limit says.
const defaultDiffLimit = 1000

func (s *Server) versionRoutes(mux *http.ServeMux) {
	v, ok := s.b.(Versioner)
	if !ok {
		return
	}
	mux.HandleFunc("GET /versions", need(RoleViewer, false, func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, v.Versions()) }))
	mux.HandleFunc("GET /versions/diff", need(RoleViewer, false, func(w http.ResponseWriter, r *http.Request) { versionDiff(w, r, v) }))
	mux.HandleFunc("POST /versions/rollback", need(RolePublisher, true, func(w http.ResponseWriter, r *http.Request) {
		q, err := versionQuery(r, "to", "message")
		if err != nil {
			text(w, http.StatusBadRequest, line(err.Error()))
			return
		}
		a := Audit{Author: whoIs(r).Name, Message: q.Get("message")}
		versionAnswer(w, func() (string, error) { return v.Rollback(q.Get("to"), a) })
	}))
	mux.HandleFunc("POST /versions/unpin", need(RoleAdmin, true, func(w http.ResponseWriter, r *http.Request) {
		if _, err := versionQuery(r); err != nil {
			text(w, http.StatusBadRequest, line(err.Error()))
			return
		}
		a := Audit{Author: whoIs(r).Name}
		versionAnswer(w, func() (string, error) { return v.Unpin(a) })
	}))
}

func versionDiff(w http.ResponseWriter, r *http.Request, v Versioner) {
	q, err := versionQuery(r, "from", "to", "limit")
	if err != nil {
		text(w, http.StatusBadRequest, line(err.Error()))
		return
	}
	limit := defaultDiffLimit
	if l := q.Get("limit"); l != "" {
		if limit, err = strconv.Atoi(l); err != nil || limit < 0 {
			text(w, http.StatusBadRequest, fmt.Sprintf("cannot parse limit %q: want a number of rules, 0 or more\n", cut(l)))
			return
		}
	}
	if q.Get("from") == "" {
		text(w, http.StatusBadRequest, "missing from: GET /versions/diff?from=HASH[&to=HASH] (to defaults to the serving version)\n")
		return
	}
	id := whoIs(r)
	ask := limit
	if id.Scoped() {
		ask = int(^uint(0) >> 1) // every rule, then only id's: the counts are of those
	}
	d, err := v.Diff(q.Get("from"), q.Get("to"), ask)
	if err != nil {
		text(w, versionStatus(err), line(err.Error()))
		return
	}
	if id.Scoped() {
		d = scopeDiff(id, d, limit)
	}
	writeJSON(w, d)
}

// versionQuery parses r's query strictly: only the names given, each at
// most once. A misspelt name ("?too=") would otherwise be a silent default.
func versionQuery(r *http.Request, names ...string) (url.Values, error) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, fmt.Errorf("cannot parse query: %w", err)
	}
	for k, vs := range q {
		known := false
		for _, n := range names {
			known = known || k == n
		}
		if !known {
			return nil, fmt.Errorf("unexpected query parameter %q; this endpoint takes %v", cut(k), names)
		}
		if len(vs) > 1 {
			return nil, fmt.Errorf("query parameter %q given %d times", k, len(vs))
		}
	}
	return q, nil
}

func versionAnswer(w http.ResponseWriter, do func() (string, error)) {
	msg, err := do()
	if err != nil {
		text(w, versionStatus(err), line(err.Error()))
		return
	}
	text(w, http.StatusOK, line(msg))
}

func versionStatus(err error) int {
	switch {
	case errors.Is(err, ErrNotDurable):
		return http.StatusInsufficientStorage
	case errors.Is(err, ErrUnknownVersion):
		return http.StatusNotFound
	case errors.Is(err, ErrBadEdit):
		return http.StatusBadRequest
	case errors.Is(err, ErrInvalid):
		return http.StatusUnprocessableEntity
	}
	return http.StatusConflict
}

// writeJSON answers with v indented, as /rules does: read with curl and jq.
func writeJSON(w http.ResponseWriter, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		text(w, http.StatusInternalServerError, fmt.Sprintf("cannot encode: %v\n", err))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Write(buf.Bytes())
}

// scopeDiff keeps the rules of d that id may see, at most limit of each
// kind, counting them whole.
func scopeDiff(id *Identity, d *VersionDiff, limit int) *VersionDiff {
	out := &VersionDiff{From: d.From, To: d.To, Added: []DiffRule{}, Removed: []DiffRule{}, Changed: []RuleChange{}}
	for _, r := range d.Added {
		if id.Allows(r.Host) {
			if out.AddedCount++; len(out.Added) < limit {
				out.Added = append(out.Added, r)
			}
		}
	}
	for _, r := range d.Removed {
		if id.Allows(r.Host) {
			if out.RemovedCount++; len(out.Removed) < limit {
				out.Removed = append(out.Removed, r)
			}
		}
	}
	for _, c := range d.Changed {
		if id.Allows(c.New.Host) {
			if out.ChangedCount++; len(out.Changed) < limit {
				out.Changed = append(out.Changed, c)
			}
		}
	}
	out.Truncated = out.AddedCount > len(out.Added) || out.RemovedCount > len(out.Removed) || out.ChangedCount > len(out.Changed)
	return out
}
