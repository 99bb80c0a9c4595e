// Package lint checks a rule set for the mistakes large redirect maps
// collect: redirect loops, chains, Locations that are not valid URLs, and
// rules that can never match. It runs in `redirectd check`, off the hot
// path; it allocates freely.
package lint

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/redirectd/redirectd/matcher"
)

// Severity says whether a finding makes the config fail.
type Severity string

const (
	Error   Severity = "error"
	Warning Severity = "warning"
)

// Finding is one problem, with every rule involved.
type Finding struct {
	Severity Severity  `json:"severity"`
	Kind     string    `json:"kind"` // "loop", "chain", "location", "unreachable"
	Message  string    `json:"message"`
	Rules    []RuleRef `json:"rules"`
	// Final is, for a chain, the Location the first rule should point to.
	Final string `json:"final,omitempty"`
}

// RuleRef names a rule in a finding.
type RuleRef struct {
	Source string `json:"source"`
	From   string `json:"from"`
	To     string `json:"to"`
	Host   string `json:"host,omitempty"`
}

func ref(r *matcher.Rule) RuleRef {
	return RuleRef{Source: r.Source(), From: r.From, To: r.To, Host: r.Host}
}

// maxChain bounds how far a chain is followed.
const maxChain = 32

// Check returns the findings for rules (compiled into set), in rule order.
func Check(rules []matcher.Rule, set *matcher.Set) []Finding {
	var out []Finding
	for i := range rules {
		if NeedsFragment(&rules[i]) {
			out = append(out, fragment(&rules[i]))
		}
		if rules[i].Pass || !matcher.HasLocation(rules[i].Status) {
			continue // a no-redirect entry, a 410 or a 451 has no Location
		}
		if f, ok := checkLocation(&rules[i]); ok {
			out = append(out, f)
		}
	}
	out = append(out, unreachable(rules, set != nil && set.FileOrder())...)
	out = append(out, windows(rules, time.Now())...) // window.go
	for i := range rules {
		if rules[i].Pass || rules[i].Shadow || !matcher.HasLocation(rules[i].Status) {
			// A shadow rule answers nothing, and lookups pass over it:
			// following it would report chains that do not exist. 410
			// and 451 have no Location to follow.
			continue
		}
		if f, ok := follow(&rules[i], set); ok {
			out = append(out, f)
		}
	}
	return out
}

// checkLocation reports a To that is not a valid Location: an absolute
// http(s) URL with a host, or a path starting with '/'.
func checkLocation(r *matcher.Rule) (Finding, bool) {
	// References filled with values valid where they stand: the check
	// must never refuse its own placeholder ("https://$host:8443$path"
	// with a letter for $path would read as the port "8443x").
	to := matcher.SampleTarget(r.To, r.Kind)
	// What the server sends: a space, UTF-8 or '<' percent-encoded. The
	// server loads such a target, so check does not refuse it either.
	to = matcher.EncodeTarget(to)
	msg := ""
	if strings.HasPrefix(to, "/") && !strings.HasPrefix(to, "//") {
		if _, err := url.Parse(to); err != nil {
			msg = fmt.Sprintf("to %q is not a valid path: %v", r.To, err)
		}
	} else if u, err := url.Parse(to); err != nil {
		msg = fmt.Sprintf("to %q is not a valid URL: %v", r.To, err)
	} else if u.Scheme == "" && u.Host == "" && !strings.HasPrefix(to, "/") {
		// A relative reference is a valid Location (RFC 9110, section
		// 10.2.2), sent as written: nginx sends its relative targets so,
		// and an import keeps them. More often a slash left out.
		return Finding{Severity: Warning, Kind: "location", Rules: []RuleRef{ref(r)},
			Message: fmt.Sprintf("to %q is a relative reference: a client resolves it against the request's path (from /a/b, %q is /a/%s); start it with '/' unless that is meant", r.To, r.To, r.To)}, true
	} else if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		msg = fmt.Sprintf("to %q is neither a path starting with '/' nor an http or https URL with a host", r.To)
	}
	if msg == "" {
		if matcher.JoinsHost(r.To, r.Kind) {
			return Finding{Severity: Warning, Kind: "location", Rules: []RuleRef{ref(r)},
				Message: fmt.Sprintf("what this %s rule appends follows the host of to %q directly, where a request could extend the host (%q + \".evil.net\"); redirectd puts a '/' between them unless what is appended starts with '/', '?' or '#', so no request can: nothing needs changing, unless a '/' there is not what you mean", r.Kind, r.To, r.To)}, true
		}
		return Finding{}, false
	}
	return Finding{Severity: Error, Kind: "location", Message: msg, Rules: []RuleRef{ref(r)}}, true
}

