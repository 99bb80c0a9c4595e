// Package matcher answers one question on the hot path: which redirect rule,
// if any, matches a request's host and path, and what Location it produces.
//
// Rules are compiled once by Compile (or a Builder, one rule at a time)
// into an immutable Set. Plain exact rules go into one packed table per
// host (a byte arena, 16-byte entries, a hash index; no pointer per rule),
// which is what keeps a million-rule map file near 120 MB. A Set is safe for
// concurrent use without locks; the server publishes a new one through an
// atomic pointer when the configuration changes.
//
// Precedence, per host: an exact path (hash lookup), then the longest prefix
// (a radix tree walked once along the path), then the first regex in file
// order that matches. Rules for the request's host are tried before
// host-less rules. A Set in file order (Builder.FileOrder, fileorder.go)
// answers with the first matching rule in file order instead, whatever
// its kind and host, from the same indexes, as Netlify and Vercel do.
//
// The regex tier (regex.go) answers most regexes of hand-written maps
// without running them: literals in disguise (`^/old$`, `^/old.*$`,
// `(?i)^/Old/?$`, literals with '.' wildcards) are lowered to hash and
// radix tables (regex_lower.go, regex_lit.go); the others are filed under
// their literal prefix or a 3-byte piece of a literal every match holds,
// and only those whose filter the path passes, and that come before the
// best lowered match, are run by the backtracker, in file order, up to the
// first match. Past a budget of backtracker steps per request, the
// candidates left are answered in one pass over the path by a DFA over
// all of them (regex_dfa.go), and only the first that matches runs again,
// for its groups. FuzzLowered checks the whole tier against package
// regexp, FuzzRegexBudget the one pass. A regex RE2 refuses (lookaround,
// backreference: nginx's PCRE) runs on package matcher/pcre under its own
// budget per request (regex_pcre.go).
// Rules with RequestURI see the target as sent (path and query), as
// nginx's $request_uri; exact rules with DecodedPath see the decoded path,
// as nginx's $uri (decode.go), and are tried after the other exact rules.
// Loose exact rules (case-insensitive, trailing-slash, decoded) are packed
// too, one table per form (packed_form.go). Targets are percent-encoded
// into URI references when compiled (encode.go).
//
// Allocation contract: Set.Lookup, Match.AppendLocation, Status, Hit and
// Source allocate nothing once the caller's Match has warmed up (Source of
// a packed rule is valid until the next Source call on the same Match).
// Match.Rule and Set.Each allocate for packed rules: they are for tools. A Match holds per-caller scratch
// memory (regex captures and backtracking state); give each event loop its
// own and never share one between goroutines. Lookup keeps references into
// the host and path it was given until the next Lookup on the same Match.
package matcher
