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
// cookie when.header or when.cookie (without a value: "*", any value);
// missing on a header, cookie or query parameter becomes when.unless.
// A has or missing value that is a regex, missing on the host,
// lookarounds (which Go's RE2 regexes do not have) and the file-wide
// trailingSlash and cleanUrls are listed with the entry's line, never
// dropped silently.
//
// Everything here runs once, off the hot path, and allocates freely.
package vercel
