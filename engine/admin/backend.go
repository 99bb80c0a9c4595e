package admin

import "io"

// RuleInfo is one rule as /rules lists it.
type RuleInfo struct {
	Kind   string `json:"kind"`
	From   string `json:"from"`
	To     string `json:"to"`
	Status int    `json:"status"`
	Host   string `json:"host,omitempty"`
	// Conditions are the rule's conditions besides its host, one text
	// each, as matcher's Rule.Conditions writes them: `scheme = https`,
	// `header X-Beta = "1"`, `active until 2026-12-31T00:00:00Z`;
	// absent for a rule that answers every request for its path.
	Conditions []string `json:"conditions,omitempty"`
	// ConditionsTOML are its query and when conditions as a draft
	// entry's conditions field takes them (`scheme = 'https'`, a key a
	// line), for the console's Edit link to name the rule by them.
	ConditionsTOML string `json:"-"`
	Source         string `json:"source"` // "file:line"
	Hits           uint64 `json:"hits"`   // since start
	// Headers are the rule's header fields, the [server] ones merged in;
	// absent for a rule that sends only the server's.
	Headers map[string]string `json:"headers,omitempty"`
	// Mode is "shadow" for a shadow rule, whose requests are counted in
	// ShadowHits (since start) instead of Hits; "" for a live rule.
	Mode       string `json:"mode,omitempty"`
	ShadowHits uint64 `json:"shadow_hits,omitempty"`
	// Window is the rule's time window, nil for none.
	*Window
	// RuleChange is who last changed the rule through a draft, nil for
	// a rule as the config writes it.
	*RuleChange
	// LastAnswered is when the rule last answered a request (RFC 3339,
	// to the second), absent when it has not since it was loaded.
	LastAnswered string `json:"last_answered,omitempty"`
	// LocationInfo is set on the entries of the location phase that
	// /rules lists after the rules (Kind "location" or
	// "server_rewrite", From the location's path, regex or name).
	*LocationInfo
}

// The parts of a RuleInfo that few rules have, each nil on the others
// (and written inline in JSON when set): a million rules listed cost
// about 200 bytes each, not 350, in the console's index of them.

// Window is a rule's time window (RFC 3339), "" for an open bound.
type Window struct {
	ActiveFrom  string `json:"active_from,omitempty"`
	ActiveUntil string `json:"active_until,omitempty"`
}

// RuleChange is when a rule was added or last changed through a draft
// (RFC 3339), the name of the token that promoted it, the message of
// that promote, and the rollback that brought it back, if one did.
type RuleChange struct {
	Added     string `json:"added,omitempty"`
	ChangedBy string `json:"changed_by,omitempty"`
	Message   string `json:"message,omitempty"`
	// Restored is the rollback that served the rule's edit again since
	// its promote: "version 7 (rollback by bob)".
	Restored string `json:"restored,omitempty"`
}

// LocationInfo is an entry of the location phase: the location as nginx
// writes it ("= /x", "~* \.png$"), the one it is nested in, its steps
// as written, and the upstream group and URI part it forwards with.
type LocationInfo struct {
	Location    string `json:"location,omitempty"`
	Parent      string `json:"parent,omitempty"`
	Steps       string `json:"steps,omitempty"`
	Upstream    string `json:"upstream,omitempty"`
	UpstreamURI string `json:"upstream_uri,omitempty"`
}

// LocationLister is a Backend whose rules have a location phase
// ([[server_rewrite]] and [[location]] tables): /rules lists its
// entries after the rules, and the console shows them. A Backend
// without one lists none.
type LocationLister interface {
	// Locations returns the server steps and locations of each host,
	// in file order. The slice is only read, never kept.
	Locations() []RuleInfo
}

// Backend is what the admin endpoints report on and act upon. The server
// calls its methods from net/http's request goroutines, several at once, so
// every method must be safe for concurrent use; none is called from a
// traffic event loop.
type Backend interface {
	// WriteMetrics writes every metric in the Prometheus text format
	// (version 0.0.4) to w. Write errors (a client gone) can be ignored:
	// the answer is lost either way.
	WriteMetrics(w io.Writer)
	// Ready returns nil when the server is ready to take traffic, otherwise
	// an error saying why not ("rules not loaded", "listeners not up",
	// "draining"); /readyz sends its text with a 503.
	Ready() error
	// Rules returns every loaded rule, a new list each call: the
	// slice is only read, never kept, but the console keeps its rules
	// (and what their pointers, slices and maps hold), which the
	// Backend must not change after.
	Rules() []RuleInfo
	// Explain says, in text for a human, how url would be answered for
	// a request with req's header fields from req's client, which rules
	// with when conditions read. An error (a url that does not parse, a
	// malformed field or address) is sent back with a 400.
	Explain(url string, req ExplainRequest) (string, error)
	// Reload reads the config again and, when it is valid, swaps it in. It
	// returns a summary of what changed, or the config error (file:line),
	// in which case the old config must stay in force.
	Reload() (string, error)
}

// ExplainRequest is what /explain is told of the request besides its URL:
// header fields as "Name: value" (the header parameters) and the client's
// IP address (client), both optional.
type ExplainRequest struct {
	Headers []string
	Client  string
}
