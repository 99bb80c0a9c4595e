package matcher

import (
	"errors"
	"regexp/syntax"
	"strings"
	"sync/atomic"

	"github.com/redirectd/redirectd/internal/ascii"
)

// rule is a compiled Rule.
type rule struct {
	Rule
	// hits counts the requests the server answered with this rule;
	// last is when it last answered one (lastanswered.go).
	hits atomic.Uint64
	last atomic.Uint32
	// source caches Source() for the access log, built on the first hit
	// rather than for every rule of a million-rule map.
	source atomic.Pointer[string]
	to     template
	// hdr is Headers as the lines of an answer's head (headers.go).
	hdr string
	// condKey is Query in a canonical form, to find duplicates.
	condKey string
	when    *when
	// vary is the Vary line of r's answer: the fields read by the
	// conditions of r and of the rules tried before it for its path.
	vary string
	// A regex rule has lit when it is a literal in disguise (regex_lower.go),
	// else prog; ncaps is 2 * (groups + 1).
	lit   *litPattern
	litv  litPattern // lit's storage when lowerFast made it
	prog  *program
	ncaps int
	// seq is the rule's place among its Set's rules, in file order: the
	// regex tier answers the matching rule with the smallest.
	seq int32
	// gate is the rule's window and shadow mode (window.go), nil when
	// it has neither.
	gate *gate
	// fb is the rule's fallback part (fallback.go), nil for most rules.
	fb *Fallback
}

// unnamed are the group names of a regex whose groups have none.
var unnamed = []string{"", ""}

// compileProgram compiles r's regex for the backtracker; re is it parsed,
// or nil.
func (r *rule) compileProgram(re *syntax.Regexp) error {
	var p *program
	var err error
	if re != nil {
		p, err = compileParsed(r.From, re, true)
	} else {
		p, err = compileStripped(r.From, true)
	}
	if err != nil {
		return fieldErr("from", "cannot compile regex %q: %v", r.From, err)
	}
	r.prog, r.ncaps = p, 2*(p.numSubexp()+1)
	return nil
}

// unlower turns a lowered rule back into one run by the backtracker, for
// when the literal tables cannot take it.
func (r *rule) unlower() error {
	r.lit = nil
	return r.compileProgram(nil)
}

// maxErrors bounds how many rule errors Compile reports at once.
const maxErrors = 20

// Compile checks rules and builds a Set. Rules are taken in file order, which
// decides between regexes that match the same path. It reports each bad
// rule (up to 20) as a *RuleError, joined with errors.Join.
func Compile(rules []Rule) (*Set, error) {
	return compile(rules, false)
}

// CompileFileOrder is Compile for a Set in file order (Builder.FileOrder).
func CompileFileOrder(rules []Rule) (*Set, error) {
	return compile(rules, true)
}

func compile(rules []Rule, fileOrder bool) (*Set, error) {
	b := NewBuilder(DefaultLimits)
	if fileOrder {
		b.FileOrder()
	}
	var errs []error
	for i := 0; i < len(rules) && len(errs) < maxErrors; i++ {
		if err := b.Add(&rules[i]); err != nil {
			errs = append(errs, err)
		}
	}
	s, err := b.Set()
	if err != nil {
		errs = append(errs, unjoin(err)...)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs[:min(len(errs), maxErrors)]...)
	}
	return s, nil
}

// unjoin splits an errors.Join result into its errors.
func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// compileRuleInto compiles in into r, a zero rule the caller may reuse
// when the rule is not kept (a lowered regex: see Builder.Add). A regex
// whose program would not fit in room bytes (room < 0: no bound) is not
// compiled: errNoRoom. keep: From and To are kept as given
// (Builder.KeepStrings). nginx: a regex is read as nginx's PCRE reads it
// where that differs whatever the path (Builder.NginxRegexes).
func compileRuleInto(r *rule, in *Rule, room int64, keep, nginx bool) error {
	r.Rule = *in
	// A Set keeps no reference into the caller's memory: From and To of a
	// map file's rules are substrings of the whole file.
	if !keep {
		r.From, r.To = strings.Clone(r.From), strings.Clone(r.To)
	}
	r.Host = strings.ToLower(r.Host)
	if r.Kind == Regex && r.CaseInsensitive {
		r.From = "(?i)" + r.From
	}
	if err := checkAnswer(&r.Rule); err != nil {
		return err
	}
	if err := r.compileConds(); err != nil {
		return err
	}
	if err := checkForm(&r.Rule); err != nil {
		return err
	}
	var names []string
	switch r.Kind {
	case Exact, Prefix:
		if err := checkPathFrom(&r.Rule); err != nil {
			return err
		}
	case Regex:
		var err error
		if names, err = r.compileRegex(room, nginx); err != nil {
			return err
		}
	default:
		return fieldErr("match", "unknown rule kind %d", r.Kind)
	}
	if r.Pass {
		return nil
	}
	t, err := parseTemplate(r.To, names, r.QueryString)
	if err != nil {
		return fieldErr("to", "%v", err)
	}
	r.to = t
	return nil
}

