package matcher

import (
	"fmt"
	"slices"
	"strconv"
)

// Kind is how a rule's From is compared with the request path.
type Kind uint8

const (
	// Exact matches the whole path.
	Exact Kind = iota
	// Prefix matches a path that starts with From; the rest of the path is
	// appended to To.
	Prefix
	// Regex matches From, a Go RE2 expression, against the path; To may
	// refer to its groups as $1 or ${name}.
	Regex
)

var kindNames = [...]string{Exact: "exact", Prefix: "prefix", Regex: "regex"}

// String returns the name used in the configuration: "exact", "prefix" or "regex".
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", k)
}

// ParseKind turns a configuration name into a Kind; "" means Exact.
func ParseKind(s string) (Kind, bool) { return parseName[Kind](s, kindNames[:]) }

// parseName returns the value whose name is s in names (indexed by
// value); "" is the first, the default.
func parseName[T ~uint8](s string, names []string) (T, bool) {
	if s == "" {
		return 0, true
	}
	i := slices.Index(names, s)
	if i < 0 {
		return 0, false
	}
	return T(i), true
}

// Rule is one redirect as configured.
type Rule struct {
	Kind Kind
	// Host restricts the rule to one host (compared case-insensitively,
	// without port); empty means any host.
	Host   string
	From   string
	To     string
	Status int
	// CaseInsensitive compares From with the path ignoring ASCII case.
	CaseInsensitive bool
	// UnicodeFold, with CaseInsensitive and DecodedPath, ignores case
	// beyond ASCII too (Unicode's simple lower-case mapping: "BÉZIER"
	// is "bézier"), as sites that lower-case the decoded path do.
	UnicodeFold bool
	// DecodedPath compares From with the request path in its decoded
	// form (decode.go), nginx's $uri: every escape decoded, slashes
	// merged, "." and ".." resolved. From is taken as written: "/a:b",
	// "/café", "/faq?" (reached by "/faq%3F"). Exact rules only.
	DecodedPath bool
	// TrailingSlash makes /a and /a/ match the same exact or prefix rule.
	TrailingSlash bool
	// QueryString says what Location does with queries.
	QueryString QueryMode
	// Query holds conditions on the request's query, all of which must
	// hold; rules with conditions are tried before the rule without for
	// the same path.
	Query []QueryCond
	// When holds conditions on language, country, header fields and
	// cookies (conditions.go), ordered like Query.
	When *When
	// RequestURI compares From with the request target as the client sent
	// it, path and query ("/a?x=1", not percent-decoded: nginx's
	// $request_uri) instead of the normalised path alone. Exact and regex
	// rules only.
	RequestURI bool
	// Pass makes the rule an explicit "no redirect" entry (an nginx map
	// value of ""): a request it decides is a miss, answered 404 or
	// forwarded, and no later rule is tried for it. To and Status are
	// unused and must be empty.
	Pass bool
	// Headers are added to the rule's answers, in this order (headers.go).
	Headers []Header
	// Active is when the rule answers; outside it the rule is as if
	// absent. The zero Window is always.
	Active Window
	// Shadow makes the rule answer nothing: requests go on as if it were
	// absent, and Match.Shadowed reports the ones it would have answered.
	Shadow bool
	// Fallback makes the rule answer only where the upstream has no page:
	// a request it matches is still forwarded, and the rule's answer
	// replaces the upstream's only when the upstream answers one of
	// FallbackStatus (empty: 404). Without an upstream it answers as any
	// rule does (fallback.go).
	Fallback       bool
	FallbackStatus []int
	// File and Line say where the rule was defined; explain and errors
	// report them. File is shared by every rule of one file.
	File string
	Line int
}

// Source returns where the rule was defined, as "file:line".
func (r *Rule) Source() string {
	return r.File + ":" + strconv.Itoa(r.Line)
}

// ValidStatus reports whether code is a status a rule answers with: a
// redirect (301, 302, 303, 307 or 308), or 410 or 451, which have no
// Location (HasLocation).
func ValidStatus(code int) bool {
	switch code {
	case 301, 302, 303, 307, 308, 410, 451:
		return true
	}
	return false
}

// QueryMode says how a rule's Location treats the request's query.
type QueryMode uint8

const (
	// QueryKeep appends the request's query to Location (with '&' when To
	// already holds one).
	QueryKeep QueryMode = iota
	// QueryDrop sends no query at all: not the request's, not To's.
	QueryDrop
	// QueryReplace sends only the query written in To.
	QueryReplace
)

// ParseQueryMode turns "keep" (or ""), "drop" or "replace" into a QueryMode.
func ParseQueryMode(s string) (QueryMode, bool) {
	return parseName[QueryMode](s, queryModeNames[:])
}

var queryModeNames = [...]string{QueryKeep: "keep", QueryDrop: "drop", QueryReplace: "replace"}
