package main

import (
	"fmt"
	"time"

	"github.com/redirectd/redirectd/engine/admin"
	"github.com/redirectd/redirectd/matcher"
)

// parseAt reads explain's -at: "" is now.
func parseAt(s string) (time.Time, error) {
	if s == "" {
		return time.Now(), nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("-at %q is not an RFC 3339 time; write it with an offset, such as 2026-12-24T12:00:00Z", s)
	}
	return t, nil
}

// ruleInfo is one rule as the admin /rules lists it.
func ruleInfo(r matcher.RuleHits) admin.RuleInfo {
	ri := admin.RuleInfo{Kind: r.Kind.String(), From: r.From, To: r.To, Status: r.Status,
		Host: r.Host, Source: r.Source(), Hits: r.Hits, ShadowHits: r.ShadowHits,
		Headers: ruleInfoHeaders(r.Headers)}
	if r.Shadow {
		ri.Mode = "shadow"
	}
	if !r.Active.From.IsZero() {
		ri.ActiveFrom = r.Active.From.UTC().Format(time.RFC3339)
	}
	if !r.Active.Until.IsZero() {
		ri.ActiveUntil = r.Active.Until.UTC().Format(time.RFC3339)
	}
	return ri
}

// ruleInfoHeaders is a rule's headers as /rules lists them, nil for none.
func ruleInfoHeaders(hs []matcher.Header) map[string]string {
	if len(hs) == 0 {
		return nil
	}
	m := make(map[string]string, len(hs))
	for _, h := range hs {
		m[h.Name] = h.Value
	}
	return m
}
