package apache

import "strings"

// rwOptions are the RewriteOptions that decide which rules a context
// inherits; set says the context gives RewriteOptions itself (else it
// takes its parent's, as mod_rewrite's merge does).
type rwOptions struct {
	inherit, before, down, downBefore, ignore, set bool
}

// readOptions reads a context's RewriteOptions (the last one holds).
func readOptions(dirs []*Directive) rwOptions {
	var o rwOptions
	for _, d := range dirs {
		if d.Section || !d.Is("RewriteOptions") {
			continue
		}
		o = rwOptions{set: true}
		for _, a := range d.Args {
			switch strings.ToLower(a) {
			case "inherit":
				o.inherit = true
			case "inheritbefore":
				o.before = true
			case "inheritdown":
				o.down = true
			case "inheritdownbefore":
				o.downBefore = true
			case "ignoreinherit":
				o.ignore = true
			}
		}
	}
	return o
}

// inheritOption reports whether a RewriteOptions argument is one of
// those readOptions reads.
func inheritOption(a string) bool {
	switch strings.ToLower(a) {
	case "inherit", "inheritbefore", "inheritdown", "inheritdownbefore", "ignoreinherit":
		return true
	}
	return false
}

// rulesOf returns the RewriteCond and RewriteRule directives of dirs.
func rulesOf(dirs []*Directive) []*Directive {
	return directivesNamed(dirs, "RewriteCond", "RewriteRule")
}

// mergeRules merges a context's rules over its parent's as mod_rewrite's
// config_perdir_merge and config_server_merge do: the options are the
// context's own, else the parent's; with Inherit (or the parent's
// InheritDown, unless IgnoreInherit) the parent's rules follow the
// context's, with InheritBefore (InheritDownBefore) they come first,
// else the context's rules are its own alone.
func mergeRules(own []*Directive, ownOpts rwOptions, base []*Directive, baseOpts rwOptions) ([]*Directive, rwOptions) {
	eff := ownOpts
	if !ownOpts.set {
		eff = baseOpts
	}
	switch {
	case eff.inherit || baseOpts.down && !eff.ignore:
		return append(append([]*Directive{}, own...), base...), eff
	case eff.before || baseOpts.downBefore && !eff.ignore:
		return append(append([]*Directive{}, base...), own...), eff
	}
	return own, eff
}

// withRules returns dirs with its RewriteCond and RewriteRule directives
// replaced by rules (the others, RewriteBase among them, are the
// context's own).
func withRules(dirs, rules []*Directive) []*Directive {
	var out []*Directive
	for _, d := range dirs {
		if d.Section || !(d.Is("RewriteCond") || d.Is("RewriteRule")) {
			out = append(out, d)
		}
	}
	return append(out, rules...)
}

// dirRules returns the rules in force in a .htaccess's directory that
// has mod_rewrite directives of its own: its own merged over those of
// the nearest parent that has any (a .htaccess without mod_rewrite
// directives leaves its parent's config as it is), and the options
// that hold there.
func dirRules(h HTAccess, parents []HTAccess) ([]*Directive, rwOptions) {
	own, opts := rulesOf(h.Dirs), readOptions(h.Dirs)
	for i, p := range parents {
		if hasRewrite(p.Dirs) {
			base, baseOpts := dirRules(p, parents[i+1:])
			return mergeRules(own, opts, base, baseOpts)
		}
	}
	return own, opts
}

// vhostDirs returns a virtual host's directives with the rules the main
// server's it inherits (RewriteOptions Inherit and the like), and the
// main server's RewriteEngine where it sets none, as mod_rewrite's
// config_server_merge merges them.
func vhostDirs(v, main []*Directive) []*Directive {
	if !hasRewrite(v) {
		// Without mod_rewrite directives, a virtual host's rules
		// are none unless the main server's InheritDown gives it
		// them.
		if o := readOptions(main); !(o.down || o.downBefore) {
			return v
		}
	}
	rules, _ := mergeRules(rulesOf(v), readOptions(v), rulesOf(main), readOptions(main))
	out := withRules(v, rules)
	if !hasDirective(v, "RewriteEngine") {
		if e := lastDirective(main, "RewriteEngine"); e != nil {
			out = append([]*Directive{e}, out...)
		}
	}
	return out
}
