package apache

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/redirectd/redirectd/config/importer"
	"github.com/redirectd/redirectd/matcher/rewrite"
)

// rwResult is a context's mod_rewrite rules as steps; internal is set
// when a rule rewrites the URI without redirecting and goes on.
type rwResult struct {
	steps    []string
	internal bool
	proxies  []*Proxy // the [P] rules written as forwarding locations
}

type cond struct {
	d                *Directive
	test, pattern    string
	nc, or, negative bool
}

type rule struct {
	d       *Directive
	conds   []cond
	pattern string
	neg     bool
	subst   string
	flags   map[string]string
	// rWord is [R=word]'s word where mod_rewrite does not know it,
	// which Apache answers as 302 (flags["R"] holds the status read).
	rWord string
}

// rwCtx is what one context's rules share: its directory ("" for
// server context), RewriteBase, and the variables its steps set, which
// are declared first.
type rwCtx struct {
	t    *translator
	dir  string
	base string
	// hasBase is set by RewriteBase.
	hasBase bool
	inits   []string
	seen    map[string]bool
	n       int
	// pre are the steps a rule's RewriteMap lookups need before its
	// action; wantR the rule's groups they read.
	pre   []string
	wantR [10]bool
	cur   *Directive // the rule being written, for its notes
	// proxies are the [P] rules this context forwards by.
	proxies []*Proxy
	// rawOf maps a variable an escape made to the one before it;
	// qcheck is the part of the rule's substitution whose expansions
	// Apache checks for a '?' (a decoded %3F); bflag is the rule's [B]
	// (or [BCTLS]), bfunc its urlencode function with the variants' options.
	rawOf  map[string]string
	qcheck string
	bflag  bool
	bfunc  string
	bflags string // those flags as the rule gives them, "[B,BNP]", for notes
	// stripped: the rule's pattern is matched with $a_strip, the
	// path without the directory's prefix.
	stripped bool
	// loc is the DocumentRoot, for the rules of a <Location>: their
	// patterns are matched with $a_fpath, the file-system path.
	loc string
	// whole is the step that saves $0 in $a_r0 for the rule being
	// written, "" where its pattern does not match the whole subject.
	whole string
	// envSet names the variables a rule of the context sets with [E=]:
	// the others' %{ENV:...} is empty in the steps.
	envSet map[string]bool
}

func (c *rwCtx) init(line string) {
	if !c.seen[line] {
		c.seen[line] = true
		c.inits = append(c.inits, line)
	}
}

func (c *rwCtx) newVar(prefix string) string {
	c.n++
	return fmt.Sprintf("a_%s%d", prefix, c.n)
}

// rewriteSteps reads the mod_rewrite directives of one context and
// writes its rules as steps, in order; dir is the per-directory prefix
// ("" in server context).
func (t *translator) rewriteSteps(dirs []*Directive, dir string) rwResult {
	c := &rwCtx{t: t, dir: dir, base: dir, seen: map[string]bool{}}
	if dir != "" && t.docRoot != "" {
		// Without RewriteBase, Apache puts the directory's own path in
		// front of a relative substitution, and a redirect sends it.
		c.base = strings.TrimSuffix(t.docRoot, "/") + dir
	}
	rules, on := c.readRules(dirs)
	if !on {
		for _, r := range rules {
			t.note(r.d, importer.Caveat, "RewriteEngine is not on here: Apache does not run this rule, nor does redirectd")
		}
		return rwResult{}
	}
	return c.writeRules(rules)
}

