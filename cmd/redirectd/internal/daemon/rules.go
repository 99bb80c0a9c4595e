package daemon

import (
	"strconv"
	"time"

	"github.com/redirectd/redirectd/engine/admin"
	"github.com/redirectd/redirectd/engine/admin/edit"
	"github.com/redirectd/redirectd/matcher"
	"github.com/redirectd/redirectd/matcher/rewrite"
)

// ruleInfo is one rule as the admin /rules lists it.
func ruleInfo(r matcher.RuleHits) admin.RuleInfo {
	ri := admin.RuleInfo{Kind: r.Kind.String(), From: r.From, To: r.To, Status: r.Status,
		Host: r.Host, Source: r.Source(), Hits: r.Hits, ShadowHits: r.ShadowHits,
		Headers: ruleInfoHeaders(r.Headers), Conditions: r.Conditions(), ConditionsTOML: edit.RuleConditionsTOML(r.Rule)}
	if r.Shadow {
		ri.Mode = "shadow"
	}
	if r.LastAnswered > 0 {
		ri.LastAnswered = time.Unix(r.LastAnswered, 0).UTC().Format(time.RFC3339)
	}
	if !r.Active.IsZero() {
		ri.Window = &admin.Window{}
		if !r.Active.From.IsZero() {
			ri.ActiveFrom = r.Active.From.UTC().Format(time.RFC3339)
		}
		if !r.Active.Until.IsZero() {
			ri.ActiveUntil = r.Active.Until.UTC().Format(time.RFC3339)
		}
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

// Locations lists the location phase of the rules served
// (admin.LocationLister): each host's [[server_rewrite]] steps and
// [[location]] tables, in file order.
func (s *service) Locations() []admin.RuleInfo {
	return locationInfos(s.srv.Rules())
}

// locationInfos is set's location phase as /rules lists it.
func locationInfos(set *matcher.Set) []admin.RuleInfo {
	hosts, _ := set.Locations().(*rewrite.Hosts)
	var out []admin.RuleInfo
	for _, l := range hosts.List() {
		ri := admin.RuleInfo{Kind: "location", From: l.Path, Host: l.Host, Source: hosts.File() + ":" + strconv.Itoa(l.Line),
			LocationInfo: &admin.LocationInfo{Location: l.Location, Parent: l.Parent, Steps: l.Steps}}
		if l.Location == "" {
			ri.Kind = "server_rewrite"
		}
		if l.Scheme != "" {
			// As a rule's when.scheme: the server is of that scheme only.
			ri.Conditions = []string{"scheme = " + l.Scheme}
		}
		if l.Pass {
			ri.Upstream = l.Upstream
			if ri.Upstream == "" {
				ri.Upstream = "default" // as the config names [upstream]
			}
			ri.To = "upstream " + ri.Upstream
			if l.HasURI {
				ri.UpstreamURI = l.URI
				ri.To += " " + l.URI
			}
		}
		out = append(out, ri)
	}
	return out
}
