package apache

import (
	"fmt"
	"strings"

	"github.com/redirectd/redirectd/config/importer"
)

// ifRewrite writes the RewriteRules of a .htaccess's <If>, <ElseIf>,
// <Else> chains. Apache merges the first section of a chain that holds
// over the directory's config, and a section with mod_rewrite
// directives brings a config of its own: its rules replace the
// directory's, and a later chain's those of an earlier one where its
// section that holds has any: the chains are written last first, each
// run only where no later one's section with rules held. They are
// matched with the file-system path (the section is no directory whose
// prefix mod_rewrite strips), as a <Location>'s are, so only redirects
// are written (locRefused). guard is the variable that is 1 where a
// section's rules ran in place of the directory's; "" where no chain
// holds rules. engine is the directory's RewriteEngine, which a section
// without its own inherits; base and opts are the directory's rules in
// force and its RewriteOptions, which a section merges as a child
// directory does (RewriteOptions Inherit: the directory's rules after
// the section's, matched with the file-system path too, as a real
// Apache answers).
func (t *translator) ifRewrite(dirs []*Directive, engine *Directive, base []*Directive, opts rwOptions) (steps []string, guard string) {
	var chains [][]*Directive
	for _, d := range dirs {
		switch {
		case d.Section && d.Is("If"):
			chains = append(chains, []*Directive{d})
		case d.Section && (d.Is("ElseIf") || d.Is("Else")) && len(chains) > 0 && prevSection(dirs, d) == chains[len(chains)-1][len(chains[len(chains)-1])-1]:
			chains[len(chains)-1] = append(chains[len(chains)-1], d)
		}
	}
	root := strings.TrimSuffix(t.docRoot, "/")
	var all []string
	for ci := len(chains) - 1; ci >= 0; ci-- {
		chain := chains[ci]
		conds := make([]string, len(chain))
		readable, some := true, false
		for i, d := range chain {
			if !d.Is("Else") {
				c, ok := t.ifCondition(d)
				conds[i], readable = c, readable && ok
			}
			some = some || hasRewrite(d.Block)
		}
		if !some || !readable || root == "" || strings.ContainsAny(root, `$"\`) {
			continue // ifChain notes the rules left out
		}
		t.ifChains++
		sel := fmt.Sprintf("a_ifrw%d", t.ifChains)
		out := []string{"set $" + sel + " 0;"}
		if len(all) == 0 {
			out = append(out, "set $a_ifrw 0;")
		}
		for i, d := range chain {
			t.ifHandled[d] = true
			body := []string{"set $" + sel + " 1;"}
			if hasRewrite(d.Block) {
				body = append(body, "set $a_ifrw 1;")
				body = append(body, t.ifSectionRules(d, engine, root, base, opts)...)
			}
			if !d.Is("Else") {
				body = append(append([]string{"if (" + conds[i] + ") {"}, indent(body)...), "}")
			}
			out = append(out, "if ($"+sel+" = 0) {")
			out = append(append(out, indent(body)...), "}")
		}
		if err := compiles([]string{"set $a_ifrw 0;"}, out, t.res.Maps); err != nil {
			t.note(chain[0], importer.LeftOut, "<If %s>'s RewriteRules: the steps written for them do not load (%v); left out", strings.Join(chain[0].Args, " "), err)
			if len(all) == 0 {
				return nil, ""
			}
			continue
		}
		out = append([]string{"# " + commentSafe(chain[0].Source()+": <If "+strings.Join(chain[0].Args, " ")+">'s RewriteRules, in place of the directory's")}, out...)
		if len(all) > 0 {
			// An earlier chain's section is merged before a later
			// one's, whose rules replace its own where it holds.
			out = append(append([]string{"if ($a_ifrw = 0) {"}, indent(out)...), "}")
		}
		all = append(all, out...)
	}
	if len(all) == 0 {
		return nil, ""
	}
	return all, "a_ifrw"
}

// ifSectionRules writes one section's rules, merged over the
// directory's (base, opts), matched with the file-system path under
// root.
func (t *translator) ifSectionRules(d, engine *Directive, root string, base []*Directive, opts rwOptions) []string {
	merged, _ := mergeRules(rulesOf(d.Block), readOptions(d.Block), base, opts)
	rw := withRules(d.Block, merged)
	if engine != nil && !hasDirective(rw, "RewriteEngine") {
		rw = append([]*Directive{engine}, rw...)
	}
	c := &rwCtx{t: t, seen: map[string]bool{}, loc: root}
	rules, on := c.readRules(rw)
	if !on {
		return nil
	}
	return c.writeRules(rules).steps
}
