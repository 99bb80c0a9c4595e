package apache

// The model's mod_rewrite: rules in order, conditions with [OR], the
// flags that redirect, refuse or stop, and the Location Apache builds
// (splitout_queryargs, fully_qualify_uri, escape_absolute_uri).

import (
	"regexp"
	"strconv"
	"strings"
)

// mReq is a probe as mod_rewrite reads it.
type mReq struct {
	host     string
	https    bool
	uri      string // r->uri: decoded, dot segments resolved, slashes merged
	rawPath  string
	args     string
	hasArgs  bool
	origArgs string
	origHas  bool
}

// mRule is a RewriteRule and its conditions, read for the model; bad
// says what the model does not follow ("" where it follows it all).
type mRule struct {
	d      *Directive
	re     *regexp.Regexp
	negate bool
	subst  string
	flags  map[string]string
	conds  []mCond
	bad    string
}

type mCond struct {
	test   string
	re     *regexp.Regexp
	equal  string
	isEq   bool
	negate bool
	nc, or bool
	bad    bool
	// any: an empty regex, which matches whatever the test string is.
	any bool
}

// ruleFlagNames are the long names of the flags the model follows.
var ruleFlagNames = map[string]string{"redirect": "r", "last": "l", "nocase": "nc", "qsappend": "qsa", "qsdiscard": "qsd",
	"noescape": "ne", "forbidden": "f", "gone": "g", "ornext": "or"}

// modelFlags reads "[A,B=c]": names lower case, long names short.
func modelFlags(s string) (map[string]string, bool) {
	out := map[string]string{}
	if s == "" {
		return out, true
	}
	if !strings.HasPrefix(s, "[") || !strings.HasSuffix(s, "]") {
		return nil, false
	}
	for _, f := range strings.Split(s[1:len(s)-1], ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(f), "=")
		k = strings.ToLower(k)
		if long, ok := ruleFlagNames[k]; ok {
			k = long
		}
		out[k] = v
	}
	return out, true
}

// readRules groups rules with the conditions before each.
func (m *apModel) readRules(ds []*Directive) []*mRule {
	if len(ds) == 0 {
		return nil
	}
	if out, ok := m.lists[ds[0]]; ok {
		return out
	}
	var out []*mRule
	defer func() { m.lists[ds[0]] = out }()
	var conds []mCond
	for _, d := range ds {
		if d.Is("RewriteCond") {
			conds = append(conds, modelCond(d))
			continue
		}
		r := m.rules[d]
		if r == nil {
			r = modelRule(d, conds)
			m.rules[d] = r
		}
		out = append(out, r)
		conds = nil
	}
	return out
}

func modelCond(d *Directive) mCond {
	if len(d.Args) < 2 || len(d.Args) > 3 {
		return mCond{bad: true}
	}
	c := mCond{test: d.Args[0]}
	var flags map[string]string
	ok := true
	if len(d.Args) == 3 {
		flags, ok = modelFlags(d.Args[2])
	}
	for k := range flags {
		switch k {
		case "nc":
			c.nc = true
		case "or":
			c.or = true
		case "nv", "novary":
		default:
			ok = false
		}
	}
	p := d.Args[1]
	if strings.HasPrefix(p, "!") {
		c.negate, p = true, p[1:]
	}
	switch {
	case !ok:
		c.bad = true
	case strings.HasPrefix(p, "="):
		c.isEq, c.equal = true, p[1:]
	case strings.HasPrefix(p, "-") || strings.HasPrefix(p, "<") || strings.HasPrefix(p, ">") || strings.EqualFold(d.Args[0], "expr"):
		// File tests, comparisons, expressions: not the model's.
		c.bad = true
	default:
		c.re = modelRegex(p, c.nc)
		c.bad = c.re == nil
		c.any = p == ""
	}
	return c
}

// modelRegex compiles a PCRE pattern with Go's regexp where their
// syntax agrees; nil where it does not (the model then cannot say).
func modelRegex(p string, nc bool) *regexp.Regexp {
	if nc {
		p = "(?i)" + p
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return nil
	}
	return re
}

