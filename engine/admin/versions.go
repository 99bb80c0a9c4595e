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
	// Rollback serves version to, pinned, and says what it did.
	Rollback(to string) (string, error)
	// Unpin ends a rollback's pin and serves the source's latest version.
	Unpin() (string, error)
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
	mux.HandleFunc("GET /versions", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, v.Versions()) })
	mux.HandleFunc("GET /versions/diff", func(w http.ResponseWriter, r *http.Request) { versionDiff(w, r, v) })
	mux.HandleFunc("POST /versions/rollback", func(w http.ResponseWriter, r *http.Request) {
		q, err := versionQuery(r, "to")
		if err != nil {
			text(w, http.StatusBadRequest, line(err.Error()))
			return
		}
		versionAnswer(w, func() (string, error) { return v.Rollback(q.Get("to")) })
	})
	mux.HandleFunc("POST /versions/unpin", func(w http.ResponseWriter, r *http.Request) {
		if _, err := versionQuery(r); err != nil {
			text(w, http.StatusBadRequest, line(err.Error()))
			return
		}
		versionAnswer(w, v.Unpin)
	})
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
	d, err := v.Diff(q.Get("from"), q.Get("to"), limit)
	if err != nil {
		text(w, versionStatus(err), line(err.Error()))
		return
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
	if errors.Is(err, ErrUnknownVersion) {
		return http.StatusNotFound
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
