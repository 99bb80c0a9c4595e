package apache

import (
	"strconv"
	"strings"

	"github.com/redirectd/redirectd/config/importer"
)

// locSection is a main server's <Location> or <LocationMatch> holding
// mod_alias's redirects: the condition on $uri that chooses it, the step
// of its expression-form Redirect (the section's own target, one per
// section) and its Redirects of a path or a regex.
type locSection struct {
	d    *Directive
	cond string
	expr string
	list []*Directive
	// rw are its mod_rewrite directives (RewriteEngine, RewriteCond,
	// RewriteRule), translated where rules says (locRewrite).
	rw []*Directive
}

// locationSteps writes the main server's <Location> and <LocationMatch>
// sections that hold Redirects, and marks them read. Apache merges the
// sections that match the URL-path, in order, before its translate_name
// hooks: mod_alias's tries the expression-form Redirect of the last one
// that has it there, before the server's Redirects (expr); its fixup
// tries it again, then the Redirects of each section, the last
// section's first, before the directory's own (list).
//
// With rules (the main server's sections, where no directory has
// mod_rewrite rules of its own), a section's RewriteRules are written
// too, before the list: mod_rewrite's fixup runs before mod_alias's.
func (t *translator) locationSteps(dirs []*Directive, rules bool) (expr, list []string) {
	var secs []locSection
	for _, d := range dirs {
		if !d.Section || !(d.Is("Location") || d.Is("LocationMatch")) || !hasDeciding(d.Block) {
			continue
		}
		cond, ok := locationCond(d)
		if !ok {
			continue // noted by scanOther
		}
		t.handled[d] = true
		s := locSection{d: d, cond: cond}
		for _, x := range d.Block {
			switch {
			case !x.Section && isRedirect(x) && locExprForm(x):
				if step, ok := t.locExprStep(x); ok {
					s.expr = step
				}
			case !x.Section && isRedirect(x):
				s.list = append(s.list, x)
			case rules && !x.Section && (x.Is("RewriteRule") || x.Is("RewriteCond") || x.Is("RewriteEngine")):
				s.rw = append(s.rw, x)
			case hasDeciding([]*Directive{x}):
				t.note(x, importer.LeftOut, "%s inside <%s %s> is not translated (only mod_alias's redirects); left out", x.Name, d.Name, strings.Join(d.Args, " "))
			}
		}
		secs = append(secs, s)
	}
	for i := len(secs) - 1; i >= 0; i-- {
		if s := secs[i]; s.expr != "" {
			expr = append(expr, "# "+commentSafe(s.d.Source()+": <"+s.d.Name+" "+strings.Join(s.d.Args, " ")+">"), "if ("+s.cond+") { "+s.expr+" }")
		}
	}
	list = t.locRewrite(secs)
	for i := len(secs) - 1; i >= 0; i-- {
		s := secs[i]
		steps := t.aliasSteps(s.list)
		if len(steps) == 0 {
			continue
		}
		list = append(list, "# "+commentSafe(s.d.Source()+": <"+s.d.Name+" "+strings.Join(s.d.Args, " ")+">"), "if ("+s.cond+") {")
		list = append(append(list, indent(steps)...), "}")
	}
	return expr, list
}

// locationCond writes the test of the URL-path that chooses a section:
// <Location /p> is /p and the paths below it, whole segments (as
// ap_location_walk compares), <Location /p/> the paths below it;
// <LocationMatch re> and <Location ~ re> a regex. A wildcard path
// (fnmatch) is not read.
func locationCond(d *Directive) (string, bool) {
	args := d.Args
	regex := d.Is("LocationMatch")
	if len(args) == 2 && args[0] == "~" {
		regex, args = true, args[1:]
	}
	if len(args) != 1 || args[0] == "" {
		return "", false
	}
	if regex {
		if compiles(nil, []string{"if ($uri ~ " + quoteArg(args[0]) + ") { }"}, nil) != nil {
			return "", false
		}
		return "$uri ~ " + quoteArg(args[0]), true
	}
	p := mergeSlashes(args[0])
	if !strings.HasPrefix(p, "/") || strings.ContainsAny(p, "*?[") {
		return "", false
	}
	if strings.HasSuffix(p, "/") {
		return "$uri ~ " + quoteArg("^"+quoteMeta(p)), true
	}
	return "$uri ~ " + quoteArg("^"+quoteMeta(p)+"(/|$)"), true
}