func modelRule(d *Directive, conds []mCond) *mRule {
	r := &mRule{d: d, conds: conds}
	if len(d.Args) < 2 || len(d.Args) > 3 {
		r.bad = "arguments"
		return r
	}
	p := d.Args[0]
	if strings.HasPrefix(p, "!") {
		r.negate, p = true, p[1:]
	}
	r.subst = d.Args[1]
	ok := true
	if len(d.Args) == 3 {
		r.flags, ok = modelFlags(d.Args[2])
	} else {
		r.flags = map[string]string{}
	}
	if !ok {
		r.bad = "flags"
		return r
	}
	for k := range r.flags {
		switch k {
		case "r", "l", "end", "nc", "qsa", "qsd", "ne", "f", "g", "c", "chain", "s", "skip", "e", "env", "co", "cookie", "nv", "novary":
		default:
			r.bad = "flag " + k
		}
	}
	_, ci := r.flags["nc"]
	if r.re = modelRegex(p, ci); r.re == nil {
		r.bad = "pattern"
	}
	return r
}

// runRules runs rules on r; dir is the .htaccess they are of (nil in
// server context). done says the rules decided: a is the answer then
// (unknown where the model cannot follow them).
func (m *apModel) runRules(ds []*Directive, r *mReq, dir *mDir) (a mAnswer, done bool) {
	subject := r.uri
	if dir != nil {
		subject = strings.TrimPrefix(strings.TrimPrefix(r.uri, strings.TrimSuffix(dir.path, "/")), "/")
	}
	rules := m.readRules(ds)
	for i := 0; i < len(rules); i++ {
		rule := rules[i]
		m.work++
		if rule.bad == "pattern" || rule.bad == "arguments" || rule.bad == "flags" {
			return unknown, true
		}
		var groups []string
		loc := rule.re.FindStringSubmatchIndex(subject)
		matched := (loc != nil) != rule.negate
		if matched && loc != nil {
			groups = submatches(subject, loc)
		}
		if matched && rule.bad != "" {
			return unknown, true
		}
		if matched {
			condGroups, ok, known := modelConds(rule.conds, r, groups)
			if !known {
				return unknown, true
			}
			matched = ok
			if ok {
				if a, stop := m.act(rule, r, dir, groups, condGroups); stop {
					if a.known && a.status >= 300 && a.status < 400 && !rule.has("l", "end") && goesOn(rules[i+1:], a.loc) {
						// mod_rewrite goes on with "redirect:URL",
						// which a later rule matches: not followed.
						return unknown, true
					}
					return a, true
				}
			}
		}
		switch {
		case !matched && rule.has("c", "chain"):
			// A chained rule that fails skips the rest of the chain.
			for i < len(rules) && rule.has("c", "chain") {
				i++
				if i < len(rules) {
					rule = rules[i]
				}
			}
		case matched && rule.has("s", "skip"):
			n, err := strconv.Atoi(rule.flags["s"] + rule.flags["skip"])
			if err != nil || n < 0 {
				return unknown, true
			}
			i += n
		}
	}
	return mAnswer{}, false
}

// has reports whether the rule has one of the flags named.
func (rule *mRule) has(names ...string) bool {
	for _, n := range names {
		if _, ok := rule.flags[n]; ok {
			return true
		}
	}
	return false
}

func submatches(s string, loc []int) []string {
	out := make([]string, len(loc)/2)
	for i := range out {
		if loc[2*i] >= 0 {
			out[i] = s[loc[2*i]:loc[2*i+1]]
		}
	}
	return out
}

