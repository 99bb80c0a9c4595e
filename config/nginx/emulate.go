package nginx

import (
	"fmt"
	"regexp/syntax"
	"slices"
	"strings"

	"github.com/redirectd/redirectd/httpparse"
	"github.com/redirectd/redirectd/matcher"
)

// outcome is what nginx does with one request, as the model sees it.
type outcome struct {
	redirect bool
	status   int
	location string
	// unknown: a directive the model cannot follow (an internal rewrite)
	// decided, so nothing can be said.
	unknown bool
	step    *step
	// ctx is the request's state when step decided: its captures and the
	// map values it read.
	ctx *evalCtx
	// entry is the map entry an if ($map) step found, nil for the default.
	entry *mapEntry
	// why says what made the outcome unknown.
	why string
}

// request is one request the model is asked about.
type request struct {
	host, path, query string
	https             bool // over TLS
}

// evalCtx is what a target's variables read while one request is handled.
type evalCtx struct {
	req request
	// uri is nginx's $uri of req.path: decoded, slashes merged, dot
	// segments resolved, which locations, rewrites and maps read.
	uri      string
	srv      *server
	groups   []string          // the last regex's captures, $0 first
	names    map[string]string // its named groups
	mapValue map[string]string // evaluated map variables
	mapEntry map[string]*mapEntry
	// m is the model, for the maps an if reads; args is $args, which
	// `set $args` changes; vars are the variables set, nil for a value
	// the model could not render.
	m    *model
	args string
	vars map[string]*string
}

// emulate answers req as nginx would, as far as the model knows.
func (m *model) emulate(req request) outcome {
	s := m.selectServer(req.host, req.https)
	if s == nil {
		return outcome{}
	}
	uri, ok := matcher.AppendNginxURI(nil, []byte(req.path), m.keepSlashes)
	if !ok {
		return outcome{} // nginx answers 400
	}
	c := &evalCtx{req: req, uri: string(uri), srv: s, m: m, args: req.query}
	if o, done := m.runSteps(s.pre, c); done {
		return o
	}
	l := s.selectLocation(c.uri, c)
	if l == nil {
		return outcome{}
	}
	o, _ := m.runSteps(l.steps, c)
	return o
}

// selectServer picks the server block for a host as nginx does: among
// the servers listening on the request's kind of port, an exact name, then
// the longest leading wildcard, then the default server of that port.
func (m *model) selectServer(host string, https bool) *server {
	host = strings.TrimSuffix(strings.ToLower(hostOnly(host)), ".")
	k := kindOf(https)
	var best *server
	bestLen := -1
	for _, s := range m.servers {
		if !s.on[k] {
			continue
		}
		for _, n := range s.names {
			switch {
			case n == host:
				return s
			case strings.HasPrefix(n, "*.") && strings.HasSuffix(host, n[1:]) && len(n) > bestLen:
				best, bestLen = s, len(n)
			case strings.HasPrefix(n, ".") && (host == n[1:] || strings.HasSuffix(host, n)) && len(n) > bestLen:
				best, bestLen = s, len(n)
			}
		}
	}
	if best != nil {
		return best
	}
	for _, s := range m.servers {
		if s.dfltOn[k] {
			return s
		}
	}
	return nil
}

func hostOnly(h string) string { return httpparse.HostName(h) }

// selectLocation is nginx's location search (ngx_http_core_find_location)
// over the server's locations.
func (s *server) selectLocation(path string, c *evalCtx) *location {
	l, _ := findLocation(s.top, path, c)
	return l
}

// findLocation searches one level of locations and, through the one it
// finds, the levels nested in it: an exact match ends the search; else
// the longest prefix, whose nested locations are searched in turn (a
// nested exact or regex match ends the search); then, unless that
// longest prefix is ^~, this level's regexes in order, the first that
// matches being searched for nested locations too; else the prefix
// found. final reports an exact or regex match, which the levels above
// keep.
func findLocation(locs []*location, path string, c *evalCtx) (found *location, final bool) {
	var longest *location
	for _, l := range locs {
		switch l.mod {
		case "=":
			if l.path == path {
				return l, true
			}
		case "", "^~":
			if strings.HasPrefix(path, l.path) && (longest == nil || len(l.path) > len(longest.path)) {
				longest = l
			}
		}
	}
	noregex := false
	if longest != nil {
		found, noregex = longest, longest.mod == "^~"
		if sub, fin := findLocation(longest.children, path, c); sub != nil {
			if fin {
				return sub, true
			}
			found = sub
		}
	}
	if !noregex {
		for _, l := range locs {
			if l.re != nil && c.match(l.re) {
				if sub, _ := findLocation(l.children, path, c); sub != nil {
					return sub, true
				}
				return l, true
			}
		}
	}
	return found, false
}

