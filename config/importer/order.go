package importer

import (
	"bytes"
	"errors"
	"testing/fstest"

	"fmt"
	"strings"

	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/config/lint"

	"github.com/redirectd/redirectd/matcher"

	"github.com/redirectd/redirectd/internal/plural"
)

// Request is one request of the order check: host in lower case without
// port ("" for any host), path, query without '?' ("" for none), and who
// sends it (nil: a client that satisfies no rule's conditions).
type Request struct {
	Host, Path, Query string
	Client            *Client
}

// Candidate is one rule of the source, in source order.
type Candidate struct {
	File string
	Line int
	Text string
	// Natural is the plainest translation (an exact or prefix rule), nil
	// when only a regex says it; Regex says the same as a regex rule.
	// Both nil: the rule is not translated (the translator noted why),
	// but the source still applies it first to its requests, so what
	// later rules would answer for them is checked all the same.
	Natural, Regex *matcher.Rule
	// Matches reports whether the source service applies this rule to a
	// request; the service takes the first rule that does. For a rule
	// with conditions it reads r.Client (see Client.Satisfies).
	Matches func(r Request) bool
	// When holds the conditions the source applies the rule under, as
	// Natural and Regex carry them; Order asks the rule's samples as a
	// client who satisfies them. Nil: none, or none Matches reads.
	When *matcher.When
	// Prefix, when set, starts every path Matches takes: a cheap test
	// before it, which keeps the order check of thousands of rules fast.
	Prefix string
	// Samples are requests this rule is about: its own path, with and
	// without a trailing slash, its placeholders and splats filled in.
	Samples []Request
	// What the source does instead of a redirect, for a rule not
	// translated ("a 200 rewrite"), named in the notes.
	What string
}

// maxRounds bounds the rounds of Order: each round turns every rule
// found answering ahead of its turn into a regex, so a handful suffice.
const maxRounds = 20

// Order translates cands, noting on the way what cannot be.
//
// The services take the first rule in file order that matches, whatever
// its host; so do the written rules, under [rules] order = "file"
// (WriteFileOrderTOML), and Order compiles them so. It asks the source's
// model (Matches) and the compiled rules the same requests (every
// candidate's samples), which must agree; where a later exact or prefix
// rule still answers a request that an earlier rule should, it writes
// that later rule as a regex; then asks again.
// A rule that never applies (every sample answered by an earlier rule: a
// duplicate, a path under an earlier splat) is left out with a note
// rather than written to confuse. Answers that still differ are noted.
func Order(cands []Candidate) *Result {
	res := &Result{}
	addHostSamples(cands)
	if n := addClientSamples(cands); n > 0 {
		res.Notes = append(res.Notes, Note{"", 0, Caveat, fmt.Sprintf(
			"the rules' conditions make too many kinds of client to ask about (%d not asked): the order is not checked for those clients' requests beyond the rules' own paths", n)})
	}
	expect := sourceAnswers(res, cands)
	live := liveRules(res, cands, expect)
	regex := make([]bool, len(cands))
	var diffs []diff
	for range maxRounds {
		rules := build(cands, live, regex)
		set, err := matcher.CompileFileOrder(rules)
		if err != nil {
			// Each rule compiled alone; together two can still clash (an
			// exact /a and a prefix /a/ that also takes /a): the one
			// blamed, the later, becomes a regex, or is left out.
			if !resolve(res, cands, err, live, regex) {
				res.Notes = append(res.Notes, Note{"", 0, LeftOut, fmt.Sprintf("the translated rules do not compile together (a bug of the import; please report it): %v", err)})
				return res
			}
			continue
		}
		var changed bool
		if diffs, changed = compareAnswers(set, cands, expect, live, regex, diffs[:0]); !changed {
			break
		}
	}
	res.Notes = append(res.Notes, differs(cands, diffs, live)...)
	for _, r := range build(cands, live, regex) {
		// The rules carry their source file and line from here on.
		c := &cands[r.Line-1]
		r.File, r.Line = c.File, c.Line
		res.Rules = append(res.Rules, Rule{Rule: r, Text: c.Text})
		if lint.NeedsFragment(&r) {
			// The service never applies it either; check warns too.
			res.Notes = append(res.Notes, Note{c.File, c.Line, Caveat, fmt.Sprintf(
				"%s: its source holds '#', and what follows '#' is a fragment, which browsers never send: the rule never applies; written as it is", c.Text)})
		}
	}
	return res
}

// sourceAnswers compiles each candidate's translations alone, dropping
// (and noting) those that do not compile, and returns, per candidate and
// sample, the index of the candidate the source answers it with (-1:
// none).
func sourceAnswers(res *Result, cands []Candidate) [][]int {
	expect := make([][]int, len(cands))
	for j := range cands {
		c := &cands[j]
		c.Natural = checkRule(res, c, c.Natural, false)
		c.Regex = checkRule(res, c, c.Regex, c.Natural == nil)
		expect[j] = make([]int, len(c.Samples))
		for k, s := range c.Samples {
			expect[j][k] = firstMatch(cands, s)
		}
	}
	return expect
}