// modelConds evaluates conditions as mod_rewrite does: a false one
// fails the rule unless [OR] lets the next one try; a true one of an
// [OR] group skips the rest of the group. It returns the groups of the
// last condition that matched (%N).
func modelConds(cs []mCond, r *mReq, groups []string) (condGroups []string, ok, known bool) {
	for i := 0; i < len(cs); i++ {
		c := cs[i]
		if c.bad {
			return nil, false, false
		}
		v, vok := expandModel(c.test, r, groups, condGroups)
		if c.any {
			v, vok = "", true
		}
		if !vok {
			return nil, false, false
		}
		var hit bool
		switch {
		case c.isEq && c.nc:
			hit = strings.EqualFold(v, c.equal)
		case c.isEq:
			hit = v == c.equal
		default:
			loc := c.re.FindStringSubmatchIndex(v)
			hit = loc != nil
			if hit && !c.negate {
				condGroups = submatches(v, loc)
			}
		}
		hit = hit != c.negate
		if c.or {
			if !hit {
				continue
			}
			for i < len(cs) && cs[i].or {
				i++
			}
			continue
		}
		if !hit {
			return nil, false, true
		}
	}
	return condGroups, true, true
}

// expandModel expands $N, %N and %{VAR} in s; ok is false where it
// holds what the model does not know.
func expandModel(s string, r *mReq, groups, condGroups []string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
		case (c == '$' || c == '%') && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			g := groups
			if c == '%' {
				g = condGroups
			}
			if n := int(s[i+1] - '0'); n < len(g) {
				b.WriteString(g[n])
			}
			i++
		case c == '%' && strings.HasPrefix(s[i:], "%{"):
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				return "", false
			}
			v, ok := modelVar(s[i+2:i+end], r)
			if !ok {
				return "", false
			}
			b.WriteString(v)
			i += end
		case c == '$' && strings.HasPrefix(s[i:], "${"):
			return "", false
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), true
}

// modelVar is a server variable of a GET probe with no header but Host.
func modelVar(name string, r *mReq) (string, bool) {
	switch strings.ToUpper(name) {
	case "HTTP_HOST", "SERVER_NAME":
		return r.host, true
	case "REQUEST_URI":
		return r.uri, true
	case "QUERY_STRING":
		return r.args, true
	case "HTTPS":
		if r.https {
			return "on", true
		}
		return "off", true
	case "REQUEST_SCHEME":
		if r.https {
			return "https", true
		}
		return "http", true
	case "REQUEST_METHOD":
		return "GET", true
	case "THE_REQUEST":
		t := r.rawPath
		if r.origHas {
			t += "?" + r.origArgs
		}
		return "GET " + t + " HTTP/1.1", true
	case "HTTP_REFERER", "HTTP_USER_AGENT", "HTTP_COOKIE", "ENV:REDIRECT_STATUS":
		// A probe sends no such field; it is a first request.
		return "", true
	}
	return "", false
}

// act does what a matching rule does; stop says the rules end here
// (an answer, or [L]/[END] with no change).
func (m *apModel) act(rule *mRule, r *mReq, dir *mDir, groups, condGroups []string) (mAnswer, bool) {
	_, f := rule.flags["f"]
	_, g := rule.flags["g"]
	_, last := rule.flags["l"]
	_, end := rule.flags["end"]
	switch {
	case f:
		return mAnswer{status: 403, by: rule.d, known: true}, true
	case g:
		return mAnswer{status: 410, by: rule.d, known: true}, true
	case rule.subst == "-":
		if _, redir := rule.flags["r"]; redir {
			return unknown, true
		}
		return mAnswer{}, last || end
	}
	code, ok := redirectCode(rule.flags)
	switch {
	case ok && code >= 400:
		// [R=410] and the like: the status, with no substitution.
		return mAnswer{status: code, by: rule.d, known: true}, true
	case !ok || code < 300:
		// An internal rewrite, or an answer the model does not follow.
		return unknown, true
	}
	s, ok := expandChecked(rule.subst, r, groups, condGroups)
	if !ok {
		return unknown, true
	}
	if !strings.HasPrefix(s, "/") && !strings.HasPrefix(s, "http://") && !strings.HasPrefix(s, "https://") {
		if dir == nil || dir.base == "" || hasScheme(s) {
			return unknown, true
		}
		s = strings.TrimSuffix(dir.base, "/") + "/" + s
	}
	return mAnswer{status: code, loc: location(rule, r, s), by: rule.d, known: true}, true
}

