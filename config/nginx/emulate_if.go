package nginx

import "strings"

// ifCond is an if's condition as the model of nginx evaluates it: a
// value's truth, or the value compared (=, !=) with another or tested
// against a regex (~, ~*, !~, !~*).
type ifCond struct {
	left, right []part
	op          string
	re          *nginxRegex
}

// readIfAny reads an if the forms of readIf do not cover. Without it the
// model skipped such an if and answered as if it were not there, so the
// self-check reported the import's faithful translation of, say, `if
// ($uri ~ ...) { return 301 ...; }` or `if ($flag) { return ...; }` as an
// answer that differs. An if on the site's files is skipped: the import
// leaves it out, and says so. A condition the model cannot read makes the
// answer of every request that reaches it unknown.
func (m *model) readIfAny(d *Directive, l *location) *step {
	c := ifCondition(d.Args)
	opaque := &step{d: d, kind: stepOpaque, loc: l}
	if len(c) == 0 {
		return opaque
	}
	if fileTests[strings.TrimPrefix(c[0], "!")] {
		return nil
	}
	left, err := parseTarget(c[0])
	if err != nil {
		return opaque
	}
	cond := &ifCond{left: left}
	switch {
	case len(c) == 1:
	case len(c) == 3 && (c[1] == "=" || c[1] == "!="):
		if cond.right, err = parseTarget(c[2]); err != nil {
			return opaque
		}
		cond.op = c[1]
	case len(c) == 3 && strings.HasPrefix(strings.TrimPrefix(c[1], "!"), "~"):
		op := strings.TrimPrefix(c[1], "!")
		if op != "~" && op != "~*" {
			return opaque
		}
		if cond.re, err = compileRegex(c[2], op == "~*"); err != nil {
			return opaque
		}
		cond.op = c[1]
	default:
		return opaque
	}
	st := &step{d: d, kind: stepIf, loc: l, cond: cond}
	for _, b := range d.Block {
		if s := m.readStep(b, l); s != nil {
			st.block = append(st.block, s)
		}
	}
	return st
}

// readSet reads `set $var value`.
func (m *model) readSet(d *Directive, l *location) *step {
	if len(d.Args) != 2 || !strings.HasPrefix(d.Args[0], "$") {
		return &step{d: d, kind: stepOpaque, loc: l}
	}
	val, err := parseTarget(d.Args[1])
	if err != nil {
		return &step{d: d, kind: stepOpaque, loc: l}
	}
	return &step{d: d, kind: stepSet, loc: l, setVar: strings.Trim(d.Args[0], "${}"), setVal: val}
}

// runSet sets a variable; `set $args` changes the query string that
// $args, $is_args and a redirecting rewrite read afterwards, as in
// nginx. A value the model cannot render makes the variable unknown.
func (c *evalCtx) runSet(st *step) {
	v, ok := c.render(st.setVal)
	if c.vars == nil {
		c.vars = map[string]*string{}
	}
	switch {
	case !ok:
		c.vars[st.setVar] = nil
	case st.setVar == "args":
		c.args = v
	default:
		c.vars[st.setVar] = &v
	}
}

// test evaluates an if's condition; known is false where it reads a
// value the model does not know.
func (c *evalCtx) test(cond *ifCond) (ok, known bool) {
	v, known := c.render(cond.left)
	if !known {
		return false, false
	}
	switch cond.op {
	case "":
		return v != "" && v != "0", true
	case "=", "!=":
		r, known := c.render(cond.right)
		return (v == r) == (cond.op == "="), known
	}
	sub := cond.re.re.FindStringSubmatch(v)
	if strings.HasPrefix(cond.op, "!") {
		return sub == nil, true
	}
	if sub == nil {
		return false, true
	}
	// A matching regex condition's captures are what later steps read.
	c.groups, c.names = sub, map[string]string{}
	for i, n := range cond.re.re.SubexpNames() {
		if n != "" {
			c.names[n] = sub[i]
		}
	}
	return true, true
}

// requestVariable is a variable of the request that the self-check's
// requests (GET, no header but Host, no cookie) give.
func (c *evalCtx) requestVariable(name string) (string, bool) {
	switch {
	case name == "request_method":
		return "GET", true
	case name == "server_port":
		return [2]string{"80", "443"}[kindOf(c.req.https)], true
	case name == "http_host":
		return c.req.host, true
	case strings.HasPrefix(name, "http_"), strings.HasPrefix(name, "cookie_"):
		return "", true
	case strings.HasPrefix(name, "arg_"):
		for _, kv := range strings.Split(c.args, "&") {
			if k, v, _ := strings.Cut(kv, "="); strings.EqualFold(k, name[4:]) {
				return v, true
			}
		}
		return "", true
	}
	if c.m == nil {
		return "", false
	}
	if mp := c.m.maps[name]; mp != nil {
		if v, ok := c.mapValue[name]; ok {
			return v, true
		}
		return c.mapLookup(mp)
	}
	return "", false
}
