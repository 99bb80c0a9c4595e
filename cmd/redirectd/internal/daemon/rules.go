package daemon

import (
	"time"

	"github.com/redirectd/redirectd/engine/admin"
	"github.com/redirectd/redirectd/matcher"
)

// ruleInfo is one rule as the admin /rules lists it.
func ruleInfo(r matcher.RuleHits) admin.RuleInfo {
	ri := admin.RuleInfo{Kind: r.Kind.String(), From: r.From, To: r.To, Status: r.Status,
		Host: r.Host, Source: r.Source(), Hits: r.Hits, ShadowHits: r.ShadowHits,
		Headers: ruleInfoHeaders(r.Headers), Conditions: r.Conditions()}
	if r.Shadow {
		ri.Mode = "shadow"
	}
	if r.LastAnswered > 0 {
		ri.LastAnswered = time.Unix(r.LastAnswered, 0).UTC().Format(time.RFC3339)
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