// hasScheme reports a substitution of another scheme (mailto:, ftp:).
func hasScheme(s string) bool {
	i := strings.IndexByte(s, ':')
	return i > 0 && !strings.ContainsAny(s[:i], "/?")
}

// redirectCode is [R]'s status, as mod_rewrite reads it
// (rewriteStatus: another word than its three is 302); ok is false for
// a rule without [R] or with a status Apache refuses.
func redirectCode(flags map[string]string) (int, bool) {
	v, ok := flags["r"]
	if !ok {
		return 0, false
	}
	n, _, err := rewriteStatus(v)
	return n, err == nil
}

// expandChecked is expandModel, refusing an expansion that carries a
// '?' (Apache 2.4.60 answers 403 to those before a literal '?', the
// model does not say which) or a newline.
func expandChecked(s string, r *mReq, groups, condGroups []string) (string, bool) {
	for _, g := range append(append([]string{}, groups...), condGroups...) {
		if strings.ContainsAny(g, "?\n\r") {
			return "", false
		}
	}
	if strings.Contains(s, "%{") && (strings.Contains(r.uri, "?") || strings.Contains(r.args, "?")) {
		return "", false
	}
	return expandModel(s, r, groups, condGroups)
}

// location is the Location Apache sends for substitution s: the query
// split out (the first '?'; [QSA] appends the request's, [QSD] drops
// it), the URL made absolute, its path escaped without [NE], the query
// escaped where it changed.
func location(rule *mRule, r *mReq, s string) string {
	args, has := r.args, r.hasArgs
	path, q, hasQ := strings.Cut(s, "?")
	_, qsa := rule.flags["qsa"]
	_, qsd := rule.flags["qsd"]
	_, ne := rule.flags["ne"]
	if qsd && !hasQ {
		args, has = "", false
	}
	if hasQ {
		// splitout_queryargs: [QSA] appends the request's query to a
		// non-empty one of the substitution ([QSD] wins over it); an
		// empty query, or one of a single '&', is none.
		switch {
		case qsa && !qsd && q == "":
		case qsa && !qsd && has:
			args = q + "&" + args
		default:
			args = q
		}
		has = true
		args = strings.TrimSuffix(args, "&")
		if args == "" {
			has = false
		}
	}
	scheme := "http"
	if r.https {
		scheme = "https"
	}
	abs := path
	if strings.HasPrefix(path, "/") {
		abs = scheme + "://" + r.host + path
	}
	if !ne {
		abs = escapeAbsolute(abs)
	}
	if has {
		if !ne && !(r.origHas && args == r.origArgs) {
			args = apEscapeURI(args)
		}
		abs += "?" + args
	}
	return abs
}

// escapeAbsolute escapes the path of an absolute http(s) URL as
// ap_escape_uri escapes it, the scheme and host as they are.
func escapeAbsolute(u string) string {
	i := strings.Index(u, "://")
	if i < 0 {
		return apEscapeURI(u)
	}
	j := strings.IndexByte(u[i+3:], '/')
	if j < 0 {
		return u
	}
	j += i + 3
	return u[:j] + apEscapeURI(u[j:])
}

// apEscapeURI is httpd's ap_escape_uri (ap_os_escape_path with
// T_OS_ESCAPE_PATH from gen_test_char.c): letters, digits and
// "$-_.+!*'(),:;@&=/~" kept, every other byte as %xx.
func apEscapeURI(s string) string {
	const hex = "0123456789abcdef"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("$-_.+!*'(),:;@&=/~", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

// goesOn reports whether a later rule's pattern matches the string
// mod_rewrite goes on with after a redirect without [L].
func goesOn(later []*mRule, loc string) bool {
	for _, l := range later {
		if l.re == nil || (l.re.MatchString("redirect:"+loc) != l.negate) {
			return true
		}
	}
	return false
}
