package rewrite

import "github.com/redirectd/redirectd/matcher"

// Request is what Run reads of a request; every slice is the caller's
// and is not kept past Run.
type Request struct {
	// Host is $host: the Host header's name, lower case, without port.
	Host []byte
	// Target is the request target as sent ($request_uri); Path and
	// Query are its parts before and after the first '?'.
	Target, Path, Query []byte
	Method              []byte
	// Port is $server_port, the listener's port.
	Port  []byte
	HTTPS bool
	// KeepSlashes is nginx's merge_slashes off, for $uri.
	KeepSlashes bool
	// URI is nginx's $uri of Path under KeepSlashes when the caller
	// has built it already (matcher.Match.NginxURI); nil: Run builds it.
	URI []byte
	// Fields gives the header fields, for $http_NAME, $http_host and
	// $cookie_NAME; nil means none.
	Fields matcher.Request
}

// Action is what a Result does.
type Action uint8

// The answers Run gives.
const (
	// Forward sends the request upstream with Result.URI.
	Forward Action = iota
	// Redirect answers Result.Status with Result.Location.
	Redirect
	// Answer answers Result.Status with Result.Body (none when nil).
	Answer
	// Close closes the connection without an answer (return 444).
	Close
)

// Result is Run's answer. Its slices are in the Scratch given to Run
// and valid until its next Run.
type Result struct {
	Action   Action
	Status   int
	Location []byte
	Body     []byte
	// URI is the target to send upstream; Pass says the location chose
	// forwarding itself (proxy_pass), to Upstream ("" the default).
	URI      []byte
	Pass     bool
	Upstream string
	// Intercept says the forwarding location intercepts the upstream's
	// errors (proxy_intercept_errors on) and has error pages: an
	// upstream answer of a status that Intercepts reports is answered
	// as RunIntercepted says instead.
	Intercept bool
	// Location name chosen, as nginx writes it ("" when none was).
	Where string
}

// redirect makes r a redirect to loc, r.Where kept. Field by field: the
// composite literal built a copy of the whole Result first, a twentieth
// of a rewrite's redirect.
func (r *Result) redirect(status int, loc []byte) {
	r.Action, r.Status, r.Location = Redirect, status, loc
	r.Body, r.URI, r.Pass, r.Upstream, r.Intercept = nil, nil, false, "", false
}
