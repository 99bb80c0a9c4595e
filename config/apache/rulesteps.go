package apache

import (
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/redirectd/redirectd/config/importer"
)

// rule writes one RewriteRule and its conditions as steps:
//
//	if ($uri ~ PATTERN) {          (the path stripped of the directory)
//	    if (COND1) { if (COND2) {  (an [OR] group through a flag)
//	        #action
//	        rewrite PATTERN SUBST permanent;
//	    } }
//	}
//
// Apache matches the pattern first and the conditions after; the
// action matches the pattern again, so that $1.. are the rule's own
// groups there, whatever the conditions' regexes captured; %1.. are
// saved as each condition matches. internal says the rule rewrites the
// URI without ending the context's rules.
func (c *rwCtx) rule(r rule) (lines []string, internal bool, err error) {
	c.cur = r.d
	if r.has("P") && c.loc == "" {
		lines, r2, err := c.proxyRule(r)
		if err != nil || lines != nil {
			return lines, false, err
		}
		r = r2
	}
	if err := refused(r); err != nil {
		return nil, false, err
	}
	if err := c.flagNotes(r); err != nil {
		return nil, false, err
	}
	re, err := c.rulePattern(r)
	if err != nil {
		return nil, false, err
	}
	ci := r.has("NC")
	c.whole = c.wholeStep(r)
	c.pre, c.wantR, c.rawOf, c.qcheck = nil, [10]bool{}, map[string]string{}, ""
	c.bflag, c.bfunc, c.bflags = r.has("B") || r.has("BCTLS"), backrefFunc(r), backrefFlags(r)
	action, internal, err := c.action(r, re, ci)
	if err != nil {
		return nil, false, err
	}
	// Backreferences: $N the conditions read need the rule's groups
	// saved; %N anything reads need each matching condition's saved.
	refs := c.refs(r)
	for n, w := range c.wantR {
		refs['$'][n] = refs['$'][n] || w
	}
	for n := range 10 {
		if refs['%'][n] {
			c.init(fmt.Sprintf("set $a_c%d \"\";", n))
		}
	}
	inner, err := c.inner(r, action, refs)
	if err != nil {
		return nil, false, err
	}
	inner = append(append(c.pre, inner...), action...)
	body, err := c.conds(r.conds, refs, inner)
	if err != nil {
		return nil, false, err
	}
	op := "~"
	if ci {
		op = "~*"
	}
	if r.neg {
		op = "!" + op
	}
	var head []string
	for n := 1; n < 10; n++ {
		if refs['$'][n] {
			v := fmt.Sprintf("a_r%d", n)
			c.init("set $" + v + ` "";`)
			head = append(head, fmt.Sprintf("set $%s $%d;", v, n))
		}
	}
	if refs['$'][0] {
		// Last: the step may match a regex of its own.
		c.init(`set $a_r0 "";`)
		head = append(head, c.whole)
	}
	if len(r.conds) == 0 && len(head) == 0 && len(body) == len(action)+1 && !r.neg && !c.stripped && c.loc == "" && !r.has("S") && !r.has("C") && !r.has("PT") && !internal && len(action) == 1 && strings.HasPrefix(action[0], "rewrite ") && (c.dir == "" || len(c.t.fixup) == 0 && !r.has("END")) {
		return action, internal, nil // one regex: the rewrite's own
	}
	lines = append([]string{"if (" + c.subject() + " " + op + " " + quoteArg(re) + ") {"}, indent(append(head, body...))...)
	if c.loc != "" {
		c.init(`set $a_fpath "";`)
		lines = append([]string{"set $a_fpath " + quoteArg(c.loc+"$uri") + ";"}, lines...)
	}
	if c.stripped {
		c.init(`set $a_strip "";`)
		lines = append([]string{`set $a_strip "";`, "if ($uri ~ " + quoteArg("^"+quoteMeta(c.dir)+"(.*)$") + ") { set $a_strip $1; }"}, lines...)
	}
	return append(lines, "}"), internal, nil
}

// wholeStep is the step that saves the rule's $0, the string its
// pattern matched: the subject (the path, less the directory's prefix
// per directory) where the pattern is anchored at both ends; "" for
// other patterns, whose $0 is left out.
func (c *rwCtx) wholeStep(r rule) string {
	switch {
	case r.neg || c.loc != "" || !anchoredWhole(r.pattern):
		return ""
	case c.dir == "":
		return "set $a_r0 $uri;"
	case c.stripped:
		return "set $a_r0 $a_strip;"
	}
	return "if ($uri ~ " + quoteArg("^"+quoteMeta(c.dir)+"(.*)$") + ") { set $a_r0 $1; }"
}

// wholeRef writes $0 to b: $a_r0, which the rule's wholeStep saves.
func (c *rwCtx) wholeRef(b *strings.Builder, escape bool) error {
	if c.whole == "" {
		return fmt.Errorf("$0 of a pattern not anchored at both ends (^...$) is not translated; left out")
	}
	c.wantR[0] = true
	v := "${a_r0}"
	if c.bflag || escape {
		var err error
		if v, err = c.backref(v, escape); err != nil {
			return err
		}
	}
	b.WriteString(v)
	return nil
}

