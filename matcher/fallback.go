package matcher

import "slices"

// DefaultFallbackStatus is the upstream status that lets a fallback rule
// answer when its FallbackStatus is empty: the page does not exist there.
const DefaultFallbackStatus = 404

// Fallback is the compiled fallback part of a rule (Rule.Fallback): which
// upstream statuses let the rule's answer replace the upstream's. It is
// immutable and lives as long as its Set, so the forward that waits for
// the upstream's answer off the event loop may keep it.
type Fallback struct {
	// statuses has bit s-400 set for each status s of FallbackStatus:
	// they are all 4xx or 5xx, checked by newFallback.
	statuses [4]uint64
	r        *rule
}

// Applies reports whether an upstream answer (or failure, answered with
// status by the server itself) of status lets the rule answer instead.
func (f *Fallback) Applies(status int) bool {
	s := status - 400
	return s >= 0 && s < 200 && f.statuses[s/64]&(1<<(s%64)) != 0
}

// Hit counts a request the rule answered, as Match.Hit does for other
// rules; a fallback rule that matched but gave way to the upstream's
// answer is not counted.
func (f *Fallback) Hit() { f.r.hits.Add(1) }

// Statuses returns the upstream statuses that let the rule answer, in
// ascending order (for explain).
func (f *Fallback) Statuses() []int {
	var out []int
	for s := 400; s < 600; s++ {
		if f.Applies(s) {
			out = append(out, s)
		}
	}
	return out
}

// Fallback returns the matched rule's fallback part when the last Lookup
// matched a fallback rule, else nil. It is one load and a nil check on
// the hot path: fallback rules never go into packed tables or the lowered
// regexes (packable, Builder.Add), so only an ordinary rule may have one.
func (m *Match) Fallback() *Fallback {
	if m.rule != nil {
		return m.rule.fb
	}
	return nil
}

// newFallback compiles r's Fallback and FallbackStatus, nil for a rule
// that is not a fallback.
func newFallback(r *rule) (*Fallback, error) {
	if !r.Fallback {
		if len(r.FallbackStatus) > 0 {
			return nil, fieldErr("fallback_status", "given for a rule that is not a fallback; set fallback = true, or leave fallback_status out")
		}
		return nil, nil
	}
	if r.Pass {
		// A no-redirect entry of a fallback map: it answers nothing of
		// its own, so the upstream's answer is relayed whatever it is,
		// as for any miss.
		return nil, nil
	}
	f := &Fallback{r: r}
	statuses := r.FallbackStatus
	if len(statuses) == 0 {
		statuses = []int{DefaultFallbackStatus}
	}
	for _, s := range statuses {
		if err := checkFallbackStatus(s); err != nil {
			return nil, err
		}
		f.statuses[(s-400)/64] |= 1 << ((s - 400) % 64)
	}
	r.FallbackStatus = slices.Clone(r.FallbackStatus)
	return f, nil
}

// checkFallbackStatus refuses a fallback status that is not an error: a
// 2xx or 3xx from the upstream is its page or its own redirect, which a
// fallback rule must never hide.
func checkFallbackStatus(s int) error {
	if s < 400 || s > 599 {
		return fieldErr("fallback_status", "%d is not an error status; list upstream statuses from 400 to 599 (the default is [404])", s)
	}
	return nil
}
