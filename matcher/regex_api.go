package matcher

import (
	"bytes"
	"fmt"
	"regexp/syntax"

	"github.com/redirectd/redirectd/matcher/pcre"
)

// Pattern is one regular expression compiled for the allocation-free
// backtracker, for packages that run regexes outside a Set (package
// matcher/rewrite: nginx's regexes). It is immutable and safe for
// concurrent use; all working memory is the caller's Scratch.
//
// It reads its regex as nginx's PCRE does (regex_nginx.go): a regex RE2
// refuses and package pcre accepts (lookaround, atomic groups,
// backreferences), or one RE2 reads otherwise whatever the subject
// (an unbounded loop that can match empty), runs on package pcre; one
// RE2 reads otherwise on some subjects runs on package pcre for those.
// PCRE runs within pcreBudget steps for all the Patterns one Scratch
// runs between two ResetSteps, as the flat rules' PCRE regexes are
// bounded per lookup.
type Pattern struct {
	p  *program
	re *pcre.Regexp
	// alt is the regex for package pcre when p reads some subjects
	// otherwise (on, reads* bits: subjectReads).
	alt *pcre.Regexp
	on  uint8
	// mayReject and needs say which of the regex tier's filters p has
	// (rejects, holdsNeeds): a rewrite's regex runs on every request
	// its location takes, and a call to a filter with nothing to check
	// was a few per cent of one.
	mayReject, needs bool
}

// CompilePattern compiles expr, in Go's regexp syntax or PCRE's,
// refusing one whose program is larger than the rule tier allows
// (maxProgramInsts).
func CompilePattern(expr string) (*Pattern, error) {
	p, err := compileProgram(expr)
	if err != nil {
		re, perr := compilePatternPCRE(expr)
		if perr != nil {
			return nil, err // refused by both: RE2's word, as for any regex
		}
		return &Pattern{re: re}, nil
	}
	rp := &Pattern{p: p, mayReject: p.strip != "" || p.hasFirst || p.maxLen >= 0 || len(p.suffix) > 0 || p.hasLast,
		needs: len(p.need) > 0 || len(p.short) > 0}
	tree, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil, err // compileProgram parsed it
	}
	pcreOnly, on := nginxReading(expr, tree)
	if !pcreOnly && on == 0 {
		return rp, nil
	}
	// A regex package pcre refuses (\pL, \x{100}) keeps RE2's reading.
	re, err := compilePatternPCRE(expr)
	if err != nil || re.NumSubexp() != p.numSubexp() {
		return rp, nil
	}
	if pcreOnly {
		return &Pattern{re: re}, nil
	}
	rp.alt, rp.on = re, on
	return rp, nil
}

// compilePatternPCRE compiles expr for package pcre, within the size
// the rule tier allows.
func compilePatternPCRE(expr string) (*pcre.Regexp, error) {
	re, err := pcre.Compile(expr, false) // (?i) is in expr
	if err != nil {
		return nil, err
	}
	if n := re.Size(); n > maxProgramInsts {
		return nil, fmt.Errorf("compiles to %d instructions, more than the %d allowed; split it", n, maxProgramInsts)
	}
	return re, nil
}

// NumCap is the number of capture groups, as regexp's NumSubexp.
func (r *Pattern) NumCap() int {
	if r.re != nil {
		return r.re.NumSubexp()
	}
	return r.p.numSubexp()
}

// Names are the group names, as regexp's SubexpNames ("" for the whole
// match and unnamed groups).
func (r *Pattern) Names() []string {
	if r.re != nil {
		return r.re.SubexpNames()
	}
	return r.p.names
}

