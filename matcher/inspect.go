package matcher

import "regexp/syntax"

// NormalizePath returns a configured path as the matcher files it, after
// the percent-encoding normalisation applied to every path.
func NormalizePath(p string) string { return normalizeString(p) }

// RegexLiteralPrefix returns the literal text every match of an anchored
// regex starts with ("" for an unanchored one), as the regex index files
// it. Checks use it to find regexes a prefix rule always answers first.
func RegexLiteralPrefix(expr string) (string, error) {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return "", err
	}
	return literalPrefix(re.Simplify()), nil
}
