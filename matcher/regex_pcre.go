package matcher

import (
	"errors"
	"fmt"
	"regexp/syntax"

	"github.com/redirectd/redirectd/matcher/pcre"
)

// A regex that RE2 refuses (lookaround, atomic groups, possessive
// quantifiers, backreferences: what nginx's PCRE accepts) runs on
// package pcre's backtracker instead. It is filed in the regex index like
// the others, under its literal prefix or a literal every match holds,
// with a stand-in RE2 program that matches anything, so that the one
// pass past the work budget (regex_dfa.go) keeps it as a candidate and
// leaves the answer to the engine.

// pcreBudget is the work one lookup may spend on PCRE regexes, in
// package pcre's steps (an instruction or an undone choice point, a few
// nanoseconds each): a hand-written rule on a real path spends tens, a
// path crafted from 500 rules' literals 200,000 (BenchmarkCrafted500).
// Past it the regexes left are not run: treated as not matching, and the
// lookup reported (Match.PCREAbandoned), so that a crafted path costs at
// most about half a millisecond whatever the rules.
const pcreBudget = 1 << 16

// anything is the stand-in program of a PCRE rule.
const anything = `(?s).*`

// re2Reason is RE2's reason for refusing a regex without the regex
// itself, which the message quotes already: regexp/syntax writes it raw,
// and a regex holding a newline would break the message's one line.
func re2Reason(err error) string {
	if err == nil {
		return "accepted" // an nginx regex RE2 reads otherwise (regex_nginx.go)
	}
	if se, ok := errors.AsType[*syntax.Error](err); ok {
		return string(se.Code)
	}
	return err.Error()
}

// compilePCRE compiles r's regex, which RE2 refused with rerr, for
// package pcre, and returns its groups' names.
func (r *rule) compilePCRE(rerr error) ([]string, error) {
	re, err := pcre.Compile(r.From, false) // CaseInsensitive is in From already, as (?i)
	if err != nil {
		return nil, fieldErr("from", "cannot compile regex %q: %v (as RE2: %s)", r.From, err, re2Reason(rerr))
	}
	if n := re.Size(); n > maxProgramInsts {
		return nil, fieldErr("from", "cannot compile regex %q: compiles to %d instructions, more than the %d allowed; split it into simpler rules", r.From, n, maxProgramInsts)
	}
	p, err := compileProgram(anything)
	if err != nil {
		return nil, fmt.Errorf("the stand-in program: %w", err)
	}
	p.pcre, p.expr = re, r.From
	p.numCap, p.names = re.NumSubexp(), re.SubexpNames()
	p.literal = re.LiteralPrefix()
	if need := re.Required(); len(need) >= 3 {
		p.required, p.need = []string{need}, []byte(need)
	} else if need != "" {
		p.short = [][]byte{[]byte(need)}
	}
	r.prog, r.ncaps = p, 2*(re.NumSubexp()+1)
	return p.names, nil
}

// matchPCRE runs r's PCRE regex on path, within what is left of the
// lookup's pcreBudget, filling m's captures on a match.
func (m *Match) matchPCRE(r *rule, path []byte) bool {
	if m.pcreLeft <= 0 {
		m.pcreAbandoned = true
		return false
	}
	ok, out := r.prog.pcre.Match(&m.pcre, path, m.caps[:r.ncaps], &m.pcreLeft)
	if out {
		m.pcreAbandoned = true
	}
	if ok {
		m.capsOf, m.path = r, path
	}
	return ok
}

// PCREAbandoned reports whether the last Lookup left PCRE regexes unrun
// or ran one past the work budget (pcreBudget): it answered as if they
// did not match.
func (m *Match) PCREAbandoned() bool { return m.pcreAbandoned }
