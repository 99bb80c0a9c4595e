package apache

// rwSpan is where a location's mod_rewrite steps are: l.Steps[from:to].
type rwSpan struct {
	l        *Location
	from, to int
}

// endRounds skips every directory's mod_rewrite steps once a rule with
// [END] has rewritten: Apache's internal redirect runs the fixup hooks
// of the new path's directory (its Redirects and its parents') but no
// rule of mod_rewrite, so the rule's rewrite chooses the location again
// ("last") with $a_end set, and the new location answers with its
// Redirects only.
func (t *translator) endRounds() {
	if !t.endRound {
		return
	}
	for _, s := range t.rwSpans {
		steps := append([]string{}, s.l.Steps[:s.from]...)
		steps = append(steps, "# [END] rewrote: mod_rewrite runs no more (Redirects do)", `if ($a_end = "") {`)
		steps = append(steps, indent(s.l.Steps[s.from:s.to])...)
		steps = append(append(steps, "}"), s.l.Steps[s.to:]...)
		s.l.Steps = steps
	}
}