// anchoredWhole reports a regex of one alternative between '^' and an
// unescaped '$': what it matches is all of the string.
func anchoredWhole(p string) bool {
	alts, ok := topAlternatives(p)
	if !ok || len(alts) != 1 || !strings.HasPrefix(p, "^") || !strings.HasSuffix(p, "$") {
		return false
	}
	n := 0
	for i := len(p) - 2; i >= 0 && p[i] == '\\'; i-- {
		n++
	}
	return n%2 == 0
}

// flagNotes notes the flags a rule is translated with a caveat for,
// and refuses those the rule's context cannot say.
func (c *rwCtx) flagNotes(r rule) error {
	if r.has("CO") {
		c.t.note(r.d, importer.Caveat, "[CO=%s]: the cookie is not set; the rule's answer is", r.flags["CO"])
	}
	if c.loc != "" && (r.has("N") || r.has("PT") || r.has("P")) {
		return fmt.Errorf("[N], [P] or [PT] inside <Location> (a per-directory round on the file-system path) is not translated; left out")
	}
	if r.has("N") {
		if r.subst == "-" {
			return fmt.Errorf("[N] on a rule that does not rewrite (Apache starts the rules again on the same URI until its bound); left out")
		}
		// A location's steps start again after a rewrite with last:
		// the rules from the first, on the new URI; in server context,
		// the rules are written again for each round (writeRules).
		c.t.note(r.d, importer.Caveat, "[N]: the rules start again at most 10 times (redirectd's bound on a request's URI changes, then 500), where Apache allows %s", map[bool]string{true: r.flags["N"], false: "10000"}[r.flags["N"] != ""])
		if !r.has("DPI") && c.dir != "" {
			c.t.note(r.d, importer.Caveat, "[N] without [DPI]: at each round Apache appends the path's PATH_INFO (the part below the deepest existing file or directory), which the import does not know: exact where there is none")
		}
	}
	return nil
}

// rulePattern is pattern, or where a '^' stands inside a group
// ("(^|/)\.") the rule's own pattern, matched with the path stripped of
// the directory in a variable (c.stripped), where the rule reads none of
// its groups.
func (c *rwCtx) rulePattern(r rule) (string, error) {
	re, err := c.pattern(r.pattern)
	c.stripped = false
	if err != nil && !readsGroups(r) {
		c.stripped = true
		return r.pattern, nil
	}
	return re, err
}

// readsGroups reports whether a rule's substitution, flags or
// conditions read its groups ($0..$9).
func readsGroups(r rule) bool {
	texts := []string{r.subst, r.flags["E"]}
	for _, cd := range r.conds {
		texts = append(texts, cd.test)
	}
	for _, s := range texts {
		for i := 0; i+1 < len(s); i++ {
			if s[i] == '\\' {
				i++
				continue
			}
			if s[i] == '$' && s[i+1] >= '0' && s[i+1] <= '9' {
				return true
			}
		}
	}
	return false
}

// inner is what runs where the rule's conditions hold, before its
// action: the 403 of a '?' decoded from %3F, [E=]'s variables.
func (c *rwCtx) inner(r rule, action []string, refs map[byte]*[10]bool) ([]string, error) {
	inner := []string{"#action"}
	if len(action) > 0 && !r.has("F") && !r.has("G") && mayHoldQuestion(c.qcheck) && !r.has("UNSAFEALLOW3F") {
		// A '?' decoded from %3F that an expansion carries into the
		// substitution before its first literal '?' (its last, with
		// [QSL]) is refused with 403: Apache 2.4.60's UnsafeAllow3F.
		q := c.qcheck
		for esc, raw := range c.rawOf {
			q = strings.ReplaceAll(q, esc, raw)
		}
		for n := range 10 {
			if d := fmt.Sprintf("$%d", n); strings.Contains(q, d) {
				refs['$'][n] = true
				q = strings.ReplaceAll(q, d, fmt.Sprintf("${a_r%d}", n))
			}
		}
		inner = []string{"set $a_q " + quoteArg(q) + ";", `if ($a_q ~ "\?") { return 403; }`, "#action"}
		c.init(`set $a_q "";`)
	}
	for _, e := range strings.Split(r.flags["E"], ",") {
		if e == "" {
			continue
		}
		name, val, _ := strings.Cut(strings.TrimPrefix(e, "!"), ":")
		v := "a_env_" + varSafe(name)
		c.init("set $" + v + ` "";`)
		vv, err := c.expand(val, false)
		if err != nil {
			return nil, err
		}
		inner = append(inner, "set $"+v+" "+quoteArg(vv)+";")
	}
	return inner, nil
}

// mayHoldQuestion reports whether the expanded value v reads a variable
// that may hold a '?': anything but the host, scheme, port and method.
func mayHoldQuestion(v string) bool {
	for _, safe := range []string{"${http_host}", "${host}", "${scheme}", "${server_port}", "${request_method}", "${a_https}"} {
		v = strings.ReplaceAll(v, safe, "")
	}
	return strings.Contains(v, "$")
}

