package matcher

import (
	"regexp/syntax"
	"strings"

	"github.com/redirectd/redirectd/matcher/pcre"
)

// NormalizePath returns a configured path as the matcher files it, after
// the percent-encoding normalisation applied to every path.
func NormalizePath(p string) string { return normalizeString(p) }

// RegexLiteralPrefix returns the literal text every match of an anchored
// regex starts with ("" for an unanchored one), as the regex index files
// it. Checks use it to find regexes a prefix rule always answers first.
func RegexLiteralPrefix(expr string) (string, error) {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		p, perr := pcre.Compile(expr, false) // as the Set runs it (regex_pcre.go)
		if perr != nil {
			return "", err
		}
		return p.LiteralPrefix(), nil
	}
	return literalPrefix(re.Simplify()), nil
}

// JoinsHost reports whether what a rule appends to To (a prefix rule's rest
// of the path, or a regex group written right after the host) would follow
// To's host directly: "https://new.example" or "https://new.example$1".
// The matcher then puts a '/' between them, so that no request can extend
// the host ("/old.evil.net"); checks warn, since the written rule meant
// otherwise.
func JoinsHost(to string, kind Kind) bool {
	// $path and $uri always start with '/': what they append ends the
	// host ("https://example.com${path}", as imports write it).
	end := authorityEnd(to)
	if end < 0 {
		return false
	}
	head := to[:end]
	if kind == Regex {
		// Every reference, not only the first: in
		// "https://$host:8443$1" the group follows the port.
		for i := strings.IndexByte(head, '$'); i >= 0; i = nextRef(head, i) {
			if !isHostRef(head[i:]) && !startsWithSlashVar(head[i:]) {
				return true
			}
		}
	}
	return kind == Prefix && end == len(to)
}

// nextRef returns the index of the first '$' in s after the one at i, or
// -1.
func nextRef(s string, i int) int {
	j := strings.IndexByte(s[i+1:], '$')
	if j < 0 {
		return -1
	}
	return i + 1 + j
}

// isHostRef reports whether s starts with a reference to $host.
func isHostRef(s string) bool {
	name, _, err := templateRef(s[1:])
	return err == nil && name == "host"
}

// SampleTarget returns a Location that a rule with this To could send,
// for checks that parse it as a URL: each of a regex rule's references is
// filled with a value valid where it stands, so that a check never finds
// an error in its own placeholder. $host is "x", a host name; any other
// reference in the authority (right after the host or its port:
// "https://$host:8443$path") gets "/x", since the server puts a '/'
// before what follows the host unless that starts with '/', '?' or '#'
// (guardAuthority); elsewhere "x". Exact and prefix rules have no
// references: their To is returned as it is.
func SampleTarget(to string, kind Kind) string {
	if kind != Regex || strings.IndexByte(to, '$') < 0 {
		return to
	}
	end := authorityEnd(to)
	var b strings.Builder
	afterHost := false // a reference in the authority ended the host
	for i := 0; i < len(to); {
		text, name, n, err := templateToken(to[i:])
		switch {
		case err != nil:
			b.WriteByte('$') // refused at compile; left for the check to see
			n = 1
		case text != "":
			b.WriteString(text)
		case i >= end || afterHost:
			b.WriteString("x")
		case name == "host":
			// A host name, wherever it stands: after a port it makes an
			// invalid URL, which is what the server would send.
			b.WriteString("x")
		default:
			// Not the host: what follows it, as the template reads it
			// (parseTemplate).
			b.WriteString("/x")
			afterHost = true
		}
		i += n
	}
	return b.String()
}

// startsWithSlashVar reports whether s starts with a reference to a
// variable whose value always starts with '/': $path or $uri.
func startsWithSlashVar(s string) bool {
	for _, v := range []string{"$path", "${path}", "$uri", "${uri}"} {
		if rest, ok := strings.CutPrefix(s, v); ok {
			// "$paths" would be a group named paths.
			if v[1] == '{' || rest == "" || !isNameByte(rest[0]) {
				return true
			}
		}
	}
	return false
}