// match runs re on the path, keeping its captures as nginx does.
func (c *evalCtx) match(re *nginxRegex) bool {
	sub := re.re.FindStringSubmatch(c.uri)
	if sub == nil {
		return false
	}
	c.groups, c.names = sub, map[string]string{}
	for i, n := range re.re.SubexpNames() {
		if n != "" {
			c.names[n] = sub[i]
		}
	}
	return true
}

// runSteps runs rewrite-phase steps in order; done reports that one ended
// the request.
func (m *model) runSteps(steps []*step, c *evalCtx) (outcome, bool) {
	for _, st := range steps {
		switch st.kind {
		case stepStop:
			if st.re != nil && !c.match(st.re) {
				continue
			}
			return outcome{unknown: st.re != nil, step: st}, true
		case stepReturn:
			return c.redirect(st, false), true
		case stepIfHost:
			// nginx compares $host, lower-cased and without its port or
			// final dot, with the name as written.
			if h, _ := c.variable("host"); h != st.host {
				continue
			}
			return c.redirect(st, false), true
		case stepRewrite:
			if !c.match(st.re) {
				continue
			}
			return c.redirect(st, st.addArgs), true
		case stepOpaque:
			return outcome{unknown: true, step: st}, true
		case stepSet:
			c.runSet(st)
		case stepIf:
			ok, known := c.test(st.cond)
			if !known {
				return outcome{unknown: true, step: st}, true
			}
			if !ok {
				continue
			}
			if o, done := m.runSteps(st.block, c); done {
				return o, true
			}
		case stepIfMap:
			v, ok := c.mapLookup(st.mapv)
			if !ok {
				return outcome{unknown: true, step: st}, true
			}
			if st.always && v == "" {
				return outcome{unknown: true, step: st, why: fmt.Sprintf("nginx answers %d with no Location where the map gives \"\"", st.status)}, true
			}
			if !st.always && st.falseValue(v) {
				continue
			}
			o := c.redirect(st, st.addArgs)
			o.entry = c.mapEntry[st.mapv.name]
			return o, true
		}
	}
	return outcome{}, false
}

// redirect renders a step's target for the request.
func (c *evalCtx) redirect(st *step, addArgs bool) outcome {
	loc, ok := c.render(st.target)
	if !ok {
		return outcome{unknown: true, step: st, why: "uses a variable redirectd has no equivalent for"}
	}
	if addArgs && c.args != "" {
		if st.argsAmp {
			loc += "&" + c.args
		} else {
			loc += "?" + c.args
		}
	}
	return outcome{redirect: true, status: st.status, location: loc, step: st, ctx: c}
}

// render expands a target; ok is false for a variable the model does not
// know.
func (c *evalCtx) render(parts []part) (string, bool) {
	var b strings.Builder
	for _, p := range parts {
		switch p.kind {
		case partLit:
			b.WriteString(p.text)
		case partCapture:
			i := int(p.text[0] - '0')
			if i < len(c.groups) {
				b.WriteString(c.groups[i])
			}
		case partVar:
			v, ok := c.variable(p.text)
			if !ok {
				return "", false
			}
			b.WriteString(v)
		}
	}
	return b.String(), true
}

func (c *evalCtx) variable(name string) (string, bool) {
	if v, ok := c.vars[name]; ok {
		if v == nil {
			return "", false
		}
		return *v, true
	}
	switch name {
	case "uri", "document_uri":
		return c.uri, true
	case "request_uri":
		if c.req.query != "" {
			return c.req.path + "?" + c.req.query, true
		}
		return c.req.path, true
	case "args", "query_string":
		return c.args, true
	case "is_args":
		if c.args != "" {
			return "?", true
		}
		return "", true
	case "host":
		return strings.TrimSuffix(strings.ToLower(hostOnly(c.req.host)), "."), true
	case "scheme":
		if c.req.https {
			return "https", true
		}
		return "http", true
	case "server_name":
		if len(c.srv.names) > 0 {
			return c.srv.names[0], true
		}
		return "", true
	}
	if v, ok := c.names[name]; ok {
		return v, true
	}
	if v, ok := c.mapValue[name]; ok {
		return v, true
	}
	return c.requestVariable(name)
}

