package misses

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/redirectd/redirectd/httpparse"
	"github.com/redirectd/redirectd/internal/ascii"
)

// Snapshot is a copy of a Sketch's counters, taken on the sketch's own
// goroutine by CopyTo and read anywhere after.
type Snapshot struct {
	used        int
	min         uint64
	count, err  []uint64
	first, last []int64
	hostLen     []uint8
	pathLen     []uint16
	trunc       []bool
	keys        []byte
}

// NewSnapshot returns a snapshot with room for a sketch of capacity
// slots, so that CopyTo, run on the sketch's goroutine, only copies.
func NewSnapshot(capacity int) *Snapshot {
	return &Snapshot{
		count: make([]uint64, capacity), err: make([]uint64, capacity),
		first: make([]int64, capacity), last: make([]int64, capacity),
		hostLen: make([]uint8, capacity), pathLen: make([]uint16, capacity),
		trunc: make([]bool, capacity), keys: make([]byte, capacity*slotSize),
	}
}

// CopyTo copies the sketch's counters into dst, which NewSnapshot made
// for at least s.Cap() slots. It must run on the goroutine that calls Add.
func (s *Sketch) CopyTo(dst *Snapshot) {
	n := int(s.used)
	dst.used = n
	dst.min = 0
	if s.used == s.cap {
		dst.min = s.bcount[s.bmin]
	}
	copy(dst.count, s.count[:n])
	copy(dst.err, s.err[:n])
	copy(dst.first, s.first[:n])
	copy(dst.last, s.last[:n])
	copy(dst.hostLen, s.hostLen[:n])
	copy(dst.pathLen, s.pathLen[:n])
	copy(dst.trunc, s.trunc[:n])
	copy(dst.keys, s.keys[:n*slotSize])
}

// Entry is one tracked miss. Count is an upper bound of the true count,
// and Count-Error a lower bound.
type Entry struct {
	Host      string    `json:"host"`
	Path      string    `json:"path"`
	Count     uint64    `json:"count"`
	Error     uint64    `json:"error"`
	FirstSeen time.Time `json:"first_seen"`
	LastSeen  time.Time `json:"last_seen"`
	// Truncated: the path (or host) was longer than MaxPath (MaxHost)
	// bytes and is counted under its beginning.
	Truncated bool `json:"truncated,omitempty"`
}

// Merge combines the snapshots of sketches that counted parts of one
// stream (one per event loop) into entries sorted by count, highest
// first (then host, then path). host, when not empty, keeps only that
// host's entries (compared without case and port); limit > 0 keeps the
// first limit. A key one sketch does not track may have been seen there
// up to that sketch's smallest count: that much is added to its Count
// and its Error, so every merged Count stays an upper bound.
func Merge(snaps []*Snapshot, host string, limit int) []Entry {
	type agg struct {
		Entry
		mins uint64 // the sum of the smallest counts of the sketches that track it
	}
	var allMins uint64
	for _, sn := range snaps {
		allMins += sn.min
	}
	host = normalHost(host)
	byKey := map[string]*agg{}
	for _, sn := range snaps {
		for i := 0; i < sn.used; i++ {
			hl, pl := int(sn.hostLen[i]), int(sn.pathLen[i])
			k := sn.keys[i*slotSize : i*slotSize+hl+pl]
			if host != "" && string(k[:hl]) != host {
				continue
			}
			a := byKey[string(k)]
			if a == nil {
				a = &agg{Entry: Entry{Host: string(k[:hl]), Path: string(k[hl:]), FirstSeen: time.Unix(0, sn.first[i]), LastSeen: time.Unix(0, sn.last[i])}}
				byKey[string(k)] = a
			}
			a.Count += sn.count[i]
			a.Error += sn.err[i]
			a.mins += sn.min
			a.Truncated = a.Truncated || sn.trunc[i]
			if f := time.Unix(0, sn.first[i]); f.Before(a.FirstSeen) {
				a.FirstSeen = f
			}
			if l := time.Unix(0, sn.last[i]); l.After(a.LastSeen) {
				a.LastSeen = l
			}
		}
	}
	out := make([]Entry, 0, len(byKey))
	for _, a := range byKey {
		a.Count += allMins - a.mins
		a.Error += allMins - a.mins
		a.FirstSeen, a.LastSeen = a.FirstSeen.UTC(), a.LastSeen.UTC()
		out = append(out, a.Entry)
	}
	slices.SortFunc(out, func(a, b Entry) int {
		if c := cmp.Compare(b.Count, a.Count); c != 0 {
			return c
		}
		if c := strings.Compare(a.Host, b.Host); c != 0 {
			return c
		}
		return strings.Compare(a.Path, b.Path)
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}

// normalHost is host as Add stores it: lower case, without port.
func normalHost(h string) string {
	h = httpparse.HostName(h)
	if len(h) > MaxHost {
		h = h[:MaxHost]
	}
	return string(ascii.AppendLower(nil, h))
}