// readRules reads a context's mod_rewrite directives: its rules, each
// with its conditions, and whether RewriteEngine is on.
func (c *rwCtx) readRules(dirs []*Directive) (rules []rule, on bool) {
	t := c.t
	var pending []cond
	for _, d := range dirs {
		if d.Section {
			continue
		}
		switch strings.ToLower(d.Name) {
		case "rewriteengine":
			on = len(d.Args) == 1 && strings.EqualFold(d.Args[0], "on")
		case "rewritebase":
			if len(d.Args) == 1 && c.dir != "" {
				c.base, c.hasBase = strings.TrimSuffix(d.Args[0], "/")+"/", true
			}
		case "rewriteoptions":
			// The Inherit family decides the rules read (inherit.go).
			for _, a := range d.Args {
				if !inheritOption(a) {
					t.note(d, importer.Caveat, "RewriteOptions %s is not translated", a)
				}
			}
		case "rewritemap":
			// Read before any rule (readMaps).
		case "rewritecond":
			cd, err := readCond(d)
			if err != nil {
				t.note(d, importer.LeftOut, "RewriteCond: %v; its rule is left out", err)
				cd.d = nil
			}
			pending = append(pending, cd)
		case "rewriterule":
			r, err := readRule(d)
			r.conds = pending
			pending = nil
			if err != nil {
				t.note(d, importer.LeftOut, "RewriteRule: %v; left out", err)
				continue
			}
			if r.rWord != "" {
				t.note(d, importer.Caveat, "[R=%s]: mod_rewrite's status words are permanent, temp and seeother; Apache answers another as a 302 redirect, and so does the import", r.rWord)
			}
			rules = append(rules, r)
			if c.envSet == nil {
				c.envSet = map[string]bool{}
			}
			for _, e := range strings.Split(r.flags["E"], ",") {
				name, _, _ := strings.Cut(strings.TrimPrefix(e, "!"), ":")
				c.envSet[name] = true
			}
		}
	}
	return rules, on
}

// writeRules writes the rules as steps, each wrapped in the variables
// that earlier rules' [S=n], [C] and "- [L]" set to skip it.
//
// Long because the guards of each rule depend on all the rules before
// it; split, the state would be passed around whole.
func (c *rwCtx) writeRules(rules []rule) rwResult {
	t := c.t
	var res rwResult
	var body []string
	var guards []string // variables that must be 0 for the next rule to run
	skip := map[string]int{}
	next := false // a rule of server context has [N]
	for i, r := range rules {
		c.redirectGoesOn(r, rules[i+1:])
		lines, internal, err := c.rule(r)
		if err != nil {
			kind := importer.LeftOut
			if isServed(err) {
				kind = importer.Served
			}
			t.note(r.d, kind, "%v", err)
			lines = nil
		}
		if err == nil && len(lines) > 0 {
			if err = compiles(c.inits, lines, t.res.Maps); err != nil {
				t.note(r.d, importer.LeftOut, "the steps written for it do not load (%v); left out", err)
				lines = nil
			}
		}
		if c.dir != "" && len(t.fixup) > 0 && endsInternal(lines) {
			lines = beforeAction(lines, t.fixup)
		}
		if c.dir != "" && r.has("END") && endsInternal(lines) {
			// [END]: no rule of any directory runs on the new path.
			lines = setOnSuccess(lines, "set $a_end 1;")
			t.endRound = true
		}
		if internal && c.dir == "" {
			res.internal = true
			c.init("set $a_rewritten 0;")
			lines = setOnSuccess(lines, "set $a_rewritten 1;")
		}
		if len(lines) > 0 {
			t.count(r.d)
		}
		// What the rule's flags make of the rules after it.
		var after []string
		if sv, ok := r.flags["S"]; ok && len(lines) > 0 {
			v := c.newVar("skip")
			c.init("set $" + v + " 0;")
			lines = setOnSuccess(lines, "set $"+v+" 1;")
			n, _ := strconv.Atoi(sv)
			skip[v] = n
		}
		if r.has("N") && c.dir == "" && len(lines) > 0 {
			// The rest of the round is skipped; the next round starts
			// from the first rule.
			c.init("set $a_next 0;")
			lines = setOnSuccess(lines, "set $a_next 1;")
			after = append(after, "a_next")
			next = true
		}
		if _, ok := r.flags["C"]; ok {
			v := c.newVar("chain")
			c.init("set $" + v + " 1;")
			lines = setOnSuccess(lines, "set $"+v+" 0;")
			after = append(after, v)
		}
		if (r.subst == "-" && (r.has("L") || r.has("END")) || r.has("PT") && c.dir == "") && len(lines) > 0 {
			c.init("set $a_stop 0;")
			lines = setOnSuccess(lines, "set $a_stop 1;")
			after = append(after, "a_stop")
		}
		lines = append([]string{"# " + commentSafe(r.d.Source()+": RewriteRule "+strings.Join(r.d.Args, " "))}, wrap(guards, lines)...)
		body = append(body, lines...)
		var next []string
		for _, g := range guards {
			if n, ok := skip[g]; ok {
				if n--; n <= 0 {
					continue
				}
				skip[g] = n
			}
			if strings.HasPrefix(g, "a_chain") {
				continue // a chain guards the rule after it only
			}
			next = append(next, g)
		}
		for v := range skip {
			if !slices.Contains(next, v) && skip[v] > 0 && !slices.Contains(guards, v) {
				next = append(next, v)
			}
		}
		guards = append(next, after...)
	}
	if next {
		body = nextRounds(c.inits, body)
	}
	res.steps = append(c.inits, body...)
	res.proxies = c.proxies
	return res
}