// refused says why a rule is not written: a condition left out, a flag
// the steps cannot say.
func refused(r rule) error {
	for _, cd := range r.conds {
		if cd.d == nil {
			return fmt.Errorf("left out with its condition")
		}
	}
	if r.has("P") {
		return fmt.Errorf("a forward ([P]) is not translated yet; left out")
	}
	if r.has("BNE") && r.flags["BNE"] == "" {
		return fmt.Errorf("[BNE] without the characters not to escape: Apache refuses the rule; left out")
	}
	if r.has("T") || r.has("H") {
		return servedErr{"a handler or type ([T], [H]) is the site's content"}
	}
	return nil
}

// subject is what a rule's pattern is matched with: the path; in a
// directory's rules, its own prefix is part of the pattern.
func (c *rwCtx) subject() string {
	if c.loc != "" {
		return "$a_fpath"
	}
	if c.stripped {
		return "$a_strip"
	}
	return "$uri"
}

// pattern writes a rule's pattern for nginx's $uri: in server context
// as it is; per directory, Apache strips the directory's prefix before
// matching, so the pattern is anchored after it.
func (c *rwCtx) pattern(p string) (string, error) {
	if c.dir == "" {
		return p, nil
	}
	alts, ok := topAlternatives(p)
	if !ok {
		return "", fmt.Errorf("pattern %q anchors inside a group: the directory prefix cannot be added to it; left out", p)
	}
	pre := "^" + quoteMeta(c.dir)
	for i, a := range alts {
		if strings.HasPrefix(a, "^") {
			alts[i] = pre + a[1:]
		} else {
			alts[i] = pre + ".*?" + a
		}
	}
	return strings.Join(alts, "|"), nil
}

// topAlternatives splits a regex at its top-level '|'; ok is false
// where a '^' stands anywhere but at an alternative's start (outside
// classes and escapes).
func topAlternatives(p string) ([]string, bool) {
	var alts []string
	depth, start := 0, 0
	for i, c := range importer.PatternMeta(p) {
		switch {
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == '|' && depth == 0:
			alts = append(alts, p[start:i])
			start = i + 1
		case c == '^' && (depth > 0 || i != start):
			return nil, false
		}
	}
	return append(alts, p[start:]), true
}

// refs lists the $N and %N the rule's conditions and substitution read.
func (c *rwCtx) refs(r rule) map[byte]*[10]bool {
	refs := map[byte]*[10]bool{'$': {}, '%': {}}
	scan := func(s string, dollar bool) {
		for i := 0; i+1 < len(s); i++ {
			if s[i] == '\\' {
				i++
				continue
			}
			if (s[i] == '$' && dollar || s[i] == '%') && s[i+1] >= '0' && s[i+1] <= '9' {
				refs[s[i]][s[i+1]-'0'] = true
			}
		}
	}
	for _, cd := range r.conds {
		scan(cd.test, true)
	}
	scan(r.subst, false)
	return refs
}

// conds nests inner in the rule's conditions, [OR] groups through a
// flag variable.
func (c *rwCtx) conds(cs []cond, refs map[byte]*[10]bool, inner []string) ([]string, error) {
	if len(cs) == 0 {
		return inner, nil
	}
	end := 1
	for end <= len(cs) && cs[end-1].or && end < len(cs) {
		end++
	}
	group, rest := cs[:end], cs[end:]
	in, err := c.conds(rest, refs, inner)
	if err != nil {
		return nil, err
	}
	var saves []string
	for n := range 10 {
		if refs['%'][n] {
			v := fmt.Sprintf("a_c%d", n)
			c.init("set $" + v + ` "";`)
			saves = append(saves, fmt.Sprintf("set $%s $%d;", v, n))
		}
	}
	if len(group) == 1 {
		head, test, err := c.cond(group[0])
		if err != nil {
			return nil, err
		}
		body := in
		if isRegexCond(group[0]) {
			body = append(append([]string{}, saves...), in...)
		}
		return append(append(head, "if ("+test+") {"), append(indent(body), "}")...), nil
	}
	v := c.newVar("or")
	out := []string{"set $" + v + " 0;"}
	for i, cd := range group {
		head, test, err := c.cond(cd)
		if err != nil {
			return nil, err
		}
		body := []string{"set $" + v + " 1;"}
		if isRegexCond(cd) {
			body = append(body, saves...)
		}
		lines := append(head, "if ("+test+") {")
		lines = append(append(lines, indent(body)...), "}")
		if i > 0 {
			lines = append(append([]string{"if ($" + v + " = 0) {"}, indent(lines)...), "}")
		}
		out = append(out, lines...)
	}
	out = append(out, "if ($"+v+" = 1) {")
	return append(append(out, indent(in)...), "}"), nil
}

func isRegexCond(cd cond) bool {
	if cd.negative {
		return false
	}
	p := cd.pattern
	return !strings.HasPrefix(p, "=") && !strings.HasPrefix(p, "<") && !strings.HasPrefix(p, ">") && !strings.HasPrefix(p, "-")
}

