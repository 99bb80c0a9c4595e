package edits

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/redirectd/redirectd/engine/admin/edit"
	"github.com/redirectd/redirectd/internal/hostmap"
	"github.com/redirectd/redirectd/matcher"
)

// Draft shows draft id as check -baseline shows a change: the rules
// added, changed and removed (a page of each), a sample URL per entry of
// the page with its answer before and after, and the problems the
// entries would make. Only the entries of in's hosts are shown.
func (ed *State) Draft(id string, in edit.Scope, limit, offset int) (*edit.DraftView, error) {
	// Held while the page is made: entries are counted by their op (an
	// add of a rule that exists was made a change when it came), and
	// only the page's are looked up, so a million-entry draft is one
	// scan.
	d, err := ed.lockDraft(id)
	if err != nil {
		return nil, err
	}
	defer ed.mu.Unlock()
	set := ed.rules()
	v := &edit.DraftView{ID: d.info.ID, Base: d.info.Base, Changes: edit.NoChanges[edit.Rule](),
		Samples: []edit.Sample{}, Problems: []edit.Problem{}}
	var m matcher.Match
	page := func(n int) bool { return n > offset && n <= offset+limit }
	list := d.ov.Edits()
	for i := range list {
		e := &list[i]
		if !in(e.Host) {
			continue
		}
		shown := false
		var old *matcher.Rule
		switch e.Op {
		case edit.OpDelete:
			if v.Counts.Removed++; page(v.Counts.Removed) {
				if old = findEdited(set, &m, &e.Entry); old != nil {
					r := editRule(old)
					en := edit.Entry(e.Entry) // a copy: the draft's list changes
					r.Entry = &en
					v.Removed, shown = append(v.Removed, r), true
				}
			}
		case edit.OpAdd:
			if v.Counts.Added++; page(v.Counts.Added) {
				v.Added, shown = append(v.Added, entryRule(&e.Entry)), true
			}
		default:
			if v.Counts.Changed++; page(v.Counts.Changed) {
				old = findEdited(set, &m, &e.Entry)
				if old == nil { // a regex found by its pattern no longer
					old = &matcher.Rule{Host: e.Host, From: e.From}
				}
				nr := entryRule(&e.Entry)
				if len(e.Query) == 0 && len(e.When) == 0 {
					nr.Conditions = old.Conditions() // kept
				}
				if len(e.Headers) == 0 {
					nr.Headers = edit.HeaderLines(old.Headers)
				}
				v.Changed, shown = append(v.Changed, edit.Change[edit.Rule]{Old: editRule(old), New: nr}), true
			}
		}
		if shown {
			v.Samples = append(v.Samples, samples(set, &m, &e.Entry, old, ed.miss)...)
			v.Problems = append(v.Problems, problems(set, &m, d.ov, &e.Entry)...)
		}
	}
	return v, nil
}

func editRule(r *matcher.Rule) edit.Rule {
	return edit.Rule{Host: r.Host, From: r.From, To: r.To, Status: r.Status, Kind: r.Kind.String(), Conditions: r.Conditions(),
		Headers: edit.HeaderLines(r.Headers)}
}

func entryRule(e *edit.Entry) edit.Rule {
	k := e.Kind
	if k == "" {
		k = "exact"
	}
	conds, hs := e.Shown()
	en := edit.Entry(*e) // a copy: the draft's list changes after
	return edit.Rule{Host: e.Host, From: e.From, To: e.To, Status: e.Status, Kind: k, Conditions: conds, Headers: hs, Entry: &en}
}

// samples is e's from as a URL, answered by the serving rules and as e
// would answer it. A regex's from is not a URL: its sample is the
// pattern, answered as written. When the rule e edits (old, nil for an
// add) answers one scheme only, the URL is answered over http and over
// https: over the other scheme e changes nothing (an edit keeps the
// rule's conditions), unless the rule answering there has e's host and
// from too, as a change edits every rule of its host and from.
func samples(set *matcher.Set, m *matcher.Match, e *edit.Entry, old *matcher.Rule, miss missFunc) []edit.Sample {
	u := e.From
	if e.Host != "" {
		u = "http://" + hostmap.Example(e.Host) + u
	}
	edited := miss(e.Host, e.From)
	if e.Op != edit.OpDelete {
		edited = strconv.Itoa(e.Status)
		if matcher.HasLocation(e.Status) {
			edited += " " + e.To
		}
	}
	if c := e.Conds(); len(c) > 0 {
		// Only the requests that meet them: the others are answered
		// as they were.
		edited += " when " + strings.Join(c, ", ")
	}
	if old == nil || old.When == nil || old.When.Scheme == "" {
		a, _ := answer(set, m, e.Host, e.From, false, miss)
		return []edit.Sample{{URL: u, Old: a, New: edited}}
	}
	var out []edit.Sample
	for _, https := range []bool{false, true} {
		smp := edit.Sample{URL: u}
		if https {
			if e.Host != "" {
				smp.URL = "https://" + strings.TrimPrefix(u, "http://")
			} else {
				smp.URL += " (https)"
			}
		}
		var hit *matcher.Rule
		smp.Old, hit = answer(set, m, e.Host, e.From, https, miss)
		smp.New = smp.Old
		if (old.When.Scheme == "https") == https || hit != nil && hit.Host == e.Host && hit.From == e.From {
			smp.New = edited
		}
		out = append(out, smp)
	}
	return out
}