// maxRounds is how many times server context's rules run with [N]:
// redirectd's bound on a request's URI changes, as a location's.
const maxRounds = 10

// nextRounds writes server context's rules again for each [N] round:
// nginx's server steps run once. Each round starts with the variables
// as the first did (but the one that says a rewrite happened), and a
// request still going round after the last is answered 500, as a
// location's eleventh URI change is.
func nextRounds(inits, round []string) []string {
	var reset []string
	for _, l := range inits {
		if !strings.HasPrefix(l, "set $a_rewritten ") {
			reset = append(reset, l)
		}
	}
	body := round
	for range maxRounds - 1 {
		body = append(body, "if ($a_next = 1) {")
		body = append(body, indent(append(append([]string{}, reset...), round...))...)
		body = append(body, "}")
	}
	return append(body, "if ($a_next = 1) { return 500; }")
}

// compiles reports why the steps (after the declarations inits) do not
// load, as the loader compiles them: a rule redirectd cannot run (a
// regex neither engine takes) is left out alone, not the config.
//
// The maps the steps may read are stood in for by empty ones of the same
// variable: their entries are checked once, where each is written.
func compiles(inits, lines []string, maps []*LocMap) error {
	src := strings.Join(append(append([]string{}, inits...), lines...), "\n")
	if !utf8.ValidString(src) {
		return fmt.Errorf("it holds bytes that are not UTF-8")
	}
	var decl strings.Builder
	spec := rewrite.Spec{}
	for _, m := range maps {
		// Every server's steps declare the key (declareMapKeys).
		decl.WriteString("set $" + m.Key + " \"\";\n")
		ms := rewrite.MapSpec{Source: "$" + m.Key, Variable: m.Variable, Entries: "volatile;"}
		if m.Function != "" {
			ms.Entries, ms.Function = "", m.Function
		}
		spec.Maps = append(spec.Maps, ms)
	}
	spec.Steps = []rewrite.Text{{Src: decl.String() + src, Line: 1}}
	_, err := rewrite.Compile(spec)
	return err
}

// wrap nests lines in one if per guard variable, each of which must be
// 0.
func wrap(guards, lines []string) []string {
	for _, g := range guards {
		lines = append(append([]string{"if ($" + g + " = 0) {"}, indent(lines)...), "}")
	}
	return lines
}

// setOnSuccess inserts a set before the rule's action, marked by the
// line "#action".
func setOnSuccess(lines []string, set string) []string {
	for i, l := range lines {
		if strings.TrimSpace(l) == "#action" {
			pad := l[:len(l)-len(strings.TrimLeft(l, " "))]
			out := append([]string{}, lines[:i]...)
			out = append(out, pad+set)
			return append(out, lines[i:]...)
		}
	}
	return lines
}

