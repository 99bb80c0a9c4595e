package config

import (
	"strings"
	"time"

	"github.com/redirectd/redirectd/matcher"
)

// rawGate holds the keys that say when a rule, map or CSV file answers:
// active (a time window) and mode ("live" or "shadow").
type rawGate struct {
	Active any `toml:"active"`
	Mode   any `toml:"mode"`
}

// gate reads active and mode into r.
func (e *entry) gate(g *rawGate, r *matcher.Rule) {
	r.Active = e.window(g.Active)
	r.Shadow = e.shadow(g.Mode)
}

// shadow reads mode: "live" (the default) or "shadow".
func (e *entry) shadow(v any) bool {
	if v == nil {
		return false
	}
	switch s := e.str("mode", v, false); s {
	case "live":
		return false
	case "shadow":
		return true
	default:
		if e.ok {
			e.fail("mode", "%q is not a mode; use \"live\" (the default: the rule answers) or \"shadow\" (requests are answered as if the rule were absent, and the ones it would have answered are counted and logged)", s)
		}
	}
	return false
}

// window reads active = { from = ..., until = ... }: TOML datetimes with
// an offset (or RFC 3339 strings), either of which may be left out.
func (e *entry) window(v any) matcher.Window {
	var w matcher.Window
	t := e.subTable("active", v, "a table such as { from = 2026-12-01T00:00:00Z, until = 2027-01-07T00:00:00Z }", "give from, until or both, or leave active out for always")
	if t == nil {
		return w
	}
	for k, val := range t {
		switch k {
		case "from":
			w.From = e.instant(k, val)
		case "until":
			w.Until = e.instant(k, val)
		default:
			e.fail("active", "unknown key %q; a window has from and until", k)
		}
	}
	if !w.From.IsZero() && !w.Until.IsZero() && !w.From.Before(w.Until) {
		e.fail("active", "from %s is not before until %s; the rule would never be active",
			w.From.Format(time.RFC3339), w.Until.Format(time.RFC3339))
	}
	return w
}

// instant reads one bound of a window. A datetime without an offset is
// refused rather than guessed: the server's zone, UTC and the author's
// zone would each start the rule at a different instant.
func (e *entry) instant(key string, v any) time.Time {
	var t time.Time
	switch x := v.(type) {
	case time.Time:
		switch x.Location().String() {
		case "datetime-local", "date-local", "time-local":
			e.fail("active", "%s = %s has no UTC offset; write it with one, such as %sZ (UTC) or %s+01:00",
				key, strings.TrimSuffix(x.Format("2006-01-02T15:04:05"), "T00:00:00"), x.Format("2006-01-02T15:04:05"), x.Format("2006-01-02T15:04:05"))
			return t
		}
		t = x
	case string:
		p, err := time.Parse(time.RFC3339, x)
		if err != nil {
			e.fail("active", "%s = %q is not an RFC 3339 time with an offset, such as 2026-12-01T00:00:00Z", key, x)
			return t
		}
		t = p
	default:
		e.fail("active", "%s must be a datetime such as 2026-12-01T00:00:00Z, not %s", key, tomlType(v))
	}
	return t.UTC()
}

// The keys are registered here rather than in config.go's table, which
// every feature edits: active's own keys are checked like any table's.
func init() {
	for _, t := range []string{"rule", "map", "csv"} {
		known[t] = append(known[t], "active", "mode")
		known[t+".active"] = []string{"from", "until"}
	}
}