// checkAnswer refuses a status that is no redirect, and a `to` that the
// answer cannot have or that is no Location.
func checkAnswer(r *Rule) error {
	switch {
	case r.Pass:
		if r.To != "" {
			return fieldErr("to", "%q given for a no-redirect entry; leave it empty", r.To)
		}
	case !ValidStatus(r.Status):
		return fieldErr("status", "%d is not a redirect status; use 301, 302, 303, 307 or 308, or 410 or 451 (an answer with no Location)", r.Status)
	case !HasLocation(r.Status):
		if r.To != "" {
			return fieldErr("to", "%q given for a %d answer, which has no Location; leave to out (or empty)", r.To, r.Status)
		}
	default:
		return checkTo(r.To)
	}
	return nil
}

// compileConds compiles what a request must have besides its path for
// r to answer, and what r's answer adds: the extra headers, the gate,
// the fallback, the query and when conditions, and the key that tells
// rules with the same conditions apart.
func (r *rule) compileConds() error {
	if len(r.Headers) > 0 {
		r.Headers = append([]Header(nil), r.Headers...)
		hdr, err := headerBlock(r.Headers)
		if err != nil {
			return err
		}
		r.hdr = hdr
	}
	g, err := newGate(&r.Rule)
	if err != nil {
		return err
	}
	r.gate = g
	if r.fb, err = newFallback(r); err != nil {
		return err
	}
	if len(r.Query) > 0 {
		r.Query = append([]QueryCond(nil), r.Query...)
		sortConds(r.Query)
		for _, q := range r.Query {
			if q.Name == "" {
				return fieldErr("query", "a condition has an empty parameter name")
			}
		}
		r.condKey = pairsKey(r.Query)
	}
	r.condKey += gateKey(&r.Rule)
	if !r.When.Empty() {
		w, key, err := compileWhen(r.When)
		if err != nil {
			return err
		}
		r.when, r.condKey, r.vary = w, r.condKey+"\x01"+key, w.vary
	}
	return nil
}

// checkPathFrom refuses an exact or prefix rule's `from` that no
// request's path (or target, for request_uri) can be.
func checkPathFrom(r *Rule) error {
	if !strings.HasPrefix(r.From, "/") {
		return fieldErr("from", "%q must be a path starting with '/'", r.From)
	}
	if r.RequestURI && r.Kind == Prefix {
		return fieldErr("request_uri", "prefix rules compare paths only; use an exact or regex rule")
	}
	if r.DecodedPath {
		// The decoded path may hold anything, '?' and '#' too.
	} else if r.RequestURI {
		if strings.Contains(r.From, "#") {
			return fieldErr("from", "%q holds '#', which is never part of a request target", r.From)
		}
	} else if strings.ContainsAny(r.From, "?#") {
		return fieldErr("from", "%q holds '?' or '#'; it is compared with the path only, without the query", r.From)
	}
	return nil
}

// compileRegex compiles a regex rule's `from`: lowered to literal parts
// where it can be, else into a program. It returns the names of its
// capture groups, which `to` may refer to; errNoRoom when its program
// would not fit in room bytes. nginx: one that RE2 reads otherwise than
// PCRE whatever the path runs on package pcre (regex_nginx.go).
func (r *rule) compileRegex(room int64, nginx bool) ([]string, error) {
	// Rules with query conditions keep their program: lowered rules
	// are stored without them (litRule).
	if !r.conditional() {
		if ncap, ok := lowerFastInto(&r.litv, r.From); ok {
			r.lit, r.ncaps = &r.litv, r.litv.ncaps()
			return unnamed[:ncap+1], nil
		}
	}
	re, err := syntax.Parse(r.From, syntax.Perl)
	if err != nil {
		return r.compilePCRE(err)
	}
	if nginx {
		// After lowerFastInto: none of its forms reads otherwise.
		if pcreOnly, _ := nginxReading(r.From, re); pcreOnly {
			if names, err := r.compilePCRE(nil); err == nil {
				return names, nil
			}
		}
	}
	if !r.conditional() {
		r.lit = lower(re, r.From)
	}
	if r.lit != nil {
		r.ncaps = r.lit.ncaps()
		return re.CapNames(), nil
	}
	if !fits(estimateInsts(re), room) {
		return nil, errNoRoom
	}
	if err := r.compileProgram(re); err != nil {
		return nil, err
	}
	return r.prog.names, nil
}

// checkForm refuses the forms of comparison a rule's kind cannot have.
func checkForm(r *Rule) error {
	switch {
	case r.UnicodeFold && !(r.CaseInsensitive && r.DecodedPath):
		return fieldErr("case_insensitive", "\"unicode\" folds the decoded path; add path = \"decoded\"")
	case r.DecodedPath && r.Kind != Exact:
		return fieldErr("path", "\"decoded\" is for exact rules (a map of paths); for %s rules that compare nginx's $uri set uri = \"nginx\" in [rules.defaults]", r.Kind)
	case r.DecodedPath && r.RequestURI:
		return fieldErr("path", "\"decoded\" compares the decoded path, request_uri the target as sent: choose one")
	}
	return nil
}

// checkTo refuses a To that would break the answer's head: Location is
// written as given, so a control character would end the header early.
func checkTo(to string) error {
	if to == "" {
		return fieldErr("to", "empty; give the URL or path to redirect to")
	}
	if i := ascii.IndexControl(to); i >= 0 {
		return fieldErr("to", "%q holds a control character at byte %d", to, i)
	}
	return nil
}
