package rewrite

import (
	"fmt"
	"strings"
)

// Program is one server's compiled request processing. It is immutable
// and safe for concurrent use.
type Program struct {
	server []step
	// pages are the server's error_page directives.
	pages   []errorPage
	root    level
	named   map[string]*location
	maps    []*mapVar
	nvars   int
	maxCaps int
	// spec is the Spec compiled, for List (trace.go).
	spec Spec
}

// Compile compiles spec, reporting the first problem as an *Error.
func Compile(spec Spec) (*Program, error) {
	return compile(spec, nil, nil)
}

// compile is Compile, with first run on the compiler before the rest
// (a regex server name's groups, which the steps may read), and the
// maps that earlier Programs compiled (nil: none kept).
func compile(spec Spec, first func(*compiler) error, shared *share) (*Program, error) {
	c := newCompiler()
	c.shared = shared
	if first != nil {
		if err := first(c); err != nil {
			return nil, err
		}
	}
	p := &Program{named: map[string]*location{}, spec: spec}
	if err := c.declareMaps(spec.Maps); err != nil {
		return nil, err
	}
	for i := range spec.Maps {
		ms := &spec.Maps[i]
		m := c.shared.mapVar(ms)
		if m == nil {
			m = c.shared.slotMap(c, ms)
		}
		if m != nil {
			c.maxCaps = max(c.maxCaps, m.caps)
		} else {
			var err error
			if m, err = c.compileMapShared(ms); err != nil {
				return nil, err
			}
		}
		p.maps = append(p.maps, m)
	}
	for _, t := range spec.Steps {
		steps, decl, err := c.compileSteps(t.Src, t.Line)
		if err == nil && (decl.try != nil || decl.internal) {
			err = errAt(t.Line, "try_files and internal: redirectd takes them in a location only")
		}
		if err != nil {
			if e, ok := err.(*Error); ok {
				e.Key = "steps"
			}
			return nil, err
		}
		p.server = append(p.server, steps...)
		p.pages = append(p.pages, decl.pages...)
	}
	if err := c.compileLevel(p, &p.root, spec.Locations, nil); err != nil {
		return nil, err
	}
	if err := c.undefined(); err != nil {
		return nil, err
	}
	p.nvars, p.maxCaps = len(c.defined), c.maxCaps
	return p, nil
}

// compileLevel compiles the locations of one level into lv; parent is
// the location they are nested in (nil at the server's level).
func (c *compiler) compileLevel(p *Program, lv *level, specs []LocationSpec, parent *location) error {
	seen := map[string]bool{}
	for i := range specs {
		l, err := c.compileLocation(p, &specs[i], parent)
		if err != nil {
			return err
		}
		// nginx refuses two exact or two prefix locations (^~ or not)
		// of one path, and takes regexes as they come.
		key := l.kind.String() + l.path
		if l.kind == PrefixNoRegex {
			key = l.path
		}
		if seen[key] && l.kind != Regex && l.kind != RegexCI {
			return &Error{Location: l.name, Line: specs[i].Line, Key: "path", Msg: "duplicate location"}
		}
		seen[key] = true
		if l.kind == Named {
			if parent != nil {
				return &Error{Location: l.name, Line: specs[i].Line, Key: "match", Msg: "a named location cannot be nested"}
			}
			p.named[l.path] = l
			continue
		}
		lv.add(l)
	}
	if parent != nil && (parent.kind == Prefix || parent.kind == PrefixNoRegex) {
		// Its nested paths start with its own (checkLocation), and
		// the level is searched only for a URI that does.
		lv.skip = len(parent.path)
	}
	lv.finish()
	return nil
}

// compileLocation compiles one location and those nested in it.
func (c *compiler) compileLocation(p *Program, sp *LocationSpec, parent *location) (*location, error) {
	l := &location{kind: sp.Match, path: sp.Path, pass: sp.Pass, upstream: sp.Upstream, uri: sp.URI, hasURI: sp.HasURI, line: sp.Line}
	l.name = strings.TrimSpace(sp.Match.String() + " " + sp.Path)
	if sp.Match == Named {
		l.name = "@" + sp.Path
	}
	fail := func(key, format string, a ...any) (*location, error) {
		return nil, &Error{Location: l.name, Line: sp.Line, Key: key, Msg: fmt.Sprintf(format, a...)}
	}
	if key, err := checkLocation(sp, parent); err != "" {
		return fail(key, "%s", err)
	}
	c.where = l.name
	if sp.Match == Regex || sp.Match == RegexCI {
		re, err := c.compileRegex(sp.Path, sp.Match == RegexCI)
		if err != nil {
			return fail("path", "%v", err)
		}
		l.re = re
	}
	var err error
	var decl *parser
	if l.steps, decl, err = c.compileSteps(sp.Steps, sp.StepsLine); err != nil {
		if e, ok := err.(*Error); ok {
			e.Location, e.Key = l.name, "steps"
		}
		return nil, err
	}
	l.pages, l.try, l.internal = decl.pages, decl.try, decl.internal
	if len(l.pages) == 0 {
		// nginx merges error_page as a whole list: a location without
		// its own takes the enclosing block's.
		l.pages = p.pages
		if parent != nil {
			l.pages = parent.pages
		}
	}
	l.intercept = sp.InterceptErrors && sp.Pass && len(l.pages) > 0
	l.autoRedirect = sp.Pass && (sp.Match == Exact || sp.Match == Prefix || sp.Match == PrefixNoRegex) &&
		strings.HasSuffix(sp.Path, "/")
	if err := c.compileLevel(p, &l.sub, sp.Locations, l); err != nil {
		return nil, err
	}
	return l, nil
}

// checkLocation reports what nginx refuses in a location, and the key
// at fault; "" if nothing.
func checkLocation(sp *LocationSpec, parent *location) (key, msg string) {
	regex := sp.Match == Regex || sp.Match == RegexCI
	switch {
	case sp.Match > Named:
		return "match", "unknown match kind"
	case sp.Path == "":
		return "path", "the path is empty"
	case !regex && sp.Match != Named && !strings.HasPrefix(sp.Path, "/"):
		return "path", "the path must start with '/'"
	case sp.HasURI && (regex || sp.Match == Named):
		return "upstream_uri", "a URI part cannot replace the path of a regex or named location (nginx refuses it in proxy_pass)"
	case sp.Match == Exact && len(sp.Locations) > 0:
		return "location", "an exact location cannot hold nested locations"
	case parent == nil:
		return "", ""
	case !regex && (parent.kind == Prefix || parent.kind == PrefixNoRegex) && !strings.HasPrefix(sp.Path, parent.path):
		return "path", fmt.Sprintf("is outside location %q", parent.name)
	case (parent.kind == Regex || parent.kind == RegexCI) && !regex:
		return "match", fmt.Sprintf("only a regex location can be nested in the regex location %q", parent.name)
	}
	return "", ""
}
