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
		if i := strings.IndexByte(head, '$'); i >= 0 && !strings.HasPrefix(head[i:], "$host") && !strings.HasPrefix(head[i:], "${host}") && !startsWithSlashVar(head[i:]) {
			return true
		}
	}
	return kind == Prefix && end == len(to)
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
