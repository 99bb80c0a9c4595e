package nginx

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/redirectd/redirectd/config/lint"
	"github.com/redirectd/redirectd/internal/ascii"
	"github.com/redirectd/redirectd/matcher"
)

// lowerASCII lower-cases the ASCII letters of s and nothing else, as
// nginx's map does with its keys and the value it looks up
// (ngx_hash_strlow): "/CAFÉ" is "/cafÉ", not "/café".
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; ascii.Lower(c) != c {
			b := append(make([]byte, 0, len(s)), s[:i]...)
			return string(ascii.AppendLower(b, s[i:]))
		}
	}
	return s
}

// exactKey is the key nginx's map stores for a string key as written:
// one leading backslash dropped (the escape for keys named like the map's
// parameters, "\default"), ASCII letters lower-cased. A trailing dot goes
// only in a hostnames map, whose looked-up host loses its own; a path
// key "/a." keeps it.
func exactKey(name string, hostnames bool) string {
	if hostnames {
		name = strings.TrimSuffix(name, ".")
	}
	name = strings.TrimPrefix(name, `\`)
	return lowerASCII(name)
}

// entryLeftOut notes a map entry the import leaves out, and counts it
// for its map: the writer marks a map that lost entries invalid = "skip".
func (m *model) entryLeftOut(mp *nmap, e *Directive, format string, args ...any) {
	m.note(e, format, args...)
	m.countLeftOut(mp.name, e)
}

func (m *model) countLeftOut(name string, e *Directive) {
	if m.leftOut == nil {
		m.leftOut, m.leftOutAt = map[string]int{}, map[*Directive]bool{}
	}
	m.leftOut[name]++
	m.leftOutAt[e] = true
}

// slashTypo repairs "https:/host/x" and "http:/host/x", a missing slash
// that nginx sends as written and browsers read as "https://host/x" (the
// URL standard skips any number of slashes after a special scheme). It
// reports false for anything else.
func slashTypo(to string) (string, bool) {
	for _, scheme := range []string{"https:/", "http:/"} {
		if len(to) > len(scheme) && strings.EqualFold(to[:len(scheme)], scheme) && to[len(scheme)] != '/' && to[len(scheme)] != '$' {
			return to[:len(scheme)] + "/" + to[len(scheme):], true
		}
	}
	return "", false
}

// clientSends reports whether a client can send path (and query) as
// they are: a browser percent-encodes a space, a control byte, '"', '<',
// '>', '`', '{', '}' and any byte past ASCII (the URL standard's path
// percent-encode set), reads '\' as '/', and never sends '#'. A request
// holding one of them raw is one no client makes, so the self-check does
// not ask about it.
func clientSends(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case !ascii.IsVisible(c):
			return false
		case strings.IndexByte("\"<>`{}\\#", c) >= 0:
			return false
		}
	}
	return true
}

// locationEscapes are the bytes nginx sends raw in a Location and a
// client percent-encodes when it follows it; redirectd refuses them in a
// Location, so the import writes them encoded, and the self-check reads
// nginx's Location the same way.
var locationEscapes = strings.NewReplacer(" ", "%20", `\`, "%5C", `"`, "%22", "<", "%3C", ">", "%3E")

// valueLeftOut notes a rule of step st that is not written: at the map
// entry e whose value makes the target (counted for its map), else at
// the step.
func (t *translator) valueLeftOut(st *step, e *mapEntry, err error) {
	if e == nil {
		t.noteOnce(st.d, "%s: %v; left out", directiveText(st.d), err)
		return
	}
	msg := fmt.Sprintf("map entry %s (used at %s:%d): %v; left out", e.d.Name, filepath.Base(st.d.File), st.d.Line, err)
	if key := e.d.Source() + msg; !t.noted[key] {
		if t.noted == nil {
			t.noted = map[string]bool{}
		}
		t.noted[key] = true
		t.m.entryLeftOut(st.mapv, e.d, "%s", msg)
	}
}

// ruleLeftOut notes a written rule taken out again, at its origin, and
// counts it for its map.
func (t *translator) ruleLeftOut(r *Rule, msg string) {
	if name, _, ok := strings.Cut(r.Map, "@"); ok {
		t.m.countLeftOut(name, r.Origin)
	}
	t.m.note(r.Origin, "%s", msg)
}

// leaveOutChecked runs the checks of `redirectd check` on the compiled
// rules and takes out each rule it finds an error in, with a note: a
// Location nginx sends as it is but check refuses (irc://, data:, a bare
// //path, which nginx makes http://host//path). One line of the nginx
// config must not make the whole import fail check. It reports whether
// it took any out.
func (t *translator) leaveOutChecked(res *Result, set *matcher.Set) bool {
	refused := map[int]string{}
	for _, f := range lint.Check(set.Rules(), set) {
		if f.Severity != lint.Error || f.Kind != "location" || len(f.Rules) == 0 {
			// A loop is nginx's too (its config redirects the same
			// way), and leaving out one rule of it would answer
			// differently: check reports it as it stands.
			continue
		}
		file, line, _ := strings.Cut(f.Rules[0].Source, ":")
		i, err := strconv.Atoi(line)
		if file != "nginx" || err != nil || i < 1 || i > len(res.Rules) {
			continue
		}
		if _, ok := refused[i-1]; ok {
			continue
		}
		r := &res.Rules[i-1]
		what := directiveText(r.Origin)
		if r.Map != "" {
			what = "map entry " + r.Origin.Name
		}
		if strings.HasPrefix(r.To, "//") {
			refused[i-1] = fmt.Sprintf("%s: nginx sends Location %s as http://HOST:PORT%s (absolute_redirect), which a client would read as a host if redirectd sent it as written; left out", what, r.To, r.To)
		} else {
			why, _ := strings.CutPrefix(f.Message, fmt.Sprintf("to %q is ", r.To))
			refused[i-1] = fmt.Sprintf("%s: nginx sends Location %s as it is, which redirectd check refuses (%s); left out", what, r.To, why)
		}
	}
	if len(refused) == 0 {
		return false
	}
	kept := res.Rules[:0]
	for i := range res.Rules {
		if msg, ok := refused[i]; ok {
			r := res.Rules[i]
			t.ruleLeftOut(&r, msg)
			continue
		}
		kept = append(kept, res.Rules[i])
	}
	res.Rules = kept
	return true
}

// clientPath writes a path as a client sends it: the bytes of the URL
// standard's path percent-encode set (controls, space, '"', '#', '<',
// '>', '?', '`', '{', '}'), '%' and every byte past ASCII as %XX. A key
// of a map on $uri is compared with the decoded path (nginx's $uri), and
// redirectd compares a map's keys with the path as sent, where only
// unreserved escapes are decoded: "/café" is reached as "/caf%C3%A9",
// and "/a%20b", which only "/a%2520b" reaches in nginx, as "/a%2520b".
func clientPath(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		if !ascii.IsVisible(c) || strings.IndexByte("\"#<>?`{}%", c) >= 0 {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
