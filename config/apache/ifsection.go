package apache

import (
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
// Redirects come first, the last section's before the others'. Anything
// else in an <If> that decides a redirect is left out.
func (t *translator) ifSteps(dirs []*Directive) []string {
	var out []string
	for i := len(dirs) - 1; i >= 0; i-- {
		d := dirs[i]
		if !d.Section || !d.Is("If") {
			continue
		}
		cond, ok := t.ifCondition(d)
		var redirects []*Directive
		for _, x := range d.Block {
			switch {
			case !x.Section && isRedirect(x) && ok:
				redirects = append(redirects, x)
			case hasDeciding([]*Directive{x}):
				t.note(x, importer.LeftOut, "%s inside <If %s> is not translated (only Redirects under a variable compared with a string or a regex); left out", x.Name, strings.Join(d.Args, " "))
			}
		}
		if len(redirects) == 0 {
			continue
		}
		steps := t.aliasSteps(redirects)
		if len(steps) == 0 {
			continue
		}
		block := append(append([]string{"if (" + cond + ") {"}, indent(steps)...), "}")
		if err := compiles(nil, block, t.res.Maps); err != nil {
			t.note(d, importer.LeftOut, "<If %s>: the steps written for it do not load (%v); left out", strings.Join(d.Args, " "), err)
			continue
		}
		out = append(append(out, "# "+commentSafe(d.Source()+": <If "+strings.Join(d.Args, " ")+">")), block...)
	}
	return out
}
