package nginx

import (
	"fmt"
	"strings"

	"github.com/redirectd/redirectd/internal/ascii"
	"github.com/redirectd/redirectd/matcher"
)

// toCtx says what a target's captures and variables become in one rule.
type toCtx struct {
	regex bool // the rule is a regex rule: $path, $host, $query, ${n} exist
	// groups and names are the regex groups the rule's `from` has.
	ngroups int
	names   []string
	// concrete, when set, is the request state of an exact rule: captures
	// and map values are known text, and so is $uri unless fold is set
	// (the rule ignores case, so the path as sent varies).
	concrete *evalCtx
	fold     bool
	srv      *server
	// mapv and value stand for the map variable: the entry's value, whose
	// captures are the rule's own groups.
	mapv  *nmap
	value []part
	// base is the one path a regex rule's `from` matches (^/lit$), "" if
	// it matches more: a relative target is resolved against it.
	base string
	// rewrites says, for the report, how translateTarget wrote a target
	// nginx sends but redirectd refuses, and caveats what it sends as
	// nginx does but check warns about; valueQuery records that the map
	// value inlined holds a '?'.
	rewrites   []string
	caveats    []string
	valueQuery bool
	// argsQ: nginx appends the request's arguments after a '?' (a
	// rewrite whose own text has none), and every request the rule
	// matches has some (a $request_uri key whose literal start holds a
	// '?'): a value holding a '?' then gets a second one, as nginx sends.
	argsQ bool
}

// errNeedsRegex is returned for an exact rule whose target needs a
// variable only regex rules have.
var errNeedsRegex = fmt.Errorf("needs a regex rule")

// translateTarget writes parts as a redirectd `to` and picks the query
// mode: addArgs (a rewrite that keeps the arguments) is "keep", anything
// else "replace" (the Location is the target as written), except that a
// target ending in $request_uri or $is_args$args keeps the query too.
func translateTarget(parts []part, addArgs bool, c *toCtx) (string, matcher.QueryMode, error) {
	parts = c.inline(parts)
	mode := matcher.QueryReplace
	if addArgs {
		mode = matcher.QueryKeep
	}
	w := &targetWriter{c: c}
	for i := range parts {
		keep, end, err := w.part(parts, i, addArgs)
		if err != nil {
			return "", 0, err
		}
		if end {
			// $is_args$args ends the target: the query is kept and
			// what came before is the target as written.
			return w.b.String(), matcher.QueryKeep, nil
		}
		if keep {
			mode = matcher.QueryKeep
		}
	}
	if w.b.Len() == 0 {
		return "", 0, fmt.Errorf("the Location is empty")
	}
	return c.finishTarget(parts, w.b.String(), w.encoded, mode)
}

// targetWriter builds a `to` from a target's parts, one at a time.
type targetWriter struct {
	c *toCtx
	b strings.Builder
	// encoded says that a literal byte nginx sends as is was
	// percent-encoded, for the report.
	encoded bool
}

// lit writes literal text, escaped as a redirectd Location needs.
func (w *targetWriter) lit(s string) {
	if strings.ContainsAny(s, " \\\"<>") {
		// nginx sends these as they are; redirectd refuses them in a
		// Location, and a client percent-encodes them (and reads a
		// backslash as '/' in a browser, as %5C in curl).
		s = locationEscapes.Replace(s)
		w.encoded = true
	}
	if w.c.regex {
		s = strings.ReplaceAll(s, "$", "$$")
	}
	w.b.WriteString(s)
}

// special writes a redirectd variable, which only a regex rule has.
func (w *targetWriter) special(s string) error {
	if !w.c.regex {
		return errNeedsRegex
	}
	w.b.WriteString(s)
	return nil
}

