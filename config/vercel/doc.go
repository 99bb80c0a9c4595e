// Package vercel translates the redirects of a vercel.json into redirectd
// rules, for `redirectd import vercel`.
//
// Parse reads the file, keeping each entry's line; Translate reads each
// source with the path-to-regexp (v6) syntax Vercel uses (:name, :name*,
// :name+, :name?, :name(pattern), (pattern), {groups}) into the same
// regex Vercel builds (case-sensitive, strict about a trailing slash),
// and hands importer.Order a candidate per entry: an exact rule for a
// literal source, a regex rule otherwise, :name and $n in the destination
// as ${name} and ${n}. permanent (default true) gives 308, false 307,
// statusCode any redirect status. A has condition on the host or on a
// query parameter becomes host or a query condition, one on a header or
// cookie with a literal value when.header or when.cookie; has without a
// value or with a regex on a header or cookie, missing (when has no
// negation), lookarounds (which Go's RE2 regexes do not have) and the
// file-wide trailingSlash and cleanUrls are listed with the entry's line,
// never dropped silently.
//
// Everything here runs once, off the hot path, and allocates freely.
package vercel