// endsInternal reports whether a rule's steps end the round with an
// internal rewrite ([L], [PT], [END]).
func endsInternal(lines []string) bool {
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "rewrite ") && (strings.HasSuffix(l, " last;") || strings.HasSuffix(l, " break;")) {
			return true
		}
	}
	return false
}

// beforeAction puts steps in front of a rule's action, where its
// pattern and conditions hold: the action matches its pattern again,
// so the steps' own matches do not change its groups.
func beforeAction(lines, steps []string) []string {
	for i, l := range lines {
		if strings.TrimSpace(l) == "#action" {
			pad := l[:len(l)-len(strings.TrimLeft(l, " "))]
			out := append([]string{}, lines[:i]...)
			for _, s := range steps {
				out = append(out, pad+s)
			}
			return append(out, lines[i:]...)
		}
	}
	return lines
}

func (r rule) has(f string) bool { _, ok := r.flags[f]; return ok }

type servedErr struct{ msg string }

func (e servedErr) Error() string { return e.msg }

func isServed(err error) bool { _, ok := err.(servedErr); return ok }

// flagNames maps RewriteRule's long flag names to the short ones.
var flagNames = map[string]string{
	"redirect": "R", "last": "L", "nocase": "NC", "qsappend": "QSA", "qsdiscard": "QSD", "qslast": "QSL",
	"noescape": "NE", "gone": "G", "forbidden": "F", "proxy": "P", "skip": "S", "chain": "C", "env": "E",
	"cookie": "CO", "passthrough": "PT", "next": "N", "type": "T", "handler": "H", "nosubreq": "NS",
	// mod_rewrite's parser spells it so; "backrefnoplus" is refused.
	"backrefescaping": "B", "backrefernoplus": "BNP", "discardpath": "DPI",
}

// ruleFlags are the flags mod_rewrite's parser takes: any other makes
// Apache refuse the rule (a .htaccess holding it answers 500).
var ruleFlags = map[string]bool{"B": true, "BNP": true, "BCTLS": true, "BNE": true, "C": true, "CO": true, "DPI": true, "E": true,
	"END": true, "F": true, "G": true, "H": true, "L": true, "N": true, "NC": true, "NE": true, "NS": true, "P": true, "PT": true,
	"QSA": true, "QSD": true, "QSL": true, "R": true, "S": true, "T": true, "UNSAFEALLOW3F": true, "UNSAFEPREFIXSTAT": true}

func readFlags(s string) (map[string]string, error) {
	flags := map[string]string{}
	if s == "" {
		return flags, nil
	}
	if !strings.HasPrefix(s, "[") || !strings.HasSuffix(s, "]") {
		return nil, fmt.Errorf("flags %q are not in [brackets]", s)
	}
	for _, f := range strings.Split(s[1:len(s)-1], ",") {
		name, val, _ := strings.Cut(strings.TrimSpace(f), "=")
		key := strings.ToUpper(name)
		if long, ok := flagNames[strings.ToLower(name)]; ok {
			key = long
		}
		if key == "E" && flags["E"] != "" {
			val = flags["E"] + "," + val
		}
		flags[key] = val
	}
	return flags, nil
}

// ruleArgs reads a RewriteRule's or RewriteCond's two arguments and
// its [flags] ("" where it has none), as mod_rewrite's parseargline
// splits them; usage names the two for the error.
func ruleArgs(d *Directive, usage string) (a, b, flags string, err error) {
	if len(d.Args) < 2 || len(d.Args) > 3 {
		return "", "", "", fmt.Errorf("takes %s and optional [flags]", usage)
	}
	if len(d.Args) == 3 {
		flags = d.Args[2]
	}
	return d.Args[0], d.Args[1], flags, nil
}