// cond writes one condition as an if's test, with the steps that set
// its test string first where it is more than one variable.
func (c *rwCtx) cond(cd cond) (head []string, test string, err error) {
	p := cd.pattern
	if strings.EqualFold(cd.test, "expr") {
		// The ap_expr forms an <If> takes: a variable compared with a
		// string or matched with a regex.
		test, ok := c.t.ifCondition(&Directive{Name: "RewriteCond", Args: []string{p}, File: cd.d.File, Line: cd.d.Line})
		if !ok || cd.nc {
			return nil, "", fmt.Errorf("RewriteCond expr %q: only a variable compared with a string (==, !=) or a regex (=~, !~), without [NC], is translated; its rule is left out", p)
		}
		if cd.negative {
			test = negateTest(test)
		}
		return nil, test, nil
	}
	if p == "" {
		// An empty pattern matches any test string: mod_rewrite's
		// parseargline gives one to a condition whose only argument
		// is quoted ("! -f %{REQUEST_FILENAME}"), which Apache then
		// takes as always true (as never, negated).
		c.t.note(cd.d, importer.Caveat, "RewriteCond %q with no pattern: Apache reads an empty regex, which any test string matches; the test string is not read", cd.test)
		if cd.negative {
			return nil, `$uri !~ ""`, nil
		}
		return nil, `$uri ~ ""`, nil
	}
	intRe, intNeg, isInt, intErr := intCompare(p)
	switch {
	case isInt && intErr != nil:
		return nil, "", fmt.Errorf("RewriteCond at %s: %v; its rule is left out", cd.d.Source(), intErr)
	case isInt:
	case strings.HasPrefix(p, "-") && len(p) == 2 && strings.ContainsRune("dfsslLhFUxe", rune(p[1])):
		return nil, "", servedErr{fmt.Sprintf("RewriteCond %s %s: a file test reads the site's files, which redirectd does not have: the rule is the site's own, not written", cd.test, cd.d.Args[1])}
	case strings.HasPrefix(p, "-"), (strings.HasPrefix(p, "<") || strings.HasPrefix(p, ">")) && (cd.nc || !lexicalOK(p)):
		return nil, "", fmt.Errorf("RewriteCond at %s: the comparison %q is not translated; its rule is left out", cd.d.Source(), p)
	}
	n := len(c.pre)
	left, err := c.expand(cd.test, false)
	if err != nil {
		return nil, "", err
	}
	// A lookup in the test string is made before the test reads it.
	head = append(head, c.pre[n:]...)
	c.pre = c.pre[:n]
	if singleVar(left) {
		left = "$" + left[2:len(left)-1]
	} else {
		v := c.newVar("t")
		c.init("set $" + v + ` "";`)
		head = append(head, "set $"+v+" "+quoteArg(left)+";")
		left = "$" + v
	}
	re := p
	negative := cd.negative
	switch {
	case isInt:
		re, negative = intRe, negative != intNeg
		c.t.note(cd.d, importer.Caveat, "RewriteCond %s %s: a number of more than %d digits, which Apache's atoi wraps, is taken as outside the range", cd.test, cd.d.Args[1], maxIntDigits)
	case strings.HasPrefix(p, "="):
		re = "^" + quoteMeta(p[1:]) + "$"
		if p == `=""` {
			re = "^$"
		}
	case strings.HasPrefix(p, "<"), strings.HasPrefix(p, ">"):
		var flip bool
		re, flip = lexical(p)
		negative = negative != flip
	}
	op := "~"
	if cd.nc {
		op = "~*"
	}
	if negative {
		op = "!" + op
	}
	return head, left + " " + op + " " + quoteArg(re), nil
}

// lexicalOK reports whether a <, <=, > or >= comparison's string is
// one lexical can write: printable ASCII.
func lexicalOK(p string) bool {
	v := strings.TrimPrefix(strings.TrimLeft(p, "<>"), "=")
	for i := 0; i < len(v); i++ {
		if v[i] <= ' ' || v[i] >= 0x7f {
			return false
		}
	}
	return true
}

// lexical writes RewriteCond's <S, <=S, >S and >=S as a regex, and
// whether the test is its negation. mod_rewrite compares the lengths
// first, then the bytes (compare_lexicography): a value is less than S
// when it is shorter, or as long and smaller at its first different
// byte.
func lexical(p string) (re string, negated bool) {
	op := p[:1]
	v := p[1:]
	orEqual := strings.HasPrefix(v, "=")
	if orEqual {
		v = v[1:]
	}
	var alts []string
	if len(v) > 0 {
		alts = append(alts, fmt.Sprintf(".{0,%d}", len(v)-1))
	}
	for i := 0; i < len(v); i++ {
		if v[i] == 0 {
			continue
		}
		alts = append(alts, quoteMeta(v[:i])+fmt.Sprintf("[\\x00-\\x%02x]", v[i]-1)+fmt.Sprintf(".{%d}", len(v)-i-1))
	}
	// op < with = is "less or equal"; > is the negation of <=, >= of <.
	lessOrEqual := op == "<" && orEqual || op == ">" && !orEqual
	if lessOrEqual {
		alts = append(alts, quoteMeta(v))
	}
	if len(alts) == 0 {
		alts = append(alts, "[^\\s\\S]") // nothing is shorter than ""
	}
	return "(?s)^(?:" + strings.Join(alts, "|") + ")$", op == ">"
}

