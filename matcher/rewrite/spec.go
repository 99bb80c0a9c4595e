package rewrite

// Kind is how a location's path is matched against $uri.
type Kind uint8

// The kinds of location, as nginx writes them.
const (
	Prefix        Kind = iota // location /path
	Exact                     // location = /path
	PrefixNoRegex             // location ^~ /path
	Regex                     // location ~ regex
	RegexCI                   // location ~* regex
	Named                     // location @name
)

// String is the kind's nginx modifier ("" for Prefix).
func (k Kind) String() string {
	return [...]string{"", "=", "^~", "~", "~*", "@"}[k]
}

// Spec is one server's request processing as written: the steps of its
// rewrite phase, then its locations in file order.
type Spec struct {
	// Steps are nginx-like step texts (rewrite, return, if, set, break),
	// run one after the other.
	Steps     []Text
	Locations []LocationSpec
	// Maps are the map variables the steps can read.
	Maps []MapSpec
}

// Text is a step text and the line its first line is on, for errors.
type Text struct {
	Src  string
	Line int
}

// LocationSpec is one location as written.
type LocationSpec struct {
	// Line is where the location is written, for errors about it.
	Line  int
	Match Kind
	// Path is the path of Exact and the prefix kinds, the regex of the
	// regex kinds, the name (without '@') of Named.
	Path      string
	Steps     string
	StepsLine int
	// Pass says the location forwards as proxy_pass does, to Upstream
	// ("" for the default one), with URI replacing the matched prefix
	// when HasURI. A Pass location whose path ends in '/' answers its
	// path without the '/' with a 301 to it, as nginx's auto-redirect.
	Pass     bool
	Upstream string
	URI      string
	HasURI   bool
	// InterceptErrors is proxy_intercept_errors on: an upstream answer
	// of a status the location's error_page names goes where it says
	// (RunIntercepted).
	InterceptErrors bool
	// Locations are the nested ones.
	Locations []LocationSpec
}
