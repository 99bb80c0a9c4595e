package lint

import (
	"fmt"
	"regexp/syntax"
	"strings"

	"github.com/redirectd/redirectd/matcher"
)

// NeedsFragment reports whether every path a regex rule's From matches
// holds a '#' (in a literal it needs, which RE2's syntax tree tells):
// clients never send the fragment ("/page#section" is sent as "/page"),
// so such a rule never applies; a '#' sent escaped is "%23". An exact or
// prefix rule's '#' is a load error (matcher), unless the rule compares
// the decoded path, where "%23" is '#'.
func NeedsFragment(r *matcher.Rule) bool {
	if r.Kind != matcher.Regex || strings.IndexByte(r.From, '#') < 0 {
		return false
	}
	re, err := syntax.Parse(r.From, syntax.Perl)
	if err != nil {
		return false
	}
	return needsHash(re.Simplify())
}

// needsHash reports whether every match of re holds a '#'.
func needsHash(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpLiteral:
		for _, c := range re.Rune {
			if c == '#' {
				return true
			}
		}
	case syntax.OpCharClass:
		// A class of '#' alone ([#]).
		return len(re.Rune) == 2 && re.Rune[0] == '#' && re.Rune[1] == '#'
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if needsHash(s) {
				return true
			}
		}
	case syntax.OpCapture, syntax.OpPlus:
		return needsHash(re.Sub[0])
	case syntax.OpRepeat:
		return re.Min > 0 && needsHash(re.Sub[0])
	case syntax.OpAlternate:
		for _, s := range re.Sub {
			if !needsHash(s) {
				return false
			}
		}
		return len(re.Sub) > 0
	}
	return false
}

// fragment is the finding for a rule whose From needs a '#'.
func fragment(r *matcher.Rule) Finding {
	return Finding{Severity: Warning, Kind: "fragment", Rules: []RuleRef{ref(r)},
		Message: fmt.Sprintf("%s rule %q never matches: what follows '#' is a fragment, which clients never send (a browser asks for the path before it); write %%23 to match a '#' sent escaped, or remove the rule", r.Kind, r.From)}
}