func singleVar(s string) bool {
	if !strings.HasPrefix(s, "${") || !strings.HasSuffix(s, "}") {
		return false
	}
	return !strings.ContainsAny(s[2:len(s)-1], "${}")
}

func varSafe(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// serverVars are the %{NAME}s read as nginx's variables.
var serverVars = map[string]string{
	"HTTP_HOST": "http_host", "REQUEST_URI": "uri", "QUERY_STRING": "args", "REQUEST_METHOD": "request_method",
	"SERVER_PORT": "server_port", "REQUEST_SCHEME": "scheme", "SERVER_NAME": "host",
}

// variable maps %{NAME} to an nginx variable, declaring the ones the
// steps build.
func (c *rwCtx) variable(name string) (string, error) {
	if v, ok := serverVars[name]; ok {
		return v, nil
	}
	switch {
	case name == "HTTPS":
		c.init("set $a_https off;")
		c.init("if ($scheme = https) { set $a_https on; }")
		return "a_https", nil
	case name == "THE_REQUEST":
		c.init(`set $a_the_request "$request_method $request_uri HTTP/1.1";`)
		c.t.note(c.cur, importer.Caveat, "%%{THE_REQUEST} is read as \"METHOD TARGET HTTP/1.1\": the protocol the client named is not known to the steps")
		return "a_the_request", nil
	case strings.HasPrefix(name, "HTTP:") && len(name) > 5:
		return "http_" + varSafe(name[5:]), nil
	case strings.HasPrefix(name, "HTTP_") && len(name) > 5:
		return "http_" + varSafe(name[5:]), nil
	case strings.HasPrefix(name, "ENV:"):
		v := "a_env_" + varSafe(name[4:])
		if !c.seen["set $"+v+` "";`] {
			// Set by Apache or a module (REDIRECT_STATUS after an
			// internal redirect, SetEnvIf), not by the rules.
			c.init("set $" + v + ` "";`)
			c.t.note(c.cur, importer.Caveat, "%%{%s} is read as empty: no rule before it sets it, and the steps do not know what Apache or its modules set", name)
		}
		return v, nil
	case (name == "REQUEST_FILENAME" || name == "SCRIPT_FILENAME") && c.dir == "":
		return "uri", nil // in server context, the path before it is mapped
	}
	return "", fmt.Errorf("%%{%s} is not translated; left out", name)
}

// expand writes Apache's test string or substitution in nginx's value
// syntax: $N stays (in a condition, the rule's saved group), %N the
// saved group of the last matching condition, %{VAR} its variable.
// escape writes the literal text as Apache escapes a redirect
// (ap_escape_uri), where [NE] is not given.
func (c *rwCtx) expand(s string, escape bool) (string, error) {
	var b strings.Builder
	lit := func(x string) {
		if escape {
			x = escapeURI(x)
		}
		b.WriteString(x)
	}
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == '\\' && i+1 < len(s):
			i++
			if s[i] == '$' {
				return "", fmt.Errorf("a literal '$' cannot be written in a step; left out")
			}
			lit(string(s[i]))
		case ch == '$' && i+1 < len(s) && s[i+1] == '0':
			if err := c.wholeRef(&b, escape); err != nil {
				return "", err
			}
			i++
		case ch == '$' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' && (c.bflag || escape || c.loc != ""):
			v, err := c.backref(fmt.Sprintf("${a_r%c}", s[i+1]), escape)
			if err != nil {
				return "", err
			}
			c.wantR[s[i+1]-'0'] = true
			b.WriteString(v)
			i++
		case ch == '%' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' && (c.bflag || escape || c.loc != ""):
			v, err := c.backref(fmt.Sprintf("${a_c%c}", s[i+1]), escape)
			if err != nil {
				return "", err
			}
			b.WriteString(v)
			i++
		case ch == '$' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			b.WriteString("$" + string(s[i+1]))
			i++
		case ch == '$' && i+1 < len(s) && s[i+1] == '{':
			end := closingBrace(s, i+1)
			if end < 0 {
				return "", fmt.Errorf("${ is not closed; left out")
			}
			v, err := c.lookup(s[i+2:end], escape)
			if err != nil {
				return "", err
			}
			b.WriteString(v)
			i = end
		case ch == '%' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			b.WriteString("${a_c" + string(s[i+1]) + "}")
			i++
		case ch == '%' && i+1 < len(s) && s[i+1] == '{':
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				return "", fmt.Errorf("%%{ is not closed; left out")
			}
			v, err := c.variable(s[i+2 : i+end])
			if err != nil {
				return "", err
			}
			ref := "${" + v + "}"
			if escape && mayHoldQuestion(ref) {
				// %{REQUEST_URI} and the like are decoded: Apache
				// escapes them with the rest of the Location.
				if ref, err = c.escaped(v); err != nil {
					return "", err
				}
			}
			b.WriteString(ref)
			i += end
		case ch == '$':
			return "", fmt.Errorf("a literal '$' cannot be written in a step; left out")
		default:
			lit(string(ch))
		}
	}
	return b.String(), nil
}

