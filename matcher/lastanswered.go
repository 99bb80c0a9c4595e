package matcher

import (
	"strings"
	"sync/atomic"
	"time"
)

// When each rule last answered is kept beside its hit counter, as
// seconds since lastEpoch in an atomic.Uint32: four bytes a rule (4 MiB
// for a million-rule map, where an int64 of Unix seconds would be 8),
// good until 2156. Hit stores it only when the second changed, so a
// rule answering thousands of requests a second costs its cache line one
// load per request and one store a second, no allocation, no lock.
const lastEpoch = 1577836800 // 2020-01-01T00:00:00Z

// stampNow returns the Match's clock (Now, the server's coarse clock)
// in lastEpoch seconds, reading time.Now only when Now is not set.
func (m *Match) stampNow() uint32 {
	ns := m.Now
	if ns == 0 {
		ns = time.Now().UnixNano()
	}
	return uint32(ns/int64(time.Second) - lastEpoch)
}

// stamp stores now in last unless it holds it already.
func stamp(last *atomic.Uint32, now uint32) {
	if last.Load() != now {
		last.Store(now)
	}
}

// unstamp returns last as Unix seconds, 0 for never.
func unstamp(last *atomic.Uint32) int64 {
	v := last.Load()
	if v == 0 {
		return 0
	}
	return int64(v) + lastEpoch
}

// LastAnswered returns when each rule that has answered a request last
// did, in Unix seconds, keyed by what tells the rule apart from the
// others with the same Key (its Key and its answer), for a snapshot on
// disk that RestoreLastAnswered reads back after a restart. It allocates
// for the rules that answered: it is for a snapshot goroutine, not the
// hot path.
func (s *Set) LastAnswered() map[string]int64 {
	out := map[string]int64{}
	s.walk(func(_ []byte, _ string, _ *atomic.Uint64, last *atomic.Uint32) bool { return last.Load() > 0 },
		func(r *Rule, _ *atomic.Uint64, last *atomic.Uint32) {
			if v := unstamp(last); v > out[r.identity()] {
				out[r.identity()] = v
			}
		})
	return out
}

// RestoreLastAnswered sets, for each rule of s that snap names and that
// has not answered later, when it last answered, and returns how many it
// set. A rule is looked at closely only when its From is in snap.
func (s *Set) RestoreLastAnswered(snap map[string]int64) int {
	if len(snap) == 0 {
		return 0
	}
	froms := map[string]bool{}
	for id := range snap {
		// identity begins with Key: host, kind, From, each ended by NUL.
		if parts := strings.SplitN(id, "\x00", 4); len(parts) == 4 {
			froms[parts[2]] = true
		}
	}
	n := 0
	s.walk(func(fromB []byte, fromS string, _ *atomic.Uint64, _ *atomic.Uint32) bool {
		if fromB != nil {
			return froms[string(fromB)]
		}
		return froms[fromS]
	},
		func(r *Rule, _ *atomic.Uint64, last *atomic.Uint32) {
			v, ok := snap[r.identity()]
			if !ok || v <= lastEpoch {
				return
			}
			if st := uint32(v - lastEpoch); st > last.Load() {
				last.Store(st)
				n++
			}
		})
	return n
}
