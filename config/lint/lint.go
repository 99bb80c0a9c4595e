// Package lint checks a rule set for the mistakes large redirect maps
// collect: redirect loops, chains, Locations that are not valid URLs, and
// rules that can never match. It runs in `redirectd check`, off the hot
// path; it allocates freely.
package lint

import (
	"fmt"
	"net/url"
	"strings"

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
		if f, ok := checkLocation(&rules[i]); ok {
			out = append(out, f)
		}
	}
	out = append(out, unreachable(rules)...)
	for i := range rules {
		if f, ok := follow(&rules[i], set); ok {
			out = append(out, f)
		}
	}
	return out
}

// checkLocation reports a To that is not a valid Location: an absolute
// http(s) URL with a host, or a path starting with '/'.
func checkLocation(r *matcher.Rule) (Finding, bool) {
	to := r.To
	if r.Kind == matcher.Regex {
		// Group references become a plain letter for the check.
		to = varRE(to)
	}
	msg := ""
	if strings.ContainsAny(to, " \\\"<>") {
		msg = fmt.Sprintf("to %q holds characters a URL cannot hold (space, backslash, quote, < or >); percent-encode them", r.To)
	} else if strings.HasPrefix(to, "/") && !strings.HasPrefix(to, "//") {
		if _, err := url.Parse(to); err != nil {
			msg = fmt.Sprintf("to %q is not a valid path: %v", r.To, err)
		}
	} else if u, err := url.Parse(to); err != nil {
		msg = fmt.Sprintf("to %q is not a valid URL: %v", r.To, err)
	} else if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		msg = fmt.Sprintf("to %q is neither a path starting with '/' nor an http or https URL with a host", r.To)
	}
	if msg == "" {
		return Finding{}, false
	}
	return Finding{Severity: Error, Kind: "location", Message: msg, Rules: []RuleRef{ref(r)}}, true
}

// varRE replaces $1, ${name}, $host... with "x".
func varRE(to string) string {
	var b strings.Builder
	for i := 0; i < len(to); i++ {
		if to[i] != '$' || i+1 >= len(to) {
			b.WriteByte(to[i])
			continue
		}
		if to[i+1] == '$' {
			b.WriteByte('$')
			i++
			continue
		}
		j := i + 1
		if to[j] == '{' {
			for j < len(to) && to[j] != '}' {
				j++
			}
		} else {
			for j < len(to) && (to[j] == '_' || to[j] >= '0' && to[j] <= '9' || to[j] >= 'a' && to[j] <= 'z' || to[j] >= 'A' && to[j] <= 'Z') {
				j++
			}
			j--
		}
		b.WriteByte('x')
		i = j
	}
	return b.String()
}

// unreachable reports regex rules that repeat an earlier regex of the same
// host: the first always wins.
func unreachable(rules []matcher.Rule) []Finding {
	var out []Finding
	first := map[string]*matcher.Rule{}
	for i := range rules {
		r := &rules[i]
		if r.Kind != matcher.Regex {
			continue
		}
		key := r.Host + "\x00" + fmt.Sprint(r.CaseInsensitive) + "\x00" + r.From
		if prev := first[key]; prev != nil {
			out = append(out, Finding{Severity: Warning, Kind: "unreachable",
				Message: fmt.Sprintf("regex %q never matches: %s has the same regex and comes first", r.From, prev.Source()),
				Rules:   []RuleRef{ref(r), ref(prev)}})
			continue
		}
		first[key] = r
	}
	return out
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
	var m matcher.Match
	for len(chain) <= maxChain {
		if !set.Lookup([]byte(host), []byte(path), []byte(query), &m) {
			break
		}
		r := m.Rule()
		chain = append(chain, ref(r))
		if seen[r.Source()+r.Host] {
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