// backref writes a back-reference read from where it was saved: under
// [B] escaped as mod_rewrite's escape_backref escapes it (letters,
// digits and '_' kept, a space as '+'), then, in a redirect, as Apache
// escapes the whole Location (ap_escape_uri), which the steps' own
// escaping of captures is not.
func (c *rwCtx) backref(saved string, escape bool) (string, error) {
	if !c.bflag && !escape {
		return saved, nil // a <Location>'s rule reads its groups saved
	}
	if !c.bflag {
		return c.escaped(strings.TrimSuffix(strings.TrimPrefix(saved, "${"), "}"))
	}
	v := "a_b_" + strings.Trim(saved, "${}")
	c.init("set $" + v + ` "";`)
	c.pre = append(c.pre, "set $"+v+" "+quoteArg(saved)+";")
	if err := c.applyFunc(v, c.bfunc, c.bflags+" of RewriteRule"); err != nil {
		return "", err
	}
	if escape {
		return c.escaped(v)
	}
	return "${" + v + "}", nil
}

// backrefFunc is the urlencode function of the rule's [B] and its
// variants (mod_rewrite's escape_backref): [B=chars] escapes only those,
// [BCTLS] the controls and space too, [BNE=chars] never those, [BNP] a
// space as %20. The characters go percent-encoded, every byte.
func backrefFunc(r rule) string {
	fn := "urlencode"
	hex := func(v string) string {
		var b strings.Builder
		for i := 0; i < len(v); i++ {
			fmt.Fprintf(&b, "%%%02X", v[i])
		}
		return b.String()
	}
	if v := r.flags["B"]; v != "" {
		fn += " only=" + hex(v)
	}
	if r.has("BCTLS") {
		fn += " ctls"
	}
	if v := r.flags["BNE"]; v != "" {
		fn += " except=" + hex(v)
	}
	if r.has("BNP") {
		fn += " noplus"
	}
	return fn
}

// backrefFlags returns the rule's [B] and its variants as it gives
// them, "[B,BNP]", to name what made the import's urlencode map.
func backrefFlags(r rule) string {
	var fs []string
	for _, f := range []string{"B", "BCTLS", "BNE", "BNP"} {
		if v, ok := r.flags[f]; ok && v != "" {
			fs = append(fs, f+"="+v)
		} else if ok {
			fs = append(fs, f)
		}
	}
	return "[" + strings.Join(fs, ",") + "]"
}

// closingBrace returns the index of the '}' that closes the '{' at
// open, braces of %{VAR} inside counted; -1 if none.
func closingBrace(s string, open int) int {
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return -1
}

// escapeURI escapes as Apache's ap_escape_uri (T_OS_ESCAPE_PATH): every
// byte but letters, digits and $-_.+!*'(),:@&=/~.
func escapeURI(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("$-_.+!*'(),:@&=/~;", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02x", c)
		}
	}
	return b.String()
}

// action writes what a matching rule does.
func (c *rwCtx) action(r rule, re string, ci bool) ([]string, bool, error) {
	if ci {
		re = "(?i)" + re
	}
	if r.neg || c.stripped || c.loc != "" {
		re = "^"
	}
	switch {
	case r.has("F"):
		return []string{"return 403;"}, false, nil
	case r.has("G"):
		return []string{"return 410;"}, false, nil
	}
	code := 0
	if v, ok := r.flags["R"]; ok {
		// readRule wrote the status mod_rewrite reads.
		code, _ = strconv.Atoi(v)
		if code < 300 || code > 399 {
			return []string{"return " + strconv.Itoa(code) + ";"}, false, nil
		}
	}
	if r.subst == "-" {
		if code != 0 {
			return nil, false, fmt.Errorf("[R] with no substitution is not translated; left out")
		}
		return nil, false, nil
	}
	subst := c.dropEmptyEnv(r.subst)
	abs := strings.HasPrefix(strings.ToLower(subst), "http://") || strings.HasPrefix(strings.ToLower(subst), "https://")
	if abs && code == 0 {
		code = 302 // an absolute URL redirects, as [R] does
	}
	if err := c.locRefused(subst, code, abs); err != nil {
		return nil, false, err
	}
	// A substitution that starts with a lookup or a variable is a path
	// or a URL by its value, which the Location says as it is.
	dynamic := strings.HasPrefix(subst, "${") || strings.HasPrefix(subst, "%{")
	if !abs && !dynamic && !strings.HasPrefix(subst, "/") {
		if c.dir == "" {
			subst = "/" + subst
		} else {
			if !c.hasBase && c.t.docRoot == "" && code != 0 {
				c.t.note(r.d, importer.Caveat, "a relative substitution without RewriteBase: Apache puts the directory's file-system path in front of it in the Location; the import, given no DocumentRoot, writes the directory's URL path %s", c.dir)
			}
			if !c.hasBase && code == 0 {
				// An internal rewrite: hook_fixup takes the
				// DocumentRoot off the file-system path it made.
				subst = c.dir + subst
			} else {
				subst = c.base + subst
			}
		}
	}
	pathPart, query, hasQuery, err := splitQuery(r, subst, code)
	if err != nil {
		return nil, false, err
	}
	r, query, hasQuery = queryIdioms(r, query, hasQuery)
	escape := code != 0 && !r.has("NE")
	p, q, err := c.expand2(pathPart, query, escape)
	if err != nil {
		return nil, false, err
	}
	c.qcheck = p // the expansions whose '?' Apache refuses
	if r.has("QSL") && hasQuery {
		c.qcheck = q
	}
	repl, err := c.withQuery(r, p, q, hasQuery, escape)
	if err != nil {
		return nil, false, err
	}
	lines, internal := c.emit(r, re, repl, code, hasQuery)
	lines, err = c.emptyGuards(r, re, p, q, code, hasQuery, dynamic, escape, lines)
	return lines, internal, err
}