// part writes parts[i]. keep says that the target keeps the request's
// query ($request_uri at its end); end that parts[i] and the rest are
// $is_args$args, which keep the query and write nothing.
func (w *targetWriter) part(parts []part, i int, addArgs bool) (keep, end bool, err error) {
	c, p, last := w.c, parts[i], i == len(parts)-1
	switch {
	case p.kind == partLit:
		w.lit(p.text)
	case p.kind == partCapture || p.kind == partVar && c.isGroupName(p.text):
		if c.concrete != nil {
			v, _ := c.concrete.render([]part{p})
			w.lit(v)
			return false, false, nil
		}
		if p.kind == partCapture && int(p.text[0]-'0') > c.ngroups {
			return false, false, nil // nginx leaves a capture the regex lacks empty
		}
		return false, false, w.special("${" + p.text + "}")
	case p.text == "uri" || p.text == "document_uri" || p.text == "request_uri":
		if p.text == "request_uri" {
			if !last {
				return false, false, fmt.Errorf("$request_uri is followed by more text; only a target ending with it is translated")
			}
			if addArgs {
				return false, false, fmt.Errorf("the replacement ends with $request_uri but not with '?', so nginx appends the arguments twice; end it with '?'")
			}
			keep = true
		}
		if c.concrete != nil && !c.fold {
			w.lit(c.concrete.req.path)
			return keep, false, nil
		}
		// $request_uri's path is the client's bytes (${path}); $uri is
		// decoded and resolved (${uri}, encoded again when written).
		v := "${uri}"
		if p.text == "request_uri" {
			v = "${path}"
		}
		return keep, false, w.special(v)
	case p.text == "is_args":
		if i != len(parts)-2 || (parts[i+1].text != "args" && parts[i+1].text != "query_string") || addArgs {
			return false, false, fmt.Errorf("$is_args is translated only as $is_args$args at the end of a return URL")
		}
		return true, true, nil
	case p.text == "args" || p.text == "query_string":
		return false, false, w.special("${query}")
	case p.text == "host":
		return false, false, w.special("${host}")
	case p.text == "scheme":
		sch, _ := c.srv.fixedScheme()
		w.lit(sch)
	case p.text == "server_name":
		if len(c.srv.names) > 0 {
			w.lit(c.srv.names[0])
		}
	default:
		return false, false, fmt.Errorf("variable $%s has no redirectd equivalent", p.text)
	}
	return false, false, nil
}

// finishTarget turns to, the target written from parts, into what
// nginx's client ends up at: a slash typo after the scheme mended, a
// relative target resolved where the rule fixes the path, the query
// joined as nginx joins it. It notes each change for the report.
func (c *toCtx) finishTarget(parts []part, to string, encoded bool, mode matcher.QueryMode) (string, matcher.QueryMode, error) {
	if encoded {
		c.rewrites = append(c.rewrites, fmt.Sprintf("target %s is written %s: nginx sends a space, backslash, quote, < or > as is, redirectd refuses them in a Location", partsString(parts), to))
	}
	if first := parts[0]; c.concrete == nil && (first.kind == partCapture || first.kind == partVar && c.isGroupName(first.text)) {
		c.caveats = append(c.caveats, fmt.Sprintf("target %s starts with a capture and is sent as it is: where the capture does not start with '/' or a scheme, the client resolves it against the request's path, as it does nginx's", partsString(parts)))
	}
	if fixed, ok := slashTypo(to); ok {
		c.rewrites = append(c.rewrites, fmt.Sprintf("target %s is written %s: nginx sends it as it is, and browsers read the one slash after the scheme as two", partsString(parts), fixed))
		to = fixed
	}
	if isRelative(to) {
		abs, ok := c.resolveRelative(parts, to)
		if !ok {
			return to, mode, checkControl(to)
		}
		to = abs
	}
	if c.argsQ && c.valueQuery && mode == matcher.QueryKeep {
		// redirectd would join with '&'; nginx writes "?" and the
		// arguments, which this rule's requests always have.
		to += "?${query}"
		mode, c.valueQuery = matcher.QueryReplace, false
	}
	return to, mode, checkControl(to)
}

