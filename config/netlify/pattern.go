package netlify

import (
	"fmt"
	"regexp"
	"strings"
)

// pattern is a from path read: its segments after the leading '/' (a
// trailing slash dropped: Netlify treats /a and /a/ as one path), and
// whether a splat (a final *) takes the rest. A splat after a character
// other than '/' (/docs/kubectl_*) has splatLit, the text of its segment
// before the '*': Netlify documents that "an asterisk matches anything
// that follows it", so the splat takes the rest of that segment and all
// that follows.
type pattern struct {
	segs     []seg
	splat    bool
	splatLit string
	names    []string
}

// seg is a literal segment, or a placeholder when param is set.
type seg struct{ lit, param string }

var nameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func parsePattern(from string) (pattern, error) {
	var p pattern
	base := from
	if len(base) > 1 {
		base = strings.TrimSuffix(base, "/")
	}
	if base == "/*" || strings.HasSuffix(base, "/*") {
		p.splat = true
		base = strings.TrimSuffix(base, "*")
		base = strings.TrimSuffix(base, "/")
	}
	if !p.splat && strings.HasSuffix(base, "*") {
		p.splat = true
		base = strings.TrimSuffix(base, "*")
		i := strings.LastIndexByte(base, '/')
		base, p.splatLit = base[:i], base[i+1:]
		if strings.HasPrefix(p.splatLit, ":") {
			return p, fmt.Errorf("the placeholder %q is followed by '*'; a placeholder is a whole segment", p.splatLit)
		}
		if base == "" {
			base = "/"
		}
	}
	if strings.Contains(base, "*") || strings.Contains(p.splatLit, "*") {
		return p, fmt.Errorf("a '*' is a splat only at the end of the path")
	}
	if base == "/" || base == "" {
		return p, nil
	}
	for _, s := range strings.Split(base[1:], "/") {
		if s == "" {
			return p, fmt.Errorf("the path has an empty segment (//), which Netlify's trailing-slash rule makes ambiguous")
		}
		if name, ok := strings.CutPrefix(s, ":"); ok {
			if !nameRE.MatchString(name) || name == "splat" {
				return p, fmt.Errorf("the placeholder %q is not a name of letters, digits and _ (and not :splat)", s)
			}
			for _, n := range p.names {
				if n == name {
					return p, fmt.Errorf("the placeholder %q is used twice", s)
				}
			}
			p.names = append(p.names, name)
			p.segs = append(p.segs, seg{param: name})
			continue
		}
		p.segs = append(p.segs, seg{lit: s})
	}
	return p, nil
}

// match reports whether Netlify applies the pattern to path: after its
// trailing slash is dropped, literal segments equal, each placeholder one
// segment that is not empty, the splat anything after.
func (p *pattern) match(path string) bool {
	if len(path) > 1 {
		path = strings.TrimSuffix(path, "/")
	}
	var parts []string
	if path != "/" {
		parts = strings.Split(strings.TrimPrefix(path, "/"), "/")
	}
	if len(parts) < len(p.segs) || !p.splat && len(parts) != len(p.segs) {
		return false
	}
	if p.splatLit != "" && (len(parts) == len(p.segs) || !strings.HasPrefix(parts[len(p.segs)], p.splatLit)) {
		return false
	}
	for i, s := range p.segs {
		if s.param == "" && parts[i] != s.lit || s.param != "" && parts[i] == "" {
			return false
		}
	}
	return true
}

// literal returns the path of a pattern with no placeholder and no splat.
func (p *pattern) literal() (string, bool) {
	if len(p.names) > 0 || p.splat {
		return "", false
	}
	return p.base(), true
}

// base is the path before the splat, of a pattern without placeholders.
func (p *pattern) base() string {
	var b strings.Builder
	for _, s := range p.segs {
		b.WriteString("/" + s.lit)
	}
	if b.Len() == 0 {
		return "/"
	}
	return b.String()
}

// regex returns the pattern as a regex on the path, without anchors: a
// placeholder is (?P<name>[^/]+), the splat (?P<splat>.*); a path without
// splat takes an optional trailing slash.
func (p *pattern) regex() string {
	var b strings.Builder
	for _, s := range p.segs {
		if s.param != "" {
			b.WriteString("/(?P<" + s.param + ">[^/]+)")
		} else {
			b.WriteString("/" + regexp.QuoteMeta(s.lit))
		}
	}
	switch {
	case p.splatLit != "":
		b.WriteString("/" + regexp.QuoteMeta(p.splatLit) + "(?P<splat>.*)")
	case p.splat:
		b.WriteString("(?:/(?P<splat>.*))?")
	case len(p.segs) == 0:
		b.WriteString("//?") // match drops one trailing slash: "//" is "/"
	default:
		b.WriteString("/?")
	}
	return b.String()
}

// samples returns paths the pattern matches: placeholders filled with
// x1, x2 ..., with and without a trailing slash, and for a splat nothing
// after the base and two segments after it.
func (p *pattern) samples() []string {
	var b strings.Builder
	n := 0
	for _, s := range p.segs {
		if s.param != "" {
			n++
			fmt.Fprintf(&b, "/x%d", n)
		} else {
			b.WriteString("/" + s.lit)
		}
	}
	path := b.String()
	if p.splatLit != "" {
		path += "/" + p.splatLit
		return []string{path, path + "s1", path + "s1/s2"}
	}
	if path == "" {
		if p.splat {
			return []string{"/", "/s1/s2"}
		}
		return []string{"/"}
	}
	out := []string{path, path + "/"}
	if p.splat {
		out = append(out, path+"/s1/s2")
	}
	return out
}

// prefix returns what every path the pattern matches starts with: its
// literal segments up to the first placeholder or the splat.
func (p *pattern) prefix() string {
	var b strings.Builder
	for _, s := range p.segs {
		b.WriteString("/")
		if s.param != "" {
			return b.String()
		}
		b.WriteString(s.lit)
	}
	if p.splatLit != "" {
		return b.String() + "/" + p.splatLit
	}
	if b.Len() == 0 {
		return "/"
	}
	return b.String()
}