func readRule(d *Directive) (rule, error) {
	r := rule{d: d}
	var fl string
	var err error
	if r.pattern, r.subst, fl, err = ruleArgs(d, "a pattern, a substitution"); err != nil {
		return r, err
	}
	if r.subst == "" {
		// A quoted pattern alone: parseargline reads an empty
		// substitution, which Apache rewrites to the directory itself.
		return r, fmt.Errorf("an empty substitution is not translated")
	}
	if strings.HasPrefix(r.pattern, "!") {
		r.neg, r.pattern = true, r.pattern[1:]
	}
	if r.flags, err = readFlags(fl); err != nil {
		return r, err
	}
	for k := range r.flags {
		if !ruleFlags[k] {
			return r, fmt.Errorf("unknown flag %q: Apache refuses the rule", k)
		}
	}
	if v, ok := r.flags["R"]; ok {
		// Read once here, so that the steps written and the notes
		// agree on it.
		code, word, err := rewriteStatus(v)
		if err != nil {
			return r, fmt.Errorf("[R=%s]: %v", v, err)
		}
		if word {
			r.rWord = v
		}
		r.flags["R"] = strconv.Itoa(code)
	}
	return r, nil
}

func readCond(d *Directive) (cond, error) {
	cd := cond{d: d}
	test, pattern, flags, err := ruleArgs(d, "a test string, a pattern")
	if err != nil {
		return cd, err
	}
	cd.test, cd.pattern = test, pattern
	if flags != "" {
		fl, err := readFlags(flags)
		if err != nil {
			return cd, err
		}
		for k := range fl {
			switch strings.ToUpper(k) {
			case "NC", "NOCASE":
				cd.nc = true
			case "OR", "ORNEXT":
				cd.or = true
			case "NV", "NOVARY":
			default:
				return cd, fmt.Errorf("flag %s is not supported", k)
			}
		}
	}
	if strings.HasPrefix(cd.pattern, "!") {
		cd.negative, cd.pattern = true, cd.pattern[1:]
	}
	return cd, nil
}

// redirectGoesOn notes a redirect without [L] or [END] where a later
// rule may match what mod_rewrite goes on with: the string
// "redirect:URL" (Apache's docs: use [R] with [L]). The steps answer
// the redirect at once; Apache's later rule may answer otherwise (a
// catch-all's internal rewrite, [F]).
func (c *rwCtx) redirectGoesOn(r rule, later []rule) {
	if r.has("L") || r.has("END") || r.subst == "-" || r.has("F") || r.has("G") {
		return
	}
	low := strings.ToLower(r.subst)
	if !r.has("R") && !strings.HasPrefix(low, "http://") && !strings.HasPrefix(low, "https://") {
		return
	}
	for _, l := range later {
		if mayMatchRedirect(l) {
			c.t.note(r.d, importer.Caveat, "a redirect without [L]: Apache goes on with the rules, matching \"redirect:URL\", and %s may match it and answer otherwise; the import answers the redirect", l.d.Source())
			return
		}
	}
}

// mayMatchRedirect reports whether a rule's pattern may match
// "redirect:http://...": a negated one, or one not anchored on a
// literal that such a string cannot start with.
func mayMatchRedirect(r rule) bool {
	p, ok := strings.CutPrefix(r.pattern, "^")
	if r.neg || !ok {
		return true
	}
	n := 0
	for n < len(p) && !strings.ContainsRune(`.[](){}*+?|\$^`, rune(p[n])) {
		n++
	}
	lit := p[:n]
	if n < len(p) && strings.ContainsRune("?*{", rune(p[n])) && n > 0 {
		lit = lit[:n-1] // its last byte is optional
	}
	if r.has("NC") {
		lit = strings.ToLower(lit)
	}
	return strings.HasPrefix("redirect:https://", lit) || strings.HasPrefix(lit, "redirect:http")
}