// resolveRelative resolves the relative target to, written from parts,
// against the one path the rule matches. It is false, with a caveat
// noted, when the rule matches more than one path: the target is then
// sent as it is, as nginx sends it.
func (c *toCtx) resolveRelative(parts []part, to string) (string, bool) {
	base := c.base
	if c.concrete != nil && c.fold {
		// A key compared without case: the request's path is the
		// key in any case, and the client resolves against that.
		base = ""
	} else if c.concrete != nil {
		base = c.concrete.req.path
		if c.regex {
			base = strings.ReplaceAll(base, "$", "$$")
		}
	}
	if base == "" {
		// Sent as nginx sends it: as is, to be resolved by the
		// client against the request's path, which this rule's
		// regex does not fix.
		c.caveats = append(c.caveats, fmt.Sprintf("relative target %s is sent as it is, as nginx sends it: the client resolves it against the request's path (check warns about it)", partsString(parts)))
		return "", false
	}
	abs := resolvePath(base, to)
	c.rewrites = append(c.rewrites, fmt.Sprintf("relative target %s is written %s, the path a client makes of it for %s (check can follow it there)", partsString(parts), abs, base))
	return abs, true
}

// checkControl refuses a Location with a control character, which would
// end the answer's header early.
func checkControl(to string) error {
	if i := ascii.IndexControl(to); i >= 0 {
		return fmt.Errorf("the Location %q holds a control character at byte %d", to, i)
	}
	return nil
}

func (c *toCtx) isGroupName(name string) bool {
	if c.concrete != nil {
		_, ok := c.concrete.names[name]
		return ok
	}
	for _, n := range c.names {
		if n == name && n != "" {
			return true
		}
	}
	return false
}

// inline replaces the map variable by the entry's value: for an exact
// rule the value nginx computed, for a rule made of a regex map entry the
// value with its captures, which are then the rule's own groups.
func (c *toCtx) inline(parts []part) []part {
	if c.mapv == nil {
		return parts
	}
	var out []part
	for _, p := range parts {
		if p.kind == partVar && p.text == c.mapv.name {
			if c.concrete != nil {
				v := c.concrete.mapValue[c.mapv.name]
				c.valueQuery = c.valueQuery || strings.Contains(v, "?")
				out = append(out, part{kind: partLit, text: v})
				continue
			}
			for _, v := range c.value {
				c.valueQuery = c.valueQuery || v.kind == partLit && strings.Contains(v.text, "?")
			}
			out = append(out, c.value...)
			continue
		}
		out = append(out, p)
	}
	return out
}

// isRelative reports whether a written target is a relative reference
// that does not start with '/': not "/x", "//host/x", "${...}" (a variable
// whose value decides) or "scheme:...".
func isRelative(to string) bool {
	if to == "" || to[0] == '/' || strings.HasPrefix(to, "${") {
		return false
	}
	for i := 0; i < len(to); i++ {
		c := to[i]
		switch {
		case c == ':':
			return i == 0
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return true
		}
	}
	return true
}

// resolvePath resolves a relative reference against the path base as a
// client does (RFC 3986, section 5.2): "x/y" from "/a/b" is "/a/x/y",
// "../x" is "/x", "?q" is "/a/b?q".
func resolvePath(base, ref string) string {
	if strings.HasPrefix(ref, "?") {
		return base + ref
	}
	p, rest := ref, ""
	if i := strings.IndexAny(ref, "?#"); i >= 0 {
		p, rest = ref[:i], ref[i:]
	}
	full := base[:strings.LastIndexByte(base, '/')+1] + p
	var out []string
	segs := strings.Split(full, "/")
	for i, seg := range segs {
		last := i == len(segs)-1
		switch seg {
		case ".":
			if last {
				out = append(out, "")
			}
		case "..":
			if len(out) > 1 {
				out = out[:len(out)-1]
			}
			if last {
				out = append(out, "")
			}
		default:
			out = append(out, seg)
		}
	}
	return strings.Join(out, "/") + rest
}