// liveRules says which candidates are written: those translated that
// apply to a request of their own. One that never applies is noted with
// the earlier rule that takes its requests.
func liveRules(res *Result, cands []Candidate, expect [][]int) []bool {
	live := make([]bool, len(cands))
	for j := range cands {
		c := &cands[j]
		if c.Natural == nil && c.Regex == nil {
			continue
		}
		live[j] = true
		if len(c.Samples) == 0 {
			continue
		}
		// The candidate's own samples come first, before those
		// addHostSamples added: name the rule that takes the first. A
		// rule with conditions is asked about the clients who satisfy
		// them (addClientSamples put those first), as only they reach it.
		earlier := expect[j][0]
		own := c.Samples[0].Client
		for k, e := range expect[j] {
			if c.Samples[k].Client != own {
				continue
			}
			if e == j || e < 0 {
				earlier = -1
				break
			}
		}
		if earlier >= 0 {
			live[j] = false
			res.Notes = append(res.Notes, Note{c.File, c.Line, LeftOut,
				fmt.Sprintf("%s never applies: line %d comes first and takes every request it matches; left out", c.Text, cands[earlier].Line)})
		}
	}
	return live
}

// compareAnswers asks set every candidate's samples and compares its
// answers with the source's (expect). Where a later rule written as an
// exact or prefix rule answers ahead of its turn, it is marked to be
// written as a regex (changed: the rules are to be built again); the
// other differences are appended to diffs, each pair of answers once.
func compareAnswers(set *matcher.Set, cands []Candidate, expect [][]int, live, regex []bool, diffs []diff) (_ []diff, changed bool) {
	seen := map[[2]int]bool{}
	var m matcher.Match
	for j := range cands {
		for k, s := range cands[j].Samples {
			want := expect[j][k]
			got := -1
			m.Req = matcherRequest(s.Client)
			if set.Lookup([]byte(s.Host), []byte(s.Path), queryBytes(s.Query), &m) {
				got = m.Rule().Line - 1
			}
			if want >= 0 && !live[want] {
				if got < 0 {
					continue
				}
			} else if got == want {
				continue
			}
			if got > want && want >= 0 && live[want] && !regex[got] && cands[got].Natural != nil && cands[got].Regex != nil {
				regex[got], changed = true, true
				continue
			}
			if seen[[2]int{want, got}] {
				continue
			}
			seen[[2]int{want, got}] = true
			diffs = append(diffs, diff{s, want, got})
		}
	}
	return diffs, changed
}

// checkRule compiles r alone; a rule that does not compile is noted (when
// it is the one to be used) and dropped.
func checkRule(res *Result, c *Candidate, r *matcher.Rule, note bool) *matcher.Rule {
	if r == nil {
		return nil
	}
	_, err := matcher.Compile([]matcher.Rule{*r})
	if err == nil {
		err = loads(r)
	}
	if err != nil {
		if note {
			res.Notes = append(res.Notes, Note{c.File, c.Line, LeftOut, fmt.Sprintf("%s: %v; left out", c.Text, unwrapRule(err))})
		}
		return nil
	}
	return r
}

// loads checks r as the config loader will, with what it checks beyond
// the matcher (host names, for one): written alone, does it load?
func loads(r *matcher.Rule) error {
	if err := Writable(r); err != nil {
		return err
	}
	x := *r
	if x.When != nil && len(x.When.Country) > 0 {
		// Country needs a database to load; the matcher checked the
		// codes, and the command loads the whole config with its
		// [geoip] at the end.
		w := *x.When
		w.Country, x.When = nil, &w
		if w.Empty() {
			x.When = nil
		}
	}
	var b bytes.Buffer
	WriteTOML(&b, "", "", []Rule{{Rule: x}})
	_, err := config.LoadFS(fstest.MapFS{"r.toml": {Data: b.Bytes()}}, "r.toml")
	var ce *config.Error
	if errors.As(err, &ce) {
		return fmt.Errorf("%s: %s", ce.Key, ce.Msg)
	}
	return err
}

func unwrapRule(err error) error {
	if re, ok := err.(*matcher.RuleError); ok {
		return &re.FieldError
	}
	return err
}

// build returns the rules to write: Line is the candidate's index plus
// one, so that a match names its candidate.
func build(cands []Candidate, live, regex []bool) []matcher.Rule {
	var rules []matcher.Rule
	for j := range cands {
		if !live[j] {
			continue
		}
		r := cands[j].Natural
		if r == nil || regex[j] {
			r = cands[j].Regex
		}
		x := *r
		x.Line = j + 1
		rules = append(rules, x)
	}
	return rules
}