// dropEmptyEnv takes off the front of a substitution the %{ENV:...}
// variables no rule sets (read as empty, noted): Apache judges what it
// expanded, so "%{ENV:PROTO}://%{HTTP_HOST}/x" with PROTO unset is the
// relative "://host/x", which RewriteBase goes in front of.
func (c *rwCtx) dropEmptyEnv(subst string) string {
	for strings.HasPrefix(subst, "%{ENV:") {
		end := strings.IndexByte(subst, '}')
		if end < 0 || c.envSet[subst[6:end]] {
			break
		}
		c.variable(subst[2:end]) // notes it read as empty; never fails
		subst = subst[end+1:]
	}
	return subst
}

// emptyGuards writes a rule's action again for where its expansions
// give nothing: a query that expands to nothing sends no '?'; a
// lookup that finds nothing, Apache's redirect goes to the server's "/"
// (fully_qualify_uri).
func (c *rwCtx) emptyGuards(r rule, re, p, q string, code int, hasQuery, dynamic, escape bool, lines []string) ([]string, error) {
	if hasQuery && strings.Contains(q, "$") {
		lines = c.emptyQuery(r, re, p, q, code, lines)
	}
	if dynamic && code != 0 {
		empty, err := c.withQuery(r, "/", q, hasQuery, escape)
		if err != nil {
			return nil, err
		}
		lines = c.guardEmpty("pv", re, p, empty, code, hasQuery, r, lines)
	}
	return lines, nil
}

// guardEmpty runs lines where v, the value val taken in an if on the
// rule's pattern, is not empty, and the rule's action to repl where it
// is.
func (c *rwCtx) guardEmpty(prefix, re, val, repl string, code int, hasQuery bool, r rule, lines []string) []string {
	empty, _ := c.emit(r, re, repl, code, hasQuery)
	v := c.newVar(prefix)
	c.init("set $" + v + ` "";`)
	out := []string{"set $" + v + ` "";`, "if ($uri ~ " + quoteArg(re) + ") { set $" + v + " " + quoteArg(val) + "; }"}
	out = append(out, "if ($"+v+` = "") {`)
	out = append(out, indent(empty)...)
	out = append(out, "}", "if ($"+v+` != "") {`)
	out = append(out, indent(lines)...)
	return append(out, "}")
}

// emptyQuery guards lines, a rule's action whose query q holds
// expansions: where q expands to nothing, Apache's splitout_queryargs
// sets no query (the request's dropped, or kept with [QSA]) and sends no
// '?', where rewrite's "p?" would send one. The value is taken in an if
// on the rule's pattern, whose groups q reads.
func (c *rwCtx) emptyQuery(r rule, re, p, q string, code int, lines []string) []string {
	if r.has("QSA") {
		return c.guardEmpty("qv", re, q, p, code, false, r, lines)
	}
	return c.guardEmpty("qv", re, q, p+"?", code, true, r, lines)
}

// locRefused refuses what a <Location>'s rule cannot be written as:
// an internal rewrite, a relative substitution.
func (c *rwCtx) locRefused(subst string, code int, abs bool) error {
	switch {
	case c.loc == "":
		return nil
	case code == 0:
		return fmt.Errorf("an internal rewrite inside <Location> (Apache's per-directory round on the file-system path) is not translated, only redirects; left out")
	case !abs && !strings.HasPrefix(subst, "/"):
		return fmt.Errorf("a relative substitution inside <Location> (Apache puts a file-system path in front of it) is not translated; left out")
	}
	return nil
}

// withQuery writes the substitution's query in rewrite's form: "?q"
// replaces the request's, "?q?" drops it, none keeps it.
func (c *rwCtx) withQuery(r rule, p, q string, hasQuery, escape bool) (string, error) {
	switch {
	case hasQuery && q == "" && r.has("QSA"):
	case hasQuery && q == "":
		return p + "?", nil
	case hasQuery && r.has("QSA") && escape:
		// The query changed: Apache escapes all of it in the
		// Location, the request's part too ('%' as %25).
		qsa, err := c.escapedArgs()
		return p + "?" + q + qsa + "?", err
	case hasQuery && r.has("QSA"):
		return p + "?" + q, nil
	case hasQuery:
		return p + "?" + q + "?", nil
	case r.has("QSD"):
		return p + "?", nil
	}
	return p, nil
}