// answer is what set answers host and path over http or https: "301 /x",
// or miss's answer ("404" or "forwarded"), and the rule that answered
// (nil for none).
func answer(set *matcher.Set, m *matcher.Match, host, path string, https bool, miss missFunc) (string, *matcher.Rule) {
	m.Req = &matcher.FixedRequest{TLS: https}
	defer func() { m.Req = nil }()
	if !set.Lookup([]byte(hostmap.Example(host)), []byte(path), nil, m) {
		return miss(host, path), nil
	}
	a := strconv.Itoa(m.Status())
	if matcher.HasLocation(m.Status()) {
		a += " " + string(m.AppendLocation(nil, nil))
	}
	r := *m.Rule()
	return a, &r
}

// missFunc is the answer to a URL that no rule takes: "forwarded" when
// an upstream group takes it, else "404".
type missFunc func(host, path string) string

// maxChain bounds how far problems follows a chain of redirects.
const maxChain = 10

// problems finds what e would make: a loop (its target leads back to
// its from), a chain (its target redirects again), or e shadowed (a
// prefix or regex rule whose from an exact rule answers first). The
// draft's own entries (ov) are followed before the serving rules.
func problems(set *matcher.Set, m *matcher.Match, ov *Overlay, e *edit.Entry) []edit.Problem {
	var out []edit.Problem
	if e.Op == edit.OpDelete {
		return nil
	}
	if e.Kind == "prefix" || e.Kind == "regex" {
		if set.Lookup([]byte(hostmap.Example(e.Host)), []byte(e.From), nil, m) {
			if r := m.Rule(); r.Kind == matcher.Exact && (r.Host != e.Host || r.From != e.From) {
				out = append(out, edit.Problem{Kind: "shadowed", Detail: fmt.Sprintf("%s: %s is answered first by the exact rule %s", e.String(), cut(e.From), r.Source())})
			}
		}
	}
	if !matcher.HasLocation(e.Status) {
		return out
	}
	path, ok := localTarget(e.Host, e.To)
	hops := []string{e.From}
	for i := 0; ok && i < maxChain; i++ {
		if path == e.From || slices.Contains(hops[1:], path) {
			out = append(out, edit.Problem{Kind: "loop", Detail: fmt.Sprintf("%s: %s comes back to %s", e.String(), strings.Join(append(hops, path), " -> "), cut(path))})
			return out
		}
		next, found := nextHop(set, m, ov, e.Host, path)
		if !found {
			break
		}
		hops = append(hops, path)
		if i == 0 {
			out = append(out, edit.Problem{Kind: "chain", Detail: fmt.Sprintf("%s: its target %s redirects again, to %s; point it at the last target", e.String(), cut(path), cut(next))})
		}
		path, ok = localTarget(e.Host, next)
	}
	return out
}

// nextHop returns where host and path redirect to: by the draft's entry
// for them when it has one, else by the serving rules.
func nextHop(set *matcher.Set, m *matcher.Match, ov *Overlay, host, path string) (string, bool) {
	if d, ok := ov.Get(edit.Key(host, path)); ok {
		if d.Op == edit.OpDelete || !matcher.HasLocation(d.Status) {
			return "", false
		}
		return d.To, true
	}
	if !set.Lookup([]byte(hostmap.Example(host)), []byte(path), nil, m) || !matcher.HasLocation(m.Status()) {
		return "", false
	}
	return string(m.AppendLocation(nil, nil)), true
}

// localTarget returns the path of to when it stays on host: a path, or
// an absolute URL whose host is host.
func localTarget(host, to string) (string, bool) {
	if strings.HasPrefix(to, "/") && !strings.HasPrefix(to, "//") {
		p, _, _ := strings.Cut(to, "?")
		return p, true
	}
	for _, scheme := range []string{"http://", "https://"} {
		if rest, ok := strings.CutPrefix(to, scheme); ok && host != "" {
			h, p, _ := strings.Cut(rest, "/")
			if strings.EqualFold(h, host) {
				p, _, _ = strings.Cut("/"+p, "?")
				return p, true
			}
		}
	}
	return "", false
}