// mapLookup evaluates a map variable as nginx does: exact keys (without
// case), then hostnames wildcards (the longest), then regexes in order,
// then the default.
func (c *evalCtx) mapLookup(mp *nmap) (string, bool) {
	if mp.partial {
		return "", false
	}
	src, ok := c.render(mp.src)
	if !ok {
		return "", false
	}
	if mp.hostnames {
		src = strings.TrimSuffix(src, ".")
	}
	var ent *mapEntry
	var groups []string
	low := lowerASCII(src) // as nginx's map lowers what it looks up
	prefix := ""
	if mp.scheme {
		prefix = "http://"
	}
	ix := mp.index()
	ent = ix.exact[low]
	if ent == nil {
		for _, e := range mp.wild {
			if (strings.HasSuffix(low, e.key) || e.apex && low == e.key[1:]) && (ent == nil || len(e.key) > len(ent.key)) {
				ent = e
			}
		}
	}
	if ent == nil {
		for _, i := range ix.candidates(src, prefix, mp.byHost) {
			e := mp.regex[i]
			subject := src
			if mp.byHost {
				rest, ok := strings.CutPrefix(src, prefix+e.host)
				if !ok || !strings.HasPrefix(rest, "/") {
					continue
				}
				subject = rest
			}
			if groups = e.re.re.FindStringSubmatch(subject); groups != nil {
				ent = e
				break
			}
		}
	}
	value := mp.dflt
	if ent != nil {
		value = ent.value
	}
	sub := &evalCtx{req: c.req, uri: c.uri, srv: c.srv, groups: groups, m: c.m, args: c.args, vars: c.vars}
	v, ok := sub.render(value)
	if !ok {
		return "", false
	}
	if c.mapValue == nil {
		c.mapValue, c.mapEntry = map[string]string{}, map[string]*mapEntry{}
	}
	c.mapValue[mp.name], c.mapEntry[mp.name] = v, ent
	return v, true
}

// mapIndex finds a big map's entries without trying every one: the exact
// keys by their full text, the regexes by the literal they start with, so
// that only the regexes whose literal starts the subject run (in file
// order, as nginx tries them). The import asks the model about every key
// of the map; trying all 42,000 regexes of a real site map for each took
// minutes.
type mapIndex struct {
	exact map[string]*mapEntry
	// byLit and foldLit hold the indexes in regex of the entries whose
	// subject must start with the key (foldLit: compared lower-cased);
	// entries with no usable literal are under "".
	byLit, foldLit map[string][]int
	// need is, by entry, a literal every match contains (lower-cased when
	// it folds case), "" if none: the regexes with no literal prefix
	// beyond '/' are skipped for a subject that lacks it.
	need     []string
	needFold []bool
}

func (mp *nmap) index() *mapIndex {
	if mp.idx != nil {
		return mp.idx
	}
	ix := &mapIndex{exact: map[string]*mapEntry{}, byLit: map[string][]int{}, foldLit: map[string][]int{}}
	prefix := ""
	if mp.scheme {
		prefix = "http://"
	}
	for _, e := range mp.exact {
		k := prefix + e.host + e.key
		if ix.exact[k] == nil {
			ix.exact[k] = e
		}
	}
	for i, e := range mp.regex {
		lit := ""
		if e.re.anchored && !strings.Contains(e.re.src, "(?") {
			lit = e.re.literal
		}
		if e.re.ci {
			ix.foldLit[lit] = append(ix.foldLit[lit], i)
		} else {
			ix.byLit[lit] = append(ix.byLit[lit], i)
		}
		need, fold := requiredLiteral(e.re)
		ix.need, ix.needFold = append(ix.need, need), append(ix.needFold, fold)
	}
	mp.idx = ix
	return ix
}

// candidates returns, in file order, the regex entries that can match src
// (for a map on a host and a URI, the subject is src after the scheme and
// the entry's host, so every prefix of the rest is looked up).
func (ix *mapIndex) candidates(src, prefix string, byHost bool) []int {
	subject := src
	if byHost {
		rest := strings.TrimPrefix(src, prefix)
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			subject = rest[i:]
		}
	}
	low := strings.ToLower(subject)
	var out []int
	for n := 0; n <= len(subject); n++ {
		out = append(out, ix.byLit[subject[:n]]...)
		out = append(out, ix.foldLit[low[:n]]...)
	}
	slices.Sort(out)
	kept := out[:0]
	for _, i := range out {
		switch n := ix.need[i]; {
		case n == "":
		case ix.needFold[i] && !strings.Contains(low, n), !ix.needFold[i] && !strings.Contains(subject, n):
			continue
		}
		kept = append(kept, i)
	}
	return kept
}

// requiredLiteral returns the longest literal among the pieces a regex
// is a sequence of, which every match contains, and whether it folds case.
func requiredLiteral(re *nginxRegex) (string, bool) {
	tree, err := syntax.Parse(re.re.String(), syntax.Perl)
	if err != nil {
		return "", false
	}
	tree = tree.Simplify()
	subs := []*syntax.Regexp{tree}
	if tree.Op == syntax.OpConcat {
		subs = tree.Sub
	}
	best, fold := "", false
	for _, sub := range subs {
		for sub.Op == syntax.OpCapture {
			sub = sub.Sub[0]
		}
		if sub.Op != syntax.OpLiteral || len(string(sub.Rune)) <= len(best) {
			continue
		}
		best, fold = string(sub.Rune), sub.Flags&syntax.FoldCase != 0
		if fold {
			best = strings.ToLower(best)
		}
	}
	return best, fold
}