// unreachable reports rules that can never match because another is
// always tried first and matches whenever they would:
//   - a rule sharing its path (or regex), kind, host and options with an
//     earlier-tried one whose query conditions hold whenever its own do
//     (for exact and prefix rules, those with conditions are tried first, in
//     file order; regexes go in file order);
//   - an exact rule with trailing_slash = "ignore" whose two forms, with
//     and without the slash, both have a strict exact rule;
//   - a regex whose every match starts with the path of a prefix rule of
//     the same host without conditions: prefix rules win over regexes.
//
// In a set in file order (fileOrder) only earlier rules answer first:
// an earlier rule of the same path is tried first whatever the
// conditions, and the last two take only the rules before this one.
func unreachable(rules []matcher.Rule, fileOrder bool) []Finding {
	var out []Finding
	report := func(r, by *matcher.Rule, why string) {
		out = append(out, Finding{Severity: Warning, Kind: "unreachable",
			Message: fmt.Sprintf("%s rule %q never matches: %s", r.Kind, r.From, why),
			Rules:   []RuleRef{ref(r), ref(by)}})
	}
	slots := map[slotKey][]*matcher.Rule{}
	var prefixes []int // indexes into rules
	// before reports whether a (a pointer into rules) comes before rule
	// i, or fileOrder is off.
	before := func(a *matcher.Rule, i int) bool {
		return !fileOrder || index(rules, a) < i
	}
	for i := range rules {
		r := &rules[i]
		k := slotOf(r)
		for _, prev := range slots[k] {
			if gated(prev) || r.When != nil || prev.When != nil {
				// prev answers only at times, or never (window.go), or
				// on conditions on who asks (matcher/conditions.go).
				continue
			}
			tried := fileOrder || r.Kind == matcher.Regex || len(prev.Query) > 0 && len(r.Query) > 0 || len(r.Query) == 0
			if !tried || !implies(prev.Query, r.Query) {
				continue
			}
			why := fmt.Sprintf("%s is tried first for the same path and matches whenever it does", prev.Source())
			if r.Kind == matcher.Regex && len(prev.Query) == 0 && len(r.Query) == 0 {
				why = fmt.Sprintf("%s has the same regex and comes first", prev.Source())
			}
			report(r, prev, why)
			break
		}
		slots[k] = append(slots[k], r)
		if r.Kind == matcher.Prefix && len(r.Query) == 0 && r.When == nil && !gated(r) {
			prefixes = append(prefixes, i)
		}
	}
	for i := range rules {
		r := &rules[i]
		switch {
		case r.Kind == matcher.Exact && r.TrailingSlash && len(r.Query) == 0 && r.When == nil:
			k := slotOf(r)
			k.ts = false
			bare := k.from
			k.from = bare + "/"
			withSlash := strictRule(slots[k])
			k.from = bare
			if without := strictRule(slots[k]); bare != "/" && withSlash != nil && without != nil && before(withSlash, i) && before(without, i) {
				report(r, without, fmt.Sprintf("both %q (%s) and %q (%s) have exact rules without trailing_slash = \"ignore\", which are tried first",
					without.From, without.Source(), withSlash.From, withSlash.Source()))
			}
		case r.Kind == matcher.Regex && !r.CaseInsensitive:
			lit, err := matcher.RegexLiteralPrefix(r.From)
			if err != nil || lit == "" {
				continue
			}
			for _, j := range prefixes {
				if fileOrder && j > i {
					break // answered after r
				}
				p := &rules[j]
				from := matcher.NormalizePath(p.From)
				l := lit
				if p.CaseInsensitive {
					from, l = strings.ToLower(from), strings.ToLower(l)
				}
				if p.Host == r.Host && strings.HasPrefix(l, from) {
					report(r, p, fmt.Sprintf("every path it matches starts with %q, which prefix rule %s answers first", p.From, p.Source()))
					break
				}
			}
		}
	}
	return out
}

