package matcher

import (
	"strconv"
	"time"
)

// Window is when a rule is active: from From (inclusive) until Until
// (exclusive). A zero bound is open: a rule with no From is active from the
// start, one with no Until never stops.
type Window struct {
	From, Until time.Time
}

// IsZero reports whether w has no bound, so the rule is always active.
func (w Window) IsZero() bool { return w.From.IsZero() && w.Until.IsZero() }

// Contains reports whether the instant t is inside w.
func (w Window) Contains(t time.Time) bool {
	return (w.From.IsZero() || !t.Before(w.From)) && (w.Until.IsZero() || t.Before(w.Until))
}

// Over reports whether w has ended by t, so the rule will never answer again.
func (w Window) Over(t time.Time) bool { return !w.Until.IsZero() && !t.Before(w.Until) }

// gate is what a rule with a window or in shadow mode is checked against
// once it matched; rules with neither have none, and pay one nil check
// only on the paths where query conditions are already checked.
type gate struct {
	from, until int64 // Unix nanoseconds; 0 is an open bound
	shadow      bool
	silent      bool // a shadow Pass rule, never recorded
}

// newGate returns r's gate, or nil when r needs none. Bounds outside the
// years 1678 to 2262 that UnixNano holds are clamped: a window that far
// away is open in effect.
func newGate(r *Rule) (*gate, error) {
	if r.Active.IsZero() && !r.Shadow {
		return nil, nil
	}
	if !r.Active.From.IsZero() && !r.Active.Until.IsZero() && !r.Active.From.Before(r.Active.Until) {
		return nil, fieldErr("active", "from %s is not before until %s; the rule would never be active",
			r.Active.From.Format(time.RFC3339), r.Active.Until.Format(time.RFC3339))
	}
	// A shadow no-redirect entry is recorded as nothing: its would-be
	// answer is the miss the request gets anyway.
	g := &gate{shadow: r.Shadow, silent: r.Shadow && r.Pass}
	if !r.Active.From.IsZero() {
		g.from = unixNanos(r.Active.From)
	}
	if !r.Active.Until.IsZero() {
		g.until = unixNanos(r.Active.Until)
	}
	return g, nil
}

func unixNanos(t time.Time) int64 {
	const lo, hi = -1 << 62, 1 << 62
	switch s := t.Unix(); {
	case s < lo/1_000_000_000:
		return lo
	case s > hi/1_000_000_000:
		return hi
	}
	return t.UnixNano()
}

// gateKey is the part of a rule's duplicate key its gate makes: a rule
// with a window or in shadow mode may share its path with a plain one.
func gateKey(r *Rule) string {
	if r.Active.IsZero() && !r.Shadow {
		return ""
	}
	k := "\x01" + strconv.FormatInt(r.Active.From.UnixNano(), 10) + "-" + strconv.FormatInt(r.Active.Until.UnixNano(), 10)
	if r.Shadow {
		k += "s"
	}
	return k
}

// conditional reports whether r is tried only when something besides its
// path holds: query or when conditions, a window or shadow mode. Such
// rules come before the plain rule of the same path.
func (r *rule) conditional() bool { return len(r.Query) > 0 || r.when != nil || r.gate != nil }

// holds reports whether r answers the lookup m is doing, its path having
// matched: its conditions hold (conditions.go) and its gate (if any) is
// open.
func (r *rule) holds(m *Match) bool {
	return r.condsHold(m) && (r.gate == nil || m.open(r))
}

// open reports whether r's gate lets it answer now. A shadow rule never
// answers: the first one met is recorded as the would-be answer, and the
// lookup goes on as if it were absent.
func (m *Match) open(r *rule) bool {
	g := r.gate
	if g.from != 0 || g.until != 0 {
		now := m.Now
		if now == 0 {
			now = time.Now().UnixNano()
		}
		if g.from != 0 && now < g.from || g.until != 0 && now >= g.until {
			return false
		}
	}
	if !g.shadow {
		return true
	}
	// In file order the earliest in the file is the one that would have
	// answered; the indexes are not asked in that order.
	if !g.silent && (m.shadow == nil || m.fileOrder && r.seq < m.shadow.seq) {
		m.shadow, m.shadowRest = r, nil
		if r.Kind == Regex && m.capsOf == r {
			m.shadowCaps = append(m.shadowCaps[:0], m.caps[:r.ncaps]...)
			m.shadowPath = m.path
		}
	}
	return false
}
