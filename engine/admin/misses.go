package admin

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/redirectd/redirectd/engine/misses"

	"github.com/redirectd/redirectd/internal/plural"

	"github.com/redirectd/redirectd/engine/admin/edit"
)

// MissInfo is one path that matched no rule, as /misses lists it: the
// sketch's own entry (Count is an upper bound of the requests, Count-Error
// a lower bound).
type MissInfo = misses.Entry

// MissReporter is a Backend that counts misses; /misses answers 404
// when the Backend is not one. Misses is called like the Backend's
// methods (concurrently, never on a traffic loop). It returns the
// entries of host (every host when "") sorted by count, at most limit
// (every one when 0), and ErrMissesOff when misses are not counted.
type MissReporter interface {
	Misses(ctx context.Context, host string, limit int) ([]MissInfo, error)
}

// ErrMissesOff is what a MissReporter returns when counting is off.
var ErrMissesOff = errors.New("misses are not counted: set [misses] capacity above 0")

// Bounds of /misses: the default number of entries, and how long the
// loops get to copy their counters.
const (
	defaultMissLimit = 100
	missesTimeout    = 5 * time.Second
)

// misses answers with the most requested paths that matched no rule:
// JSON by default, or ?format=map a map file to fill in. ?host= keeps one
// host, ?limit= (default 100, 0 for all) bounds the list.
func (s *Server) misses(w http.ResponseWriter, r *http.Request) {
	mr, ok := s.b.(MissReporter)
	if !ok {
		text(w, http.StatusNotFound, ErrMissesOff.Error()+"\n")
		return
	}
	q := r.URL.Query()
	limit := defaultMissLimit
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			text(w, http.StatusBadRequest, fmt.Sprintf("cannot parse limit %q: want a number of entries, 0 for all\n", cut(v)))
			return
		}
		limit = n
	}
	format := q.Get("format")
	if format != "" && format != "json" && format != "map" {
		text(w, http.StatusBadRequest, fmt.Sprintf("unknown format %q: want json (the default) or map\n", cut(format)))
		return
	}
	id := whoIs(r)
	host := q.Get("host")
	if host != "" && !id.Allows(host) {
		forbiddenHost(w, id, host)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), missesTimeout)
	defer cancel()
	list, err := ScopedMisses(ctx, mr, id, host, limit)
	switch {
	case errors.Is(err, ErrMissesOff):
		text(w, http.StatusNotFound, err.Error()+"\n")
		return
	case err != nil:
		text(w, http.StatusServiceUnavailable, fmt.Sprintf("cannot collect the counts of every event loop: %v; try again\n", err))
		return
	}
	if list == nil {
		list = []MissInfo{}
	}
	if format == "map" {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Write(missMap(list, time.Now()))
		return
	}
	writeJSON(w, list)
}

// missMap writes list as a map file to fill in: one `/path ;` entry per
// miss, its target left empty, grouped by host (a [[map]] file has no
// host of its own: each group goes into a [[map]] with that host). An
// entry left empty is an error of `redirectd check`, so none goes live
// unfilled.
func missMap(list []MissInfo, now time.Time) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# The most requested paths that matched no rule, from redirectd's GET /misses at %s.\n", now.UTC().Format(time.RFC3339))
	b.WriteString("# Write each target (a path or URL) before the ';', or delete the line: an entry left empty is an error.\n")
	host := "\x00"
	for _, m := range list {
		if m.Host != host {
			host = m.Host
			fmt.Fprintf(&b, "\n# host %q: use these entries in a [[map]] with host = %q\n", host, host)
		}
		fmt.Fprintf(&b, "# %s (error up to %d), last %s", plural.Count(int(m.Count), "request"), m.Error, m.LastSeen.UTC().Format(time.RFC3339))
		if m.Truncated {
			b.WriteString("; the path was longer and is cut")
		}
		b.WriteString("\n")
		fmt.Fprintf(&b, "%s ;\n", mapKey(m.Path))
	}
	return b.Bytes()
}

// mapKey writes a path as a map file key: quoted when it holds what would
// end the word or start a comment, a leading ~ (a regex) escaped.
func mapKey(p string) string {
	var b strings.Builder
	if strings.HasPrefix(p, "~") {
		b.WriteByte('\\')
	}
	for i := 0; i < len(p); i++ {
		if c := p[i]; c == '"' || c == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(p[i])
	}
	if p == "" || strings.ContainsAny(p, " \t\r\n;#\"'{}\\") {
		return `"` + b.String() + `"`
	}
	return b.String()
}

// ScopedMisses returns the top misses of host ("": every host's) that
// who may see, at most limit (0: all): for a token limited to some hosts
// and no host named, every host's, kept to who's by edit.InScope, then
// cut to limit, so the limit counts who's. The JSON endpoint and the
// console both ask it. A host who may not see is edit.ErrForbidden.
func ScopedMisses(ctx context.Context, mr MissReporter, who *edit.Identity, host string, limit int) ([]MissInfo, error) {
	if host != "" && !who.Allows(host) {
		return nil, fmt.Errorf("%w: your token does not cover host %q", edit.ErrForbidden, cut(host))
	}
	if !who.Scoped() || host != "" {
		return mr.Misses(ctx, host, limit)
	}
	list, err := mr.Misses(ctx, "", 0)
	if err != nil {
		return nil, err
	}
	list = edit.InScope(who, list, func(m *MissInfo) string { return m.Host })
	if limit > 0 && len(list) > limit {
		list = list[:limit]
	}
	return list, nil
}
