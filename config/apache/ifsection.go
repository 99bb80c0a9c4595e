package apache

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/redirectd/redirectd/config/importer"
)

// ifExpr reads the ap_expr forms the import translates: a variable
// compared with a string (== or !=) or matched with a regex (=~ or !~,
// /re/ or /re/i, m#re#).
var ifExpr = regexp.MustCompile(`^\s*%\{([A-Za-z_:-]+)\}\s*(==|!=|=~|!~)\s*(.+?)\s*$`)

// ifCondition writes an <If>'s expression as a step's condition.
func (t *translator) ifCondition(d *Directive) (string, bool) {
	if len(d.Args) != 1 {
		return "", false
	}
	m := ifExpr.FindStringSubmatch(d.Args[0])
	if m == nil {
		return "", false
	}
	if strings.HasPrefix(m[1], "ENV:") {
		return "", false
	}
	c := &rwCtx{t: t, seen: map[string]bool{}}
	v, err := c.variable(m[1])
	if err != nil || len(c.inits) > 0 && v != "a_https" {
		return "", false
	}
	if v == "a_https" {
		v = "https" // read from $scheme below
	}
	op, val := m[2], m[3]
	var re string
	ci := false
	switch {
	case op == "==" || op == "!=":
		if len(val) < 2 || (val[0] != '\'' && val[0] != '"') || val[len(val)-1] != val[0] {
			return "", false
		}
		re = "^" + quoteMeta(val[1:len(val)-1]) + "$"
	case strings.HasPrefix(val, "/") && (strings.HasSuffix(val, "/") || strings.HasSuffix(val, "/i")) && len(val) > 2:
		ci = strings.HasSuffix(val, "/i")
		re = strings.TrimSuffix(strings.TrimSuffix(val[1:], "i"), "/")
	case strings.HasPrefix(val, "m#") && strings.HasSuffix(val, "#") && len(val) > 3:
		re = val[2 : len(val)-1]
	default:
		return "", false
	}
	neg := op == "!=" || op == "!~"
	if v == "https" {
		// %{HTTPS} is "on" over TLS, else "off".
		on, err := regexp.Compile(re)
		if err != nil {
			return "", false
		}
		holdsOn, holdsOff := on.MatchString("on") != neg, on.MatchString("off") != neg
		switch {
		case holdsOn && holdsOff:
			return "$scheme ~ .", true
		case holdsOn:
			return "$scheme = https", true
		case holdsOff:
			return "$scheme = http", true
		}
		return "$scheme = never", true
	}
	cop := "~"
	if ci {
		cop = "~*"
	}
	if neg {
		cop = "!" + cop
	}
	return "$" + v + " " + cop + " " + quoteArg(re), true
}

// ifSteps writes the Redirects of a context's <If> sections: where the
// expression holds, Apache merges the section over the context, so its
// Redirects come first, the last section's before the others'. Of an
// <If>, <ElseIf>..., <Else> chain, the first section that holds is the
// one merged. Anything else in a section that decides a redirect is left
// out, and a whole chain where one of its expressions is not read.
func (t *translator) ifSteps(dirs []*Directive) []string {
	var chains [][]*Directive
	for _, d := range dirs {
		switch {
		case !d.Section:
		case d.Is("If"):
			chains = append(chains, []*Directive{d})
		case d.Is("ElseIf") || d.Is("Else"):
			if n := len(chains); n > 0 && chains[n-1][len(chains[n-1])-1] == prevSection(dirs, d) && !chains[n-1][len(chains[n-1])-1].Is("Else") {
				chains[n-1] = append(chains[n-1], d)
			} else if hasDeciding(d.Block) {
				t.note(d, importer.LeftOut, "<%s> without an <If> or <ElseIf> just before it: Apache refuses it; left out", d.Name)
			}
		}
	}
	var out []string
	for i := len(chains) - 1; i >= 0; i-- {
		out = append(out, t.ifChain(chains[i])...)
	}
	return out
}

// prevSection returns the directive just before d in dirs, nil if none.
func prevSection(dirs []*Directive, d *Directive) *Directive {
	for i := 1; i < len(dirs); i++ {
		if dirs[i] == d {
			return dirs[i-1]
		}
	}
	return nil
}

// ifChain writes one <If> chain: an <If> alone as an if; a chain with
// a variable that the first section that holds sets, so that the later
// ones do not run (the steps have no else).
func (t *translator) ifChain(chain []*Directive) []string {
	conds := make([]string, len(chain))
	redirects := make([][]*Directive, len(chain))
	readable := true
	for i, d := range chain {
		if !d.Is("Else") {
			c, ok := t.ifCondition(d)
			conds[i], readable = c, readable && ok
		}
	}
	for i, d := range chain {
		for _, x := range d.Block {
			switch {
			case !x.Section && isRedirect(x) && readable:
				redirects[i] = append(redirects[i], x)
			case t.ifHandled[d] && !x.Section && strings.HasPrefix(strings.ToLower(x.Name), "rewrite"):
				// ifRewrite writes the section's mod_rewrite rules.
			case hasDeciding([]*Directive{x}):
				t.note(x, importer.LeftOut, "%s inside <%s %s> is not translated (only Redirects under a variable compared with a string or a regex, in a chain whose every expression is); left out", x.Name, d.Name, strings.Join(d.Args, " "))
			}
		}
	}
	some := false
	for _, r := range redirects {
		some = some || len(r) > 0
	}
	if !some {
		return nil
	}
	var block []string
	flag := ""
	if len(chain) > 1 {
		t.ifChains++
		flag = fmt.Sprintf("a_if%d", t.ifChains)
		block = append(block, "set $"+flag+" 0;")
	}
	for i, d := range chain {
		steps := t.aliasSteps(redirects[i])
		if flag != "" && d != chain[len(chain)-1] {
			steps = append([]string{"set $" + flag + " 1;"}, steps...)
		}
		if len(steps) == 0 {
			continue
		}
		sec := steps
		if !d.Is("Else") {
			sec = append(append([]string{"if (" + conds[i] + ") {"}, indent(steps)...), "}")
		}
		if i > 0 {
			sec = append(append([]string{"if ($" + flag + " = 0) {"}, indent(sec)...), "}")
		}
		block = append(block, sec...)
	}
	if err := compiles(nil, block, t.res.Maps); err != nil {
		t.note(chain[0], importer.LeftOut, "<If %s>: the steps written for it do not load (%v); left out", strings.Join(chain[0].Args, " "), err)
		return nil
	}
	return append([]string{"# " + commentSafe(chain[0].Source()+": <If "+strings.Join(chain[0].Args, " ")+">")}, block...)
}