// locExprForm reports whether a Redirect in a section is mod_alias's
// form without a URL-path: [status] URL, or a status that is not a
// redirect alone (add_redirect_internal's reading of its arguments).
func locExprForm(d *Directive) bool {
	if !d.Is("Redirect") {
		return false
	}
	switch len(d.Args) {
	case 1:
		return true
	case 2:
		s, ok := aliasStatus(d.Args[0])
		return ok && s >= 300 && s < 400
	}
	return false
}

// locExprStep writes the expression-form Redirect: its URL (an ap_expr
// string, read only where it is literal text), the request's query
// appended unless the URL has one.
func (t *translator) locExprStep(d *Directive) (string, bool) {
	status, url := 302, d.Args[len(d.Args)-1]
	if len(d.Args) == 2 {
		status, _ = aliasStatus(d.Args[0])
	} else if s, ok := aliasStatus(url); ok {
		if s >= 300 && s < 400 {
			t.note(d, importer.LeftOut, "Redirect %s: a redirect status without a URL; left out", url)
			return "", false
		}
		t.count(d)
		return "return " + strconv.Itoa(s) + ";", true
	}
	if strings.ContainsAny(url, `%$\"`) || strings.TrimSpace(url) == "" {
		t.note(d, importer.LeftOut, "Redirect %s: the URL is an expression (ap_expr) the import does not read; only literal text; left out", url)
		return "", false
	}
	to := url
	if !strings.Contains(url, "?") {
		to += "$is_args$args"
	}
	step := "return " + strconv.Itoa(status) + " " + quoteArg(to) + ";"
	if err := compiles(nil, []string{step}, nil); err != nil {
		t.note(d, importer.LeftOut, "Redirect %s: the step written for it does not load (%v); left out", url, err)
		return "", false
	}
	t.count(d)
	return step, true
}

// locRewrite writes the sections' RewriteRules. Apache merges the
// sections that match over the directory's config, a later one's rules
// replacing an earlier one's: the last matching section with rules
// runs them, the first tried here. In a section, mod_rewrite's
// per-directory round matches the pattern with the file-system path
// the URL maps to (DocumentRoot and the path: the section's path is no
// directory prefix it can strip), and a redirect is the only answer the
// import writes; an internal rewrite there is left out.
func (t *translator) locRewrite(secs []locSection) []string {
	var out []string
	for i := len(secs) - 1; i >= 0; i-- {
		s := secs[i]
		if len(s.rw) == 0 {
			continue
		}
		if t.docRoot == "" || strings.ContainsAny(t.docRoot, `$"\`) {
			for _, x := range s.rw {
				if x.Is("RewriteRule") {
					t.note(x, importer.LeftOut, "RewriteRule inside <%s %s>: Apache matches it with the file-system path, and the main server has no DocumentRoot the import can write; left out", s.d.Name, strings.Join(s.d.Args, " "))
				}
			}
			continue
		}
		c := &rwCtx{t: t, seen: map[string]bool{}, loc: strings.TrimSuffix(t.docRoot, "/")}
		rules, on := c.readRules(s.rw)
		if !on {
			for _, r := range rules {
				t.note(r.d, importer.Caveat, "RewriteEngine is not on in <%s %s>: Apache does not run this rule, nor does redirectd", s.d.Name, strings.Join(s.d.Args, " "))
			}
			continue
		}
		rw := c.writeRules(rules)
		if len(rw.steps) == 0 {
			continue
		}
		out = append(out, "# "+commentSafe(s.d.Source()+": <"+s.d.Name+" "+strings.Join(s.d.Args, " ")+">'s RewriteRules"),
			"if ($a_lrw = 0) {", "    if ("+s.cond+") {", "        set $a_lrw 1;")
		out = append(append(out, indent(indent(rw.steps))...), "    }", "}")
	}
	if len(out) > 0 {
		out = append([]string{"set $a_lrw 0;"}, out...)
	}
	return out
}