// queryIdioms reads the query parts that say what a flag says:
// "?%{QUERY_STRING}" is the request's query as it was (Apache sends it
// unescaped, the original, and no '?' where it is empty), and
// "?x=1&%{QUERY_STRING}" is [QSA]'s (Apache drops the '&' where the
// request has no query).
func queryIdioms(r rule, query string, hasQuery bool) (rule, string, bool) {
	if !hasQuery || r.has("QSA") || r.has("QSD") {
		return r, query, hasQuery
	}
	if query == "%{QUERY_STRING}" {
		return r, "", false
	}
	if pre, ok := strings.CutSuffix(query, "&%{QUERY_STRING}"); ok && pre != "" {
		r.flags = maps.Clone(r.flags)
		r.flags["QSA"] = ""
		return r, pre, true
	}
	return r, query, hasQuery
}

// expand2 expands a substitution's path and query.
func (c *rwCtx) expand2(path, query string, escape bool) (string, string, error) {
	p, err := c.expand(path, escape)
	if err != nil {
		return "", "", err
	}
	q, err := c.expand(query, escape)
	return p, q, err
}

// escapedArgs returns "&" and the request's query escaped as Apache
// escapes a Location's (ap_escape_uri), or nothing where there is none.
func (c *rwCtx) escapedArgs() (string, error) {
	c.init(`set $a_args "";`)
	c.init(`set $a_qsa_e "";`)
	c.pre = append(c.pre, "set $a_args $args;")
	esc, err := c.escaped("a_args")
	if err != nil {
		return "", err
	}
	c.pre = append(c.pre, `set $a_qsa_e "";`, `if ($args != "") { set $a_qsa_e "&`+esc+`"; }`)
	return "${a_qsa_e}", nil
}

// splitQuery cuts a substitution into its path and query: at the
// first '?', or with [QSL] at the last, the ones before it the path's.
func splitQuery(r rule, subst string, code int) (pathPart, query string, hasQuery bool, err error) {
	pathPart, query, hasQuery = strings.Cut(subst, "?")
	if !r.has("QSL") {
		return pathPart, query, hasQuery, nil
	}
	if i := strings.LastIndexByte(subst, '?'); i >= 0 {
		pathPart, query = subst[:i], subst[i+1:]
	}
	if strings.Contains(pathPart, "?") && code == 0 {
		return "", "", false, fmt.Errorf("[QSL] with a '?' in the path of an internal rewrite: the steps' rewrite starts the query at the first; left out")
	}
	return pathPart, query, hasQuery, nil
}

// emit writes a rule's action: an internal rewrite (code 0) or a
// redirect to repl, the substitution with its query in rewrite's form.
func (c *rwCtx) emit(r rule, re, repl string, code int, hasQuery bool) ([]string, bool) {
	if code == 0 {
		flag := ""
		switch {
		case r.has("PT") && c.dir == "":
			// The new URI goes on to mod_alias's and mod_proxy's
			// hooks, and no later rule runs ([PT] implies [L]).
			return []string{"rewrite " + quoteArg(re) + " " + quoteArg(repl) + ";"}, false
		case r.has("END") && c.dir != "":
			// The internal redirect still runs the new path's
			// directory's Redirects; writeRules sets $a_end, which
			// keeps every directory's rules from running again.
			flag = " last"
		case r.has("END"):
			flag = " break"
		case r.has("N") && c.dir == "":
			// writeRules starts the server's rules again.
		case r.has("L"), r.has("PT"), r.has("N"):
			flag = " last"
		}
		return []string{"rewrite " + quoteArg(re) + " " + quoteArg(repl) + flag + ";"}, flag == ""
	}
	switch code {
	case 301:
		return []string{"rewrite " + quoteArg(re) + " " + quoteArg(repl) + " permanent;"}, false
	case 302:
		return []string{"rewrite " + quoteArg(re) + " " + quoteArg(repl) + " redirect;"}, false
	}
	// 303, 307, 308: a return, whose $1.. the if's match sets.
	to := strings.TrimSuffix(repl, "?")
	switch {
	case hasQuery && r.has("QSA") && !strings.Contains(to, "${a_qsa_e}"):
		c.init(`set $a_qsa "";`)
		c.init(`if ($args != "") { set $a_qsa "&$args"; }`)
		to += "${a_qsa}"
	case !hasQuery && !r.has("QSD"):
		to += "${is_args}${args}"
	}
	return []string{"if ($uri ~ " + quoteArg(re) + ") { return " + strconv.Itoa(code) + " " + quoteArg(to) + "; }"}, false
}

// negateTest negates an if's test as ifCondition writes it: "$v OP re"
// with OP one of = ~ ~* and their negations.
func negateTest(test string) string {
	f := strings.SplitN(test, " ", 3)
	if len(f) != 3 {
		return test
	}
	switch op := f[1]; {
	case strings.HasPrefix(op, "!"):
		f[1] = op[1:]
	case op == "=":
		f[1] = "!="
	default:
		f[1] = "!" + op
	}
	return strings.Join(f, " ")
}
