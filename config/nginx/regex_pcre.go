package nginx

import (
	"fmt"
	"regexp/syntax"
	"strings"

	"github.com/redirectd/redirectd/matcher"
	"github.com/redirectd/redirectd/matcher/pcre"
)

// compilePCRE keeps an nginx regex that toRE2 refused (with rerr) as
// written: redirectd's matcher runs a regex RE2 refuses on matcher/pcre,
// with PCRE's meaning. One that RE2 parses after all (with another
// meaning) or that PCRE refuses is still an error.
func compilePCRE(src string, ci bool, rerr error) (*nginxRegex, error) {
	if _, err := syntax.Parse(src, syntax.Perl); err == nil {
		return nil, fmt.Errorf("regex %s has no RE2 equivalent, which redirectd uses: %w", src, rerr)
	}
	re, err := pcre.Compile(src, ci)
	if err != nil {
		return nil, fmt.Errorf("regex %s has no RE2 equivalent, and redirectd's PCRE engine does not run it: %w", src, err)
	}
	lit := re.LiteralPrefix()
	if ci { // as literalOf: lower case when the regex folds case
		lit = strings.ToLower(lit)
	}
	return &nginxRegex{src: src, pcre: src, ci: ci, re: pcreRegex{re},
		literal: lit, anchored: lit != "" || strings.HasPrefix(src, "^")}, nil
}

// pcreRegex runs a PCRE regex as the import's emulation of nginx needs it
// (a pathRegex): off the hot path, so it allocates freely.
type pcreRegex struct{ re *pcre.Regexp }

func (r pcreRegex) String() string            { return r.re.String() }
func (r pcreRegex) SubexpNames() []string     { return r.re.SubexpNames() }
func (r pcreRegex) MatchString(s string) bool { return r.FindStringSubmatch(s) != nil }

// FindStringSubmatch is regexp's: the match and its groups' texts, ""
// for a group that took no part; nil without a match. A match past the
// work budget counts as none, as in the matcher.
func (r pcreRegex) FindStringSubmatch(s string) []string {
	var sc pcre.Scratch
	caps := make([]int, 2*(r.re.NumSubexp()+1))
	budget := 1 << 16
	if ok, _ := r.re.Match(&sc, []byte(s), caps, &budget); !ok {
		return nil
	}
	return submatches(s, caps)
}

// patternRegex runs a regex RE2 accepts as the location model does
// (matcher.CompilePattern of the regex as written: PCRE's reading where
// RE2's differs, as gwern.net's ^/tags/(?<first>.*)+(?<second>.*)$), so
// that the self-check's nginx reads it as nginx does. expr is its RE2
// text, which String gives for the import's reading of its tree.
type patternRegex struct {
	p    *matcher.Pattern
	expr string
}

func (r patternRegex) String() string            { return r.expr }
func (r patternRegex) SubexpNames() []string     { return r.p.Names() }
func (r patternRegex) MatchString(s string) bool { return r.FindStringSubmatch(s) != nil }

// FindStringSubmatch is regexp's, as pcreRegex's.
func (r patternRegex) FindStringSubmatch(s string) []string {
	var sc matcher.Scratch
	caps := make([]int, 2*(r.p.NumCap()+1))
	if !r.p.Match(&sc, []byte(s), caps) {
		return nil
	}
	return submatches(s, caps)
}

// submatches are the texts of caps's groups in s, "" for one that took
// no part.
func submatches(s string, caps []int) []string {
	out := make([]string, len(caps)/2)
	for i := range out {
		if caps[2*i] >= 0 {
			out[i] = s[caps[2*i]:caps[2*i+1]]
		}
	}
	return out
}
