// Package rewrite runs nginx's request processing for one server block:
// the server's rewrite steps, the choice of a location as
// ngx_http_core_find_location makes it, and that location's steps
// (rewrite, return, if, set, break), up to the answer nginx would give:
// a redirect, a local answer, a closed connection, or a forward with the
// URI nginx would send upstream.
//
// A Program is compiled once from Specs (Compile) and is immutable and
// safe for concurrent use. Run evaluates one request into a Result using
// a caller-owned Scratch (one per event loop), and allocates nothing once
// the Scratch has grown. Regexes run through matcher.Pattern: on
// matcher's backtracker when RE2 can express them, else on package
// matcher/pcre (lookaround, atomic groups, backreferences: nginx's PCRE),
// within one PCRE work budget per request.
package rewrite