// Match reports whether subject holds a match (leftmost-first, as
// regexp), filling caps[0:2*(NumCap()+1)] with its offsets (-1 for a
// group that took no part). caps must be that long. It allocates
// nothing once s has grown, except for a subject too long for the
// visited bitmap, which package regexp answers (see matchBig).
func (r *Pattern) Match(s *Scratch, subject []byte, caps []int) bool {
	if r.re != nil {
		return matchPCRE(r.re, s, subject, caps)
	}
	// subjectReads, written out: most regexes have only `$` to check.
	if n := len(subject); r.on != 0 && (n > 0 && subject[n-1] == '\n' && r.on&readsFinalNewline != 0 ||
		r.on > readsFinalNewline && scanReads(subject, r.on)) {
		return matchPCRE(r.alt, s, subject, caps)
	}
	// The regex tier's filters first: the bytes a match starts and ends
	// with, its length, and the literals it holds rule most subjects out
	// faster than backtracking does.
	if big := r.p.tooBig(len(subject)); big || r.mayReject && r.p.rejects(subject) || r.needs && !r.p.holdsNeeds(subject) {
		for i := range caps {
			caps[i] = -1
		}
		if !big {
			s.steps += len(subject) / 16 // the scans, at SIMD speed, as the tier counts them
			return false
		}
		return r.p.matchBig(subject, caps)
	}
	return r.p.match(subject, caps, s)
}

// Steps is the number of backtracker states s has visited since
// ResetSteps: the work a request's regexes cost.
func (s *Scratch) Steps() int { return s.steps }

// ResetSteps starts a new count for Steps, and a new PCRE budget.
func (s *Scratch) ResetSteps() { s.steps, s.pcreSpent, s.pcreAbandoned = 0, 0, false }

// matchPCRE runs re within what is left of s's budget; past it the
// regex does not match (PCREAbandoned says so).
func matchPCRE(re *pcre.Regexp, s *Scratch, subject []byte, caps []int) bool {
	left := pcreBudget - s.pcreSpent
	if left <= 0 {
		s.pcreAbandoned = true
		return false
	}
	start := left
	ok, out := re.Match(&s.pcre, subject, caps, &left)
	s.pcreSpent += start - left
	if out {
		s.pcreAbandoned = true
		return false
	}
	return ok
}

// PCREAbandoned reports whether a Pattern run on s since its last
// ResetSteps was cut short by the PCRE budget.
func (s *Scratch) PCREAbandoned() bool { return s.pcreAbandoned }

// AppendNginxURI appends to dst nginx's $uri of the path p as
// ngx_http_parse_complex_uri builds it (nginxuri.go): every escape
// decoded, "." and ".." resolved, slashes merged unless keepSlashes. ok
// is false for a path nginx answers 400; dst is then to be cut back.
func AppendNginxURI(dst, p []byte, keepSlashes bool) (out []byte, ok bool) {
	if _, plain := plainNginxURI(p, !keepSlashes); plain {
		// Most paths are their own $uri: a copy, not the state machine
		// (the rewrite phase builds $uri for every request it starts).
		return append(dst, p...), true
	}
	out, _, ok = appendNginxURI(dst, p, !keepSlashes)
	return out, ok
}

// AppendNginxURIQuoted is AppendNginxURI that also reports whether p
// held a '%' or a '+' (nginx's quoted_uri || plus_in_uri), from the
// same pass over a plain path: the rewrite phase asks both of every
// request.
func AppendNginxURIQuoted(dst, p []byte, keepSlashes bool) (out []byte, ok, quoted bool) {
	if flags, plain := plainNginxURI(p, !keepSlashes); plain {
		return append(dst, p...), true, flags&uriPlus != 0 // plain: no '%'
	}
	out, _, ok = appendNginxURI(dst, p, !keepSlashes)
	return out, ok, bytes.IndexByte(p, '%') >= 0 || bytes.IndexByte(p, '+') >= 0
}

// AppendDecodedPath appends to dst the decoded form of the path p, as
// nginx's $uri (decode.go), and returns the extended slice.
func AppendDecodedPath(dst, p []byte) []byte {
	if !needsDecoding(p) {
		return append(dst, p...)
	}
	return decodePath(dst, p)
}