func firstMatch(cands []Candidate, r Request) int {
	for i := range cands {
		if cands[i].Matches != nil && strings.HasPrefix(r.Path, cands[i].Prefix) && cands[i].Matches(r) {
			return i
		}
	}
	return -1
}

func queryBytes(q string) []byte {
	if q == "" {
		return nil
	}
	return []byte(q)
}

// diff is a request the written rules answer otherwise than the source:
// want and got are candidates' indexes, -1 for none.
type diff struct {
	req       Request
	want, got int
}

// differs describes the requests the written rules answer otherwise than
// the source would: one note per rule of redirectd that answers them,
// naming the source lines that should have (a host rule placed after
// host-less ones takes over all of them on its host).
func differs(cands []Candidate, diffs []diff, live []bool) []Note {
	byGot := map[int][]diff{}
	var order []int
	for _, d := range diffs {
		if len(byGot[d.got]) == 0 {
			order = append(order, d.got)
		}
		byGot[d.got] = append(byGot[d.got], d)
	}
	var notes []Note
	for _, got := range order {
		ds := byGot[got]
		dst := "redirectd redirects nothing (404 or [upstream])"
		if got >= 0 {
			dst = fmt.Sprintf("redirectd answers with line %d", cands[got].Line)
		}
		for len(ds) > 0 {
			d := ds[0]
			file, line := "", 0
			if d.want >= 0 {
				file, line = cands[d.want].File, cands[d.want].Line
			} else if got >= 0 {
				file, line = cands[got].File, cands[got].Line
			}
			if len(ds) > 2 && got >= 0 {
				lines := make([]string, len(ds))
				for i, x := range ds {
					lines[i] = source(cands, x.want, live)
				}
				notes = append(notes, Note{file, line, Differs, fmt.Sprintf("%s and %s: %s apply, %s", reqString(d.req), plural.Count(len(ds)-1, "more request"), strings.Join(lines, ", "), dst)})
				break
			}
			notes = append(notes, Note{file, line, Differs, fmt.Sprintf("%s: %s applies, %s", reqString(d.req), source(cands, d.want, live), dst)})
			ds = ds[1:]
		}
	}
	return notes
}

// source names what the source does with a request: the line that
// applies, and what it does when it is not translated.
func source(cands []Candidate, i int, live []bool) string {
	switch {
	case i < 0:
		return "no rule"
	case !live[i] && cands[i].What != "":
		return fmt.Sprintf("line %d (%s, not translated)", cands[i].Line, cands[i].What)
	}
	return fmt.Sprintf("line %d", cands[i].Line)
}

func reqString(s Request) string {
	req := s.Host + s.Path
	if s.Query != "" {
		req += "?" + s.Query
	}
	if s.Client != nil {
		req += " (" + s.Client.String() + ")"
	}
	return req
}

// maxHosts bounds the hosts addHostSamples asks about.
const maxHosts = 20

// addHostSamples asks every host-less sample again on each host a rule
// names: a host rule after a host-less one for the same path must not
// take it (cert-manager's `https://docs.cert-manager.io/* ... 302!`
// after its host-less rules), which file order keeps and these samples
// check.
func addHostSamples(cands []Candidate) {
	var hosts []string
	seen := map[string]bool{"": true}
	for _, c := range cands {
		for _, s := range c.Samples {
			if !seen[s.Host] && len(hosts) < maxHosts {
				seen[s.Host] = true
				hosts = append(hosts, s.Host)
			}
		}
	}
	if len(hosts) == 0 {
		return
	}
	for j := range cands {
		c := &cands[j]
		n := len(c.Samples)
		for _, s := range c.Samples[:n] {
			if s.Host != "" {
				continue
			}
			for _, h := range hosts {
				c.Samples = append(c.Samples, Request{h, s.Path, s.Query, s.Client})
			}
		}
	}
}

// resolve settles the clashes Compile reports between rules: each rule
// blamed is written as a regex, or, when it is one already, left out with
// a note. It reports whether it found a rule to blame.
func resolve(res *Result, cands []Candidate, err error, live, regex []bool) bool {
	found := false
	for _, e := range flatten(err) {
		var re *matcher.RuleError
		if !errors.As(e, &re) || re.Rule.Line < 1 || re.Rule.Line > len(cands) {
			continue
		}
		j := re.Rule.Line - 1
		c := &cands[j]
		found = true
		if !regex[j] && c.Natural != nil && c.Regex != nil {
			regex[j] = true
			continue
		}
		live[j] = false
		res.Notes = append(res.Notes, Note{c.File, c.Line, LeftOut, fmt.Sprintf("%s: %v; left out", c.Text, &re.FieldError)})
	}
	return found
}

func flatten(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, flatten(e)...)
		}
		return out
	}
	return []error{err}
}
