// Package matcher answers one question on the hot path: which redirect rule,
// if any, matches a request's host and path, and what Location it produces.
//
// Rules are compiled once by Compile into an immutable Set. A Set is safe for
// concurrent use without locks; the server publishes a new one through an
// atomic pointer when the configuration changes.
//
// Precedence, per host: an exact path (hash lookup), then the longest prefix
// (a radix tree walked once along the path), then the first regex in file
// order whose literal prefix is a prefix of the path (regexes are indexed by
// that literal in a second radix tree, so a miss runs almost none of them).
// Rules for the request's host are tried before host-less rules.
//
// Allocation contract: Set.Lookup and Match.AppendLocation allocate nothing
// once the caller's Match has warmed up. A Match holds per-caller scratch
// memory (regex captures and backtracking state); give each event loop its
// own and never share one between goroutines. Lookup keeps references into
// the host and path it was given until the next Lookup on the same Match.
package matcher