// index returns the place of a, a pointer into rules, in rules.
func index(rules []matcher.Rule, a *matcher.Rule) int {
	for i := range rules {
		if &rules[i] == a {
			return i
		}
	}
	return len(rules)
}

// slotKey is where the matcher files a rule: rules with the same key are
// tried one after another for the same requests.
type slotKey struct {
	host   string
	kind   matcher.Kind
	ci, ts bool
	from   string
}

func slotOf(r *matcher.Rule) slotKey {
	k := slotKey{host: r.Host, kind: r.Kind, ci: r.CaseInsensitive, from: r.From}
	if r.Kind == matcher.Regex {
		return k
	}
	k.from = matcher.NormalizePath(r.From)
	if r.CaseInsensitive {
		k.from = strings.ToLower(k.from)
	}
	if r.Kind == matcher.Exact && r.TrailingSlash {
		k.ts = true
		if len(k.from) > 1 {
			k.from = strings.TrimSuffix(k.from, "/")
		}
	}
	return k
}

// strictRule returns the rule without query conditions among rules, or nil.
func strictRule(rules []*matcher.Rule) *matcher.Rule {
	for _, r := range rules {
		if len(r.Query) == 0 && r.When == nil && !gated(r) {
			return r
		}
	}
	return nil
}

// implies reports whether conditions a hold whenever conditions b do.
func implies(a, b []matcher.QueryCond) bool {
	for _, ca := range a {
		held := false
		for _, cb := range b {
			if cb.Name == ca.Name && (ca.Value == matcher.AnyValue || ca.Value == cb.Value) {
				held = true
				break
			}
		}
		if !held {
			return false
		}
	}
	return true
}

// follow walks where an exact or prefix rule's Location leads, when that
// stays on the same host: to a path, or to an absolute URL whose host is
// the rule's own. (A host-less rule's absolute target is someone else's
// site as far as this config knows, so it is not followed.) A walk that
// comes back to a rule already seen is a loop (an error); one that leads to
// another redirect is a chain (a warning) with its final Location.
func follow(start *matcher.Rule, set *matcher.Set) (Finding, bool) {
	if start.Kind == matcher.Regex {
		return Finding{}, false
	}
	seen := map[string]bool{start.Source() + start.Host: true}
	chain := []RuleRef{ref(start)}
	host, path, query, ok := sameHost(start.Host, start.To)
	if !ok {
		return Finding{}, false
	}
	target := start.To
	// fallback says which rules of chain are fallbacks (fallback.go).
	fallback := []bool{start.Fallback}
	var m matcher.Match
	for len(chain) <= maxChain {
		if !set.Lookup([]byte(host), []byte(path), []byte(query), &m) {
			break
		}
		r := m.Rule()
		chain = append(chain, ref(r))
		fallback = append(fallback, r.Fallback)
		if seen[r.Source()+r.Host] {
			if loopOfFallbacks(chain, fallback) {
				return fallbackLoop(chain), true
			}
			return Finding{Severity: Error, Kind: "loop",
				Message: fmt.Sprintf("redirect loop: %s", describe(chain)), Rules: chain}, true
		}
		seen[r.Source()+r.Host] = true
		target = string(m.AppendLocation(nil, []byte(query)))
		if host, path, query, ok = sameHost(host, target); !ok {
			break
		}
	}
	if len(chain) == 1 {
		return Finding{}, false
	}
	return Finding{Severity: Warning, Kind: "chain",
		Message: fmt.Sprintf("redirect chain: %s; point %s straight at %s", describe(chain), chain[0].From, target),
		Rules:   chain, Final: target}, true
}

// sameHost splits a Location that stays on host into its host, path and
// query.
func sameHost(host, to string) (string, string, string, bool) {
	if strings.HasPrefix(to, "/") && !strings.HasPrefix(to, "//") {
		p, q, _ := strings.Cut(to, "?")
		return host, p, q, true
	}
	u, err := url.Parse(to)
	if err != nil || host == "" || !strings.EqualFold(u.Hostname(), strings.TrimPrefix(host, "*.")) {
		return "", "", "", false
	}
	return host, u.EscapedPath(), u.RawQuery, true
}

func describe(chain []RuleRef) string {
	parts := make([]string, len(chain))
	for i, r := range chain {
		parts[i] = fmt.Sprintf("%s (%s)", r.From, r.Source)
	}
	return strings.Join(parts, " -> ")
}
