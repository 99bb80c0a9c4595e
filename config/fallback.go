package config

import "github.com/redirectd/redirectd/matcher"

// rawFallback holds the keys that make a rule, map, CSV file or the
// defaults a fallback: answered only where the upstream has no page
// (matcher.Rule.Fallback).
type rawFallback struct {
	Fallback       any `toml:"fallback"`
	FallbackStatus any `toml:"fallback_status"`
}

// fallback reads fallback and fallback_status into r over the defaults. A
// table that sets fallback = false drops the defaults' statuses with it;
// fallback_status on a table that is not a fallback is refused, since it
// would say nothing.
func (e *entry) fallback(raw *rawFallback, d *Defaults, r *matcher.Rule) {
	r.Fallback = e.flag("fallback", raw.Fallback, d.Fallback)
	if raw.Fallback != nil && !r.Fallback {
		r.FallbackStatus = nil
	} else {
		r.FallbackStatus = d.FallbackStatus
	}
	if raw.FallbackStatus == nil {
		return
	}
	list, ok := raw.FallbackStatus.([]any)
	if !ok {
		e.fail("fallback_status", "must be a list of upstream statuses such as [404, 410], not %s", tomlType(raw.FallbackStatus))
		return
	}
	if len(list) == 0 {
		e.fail("fallback_status", "the list is empty; leave fallback_status out for the default [%d]", matcher.DefaultFallbackStatus)
		return
	}
	statuses := make([]int, 0, len(list))
	for _, v := range list {
		n, isInt := v.(int64)
		if !isInt {
			e.fail("fallback_status", "must be a list of integers, not a list holding %s", tomlType(v))
			return
		}
		if n < 400 || n > 599 {
			e.fail("fallback_status", "%d is not an error status; list upstream statuses from 400 to 599: a 2xx or 3xx is the upstream's own page or redirect", n)
			return
		}
		statuses = append(statuses, int(n))
	}
	if !r.Fallback {
		e.fail("fallback_status", "given where fallback is not true; set fallback = true, or leave fallback_status out")
		return
	}
	r.FallbackStatus = statuses
}

// The keys are registered here rather than in config.go's table, as
// window.go does.
func init() {
	for _, t := range []string{"rule", "map", "csv", "rules.defaults"} {
		known[t] = append(known[t], "fallback", "fallback_status")
	}
}
