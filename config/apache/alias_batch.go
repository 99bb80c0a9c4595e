package apache

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/redirectd/redirectd/config/importer"
	"github.com/redirectd/redirectd/matcher/rewrite"
)

// minBatch is the shortest run of Redirects written as one map: below
// it, a regex a line costs less than the walk.
const minBatch = 16

// plainRedirect reads a Redirect, RedirectPermanent or RedirectTemp of
// a 3xx status and a URL a map value can hold: its status, path (slashes
// merged) and URL.
func plainRedirect(d *Directive) (code int, path, url string, ok bool) {
	args := d.Args
	code = 302
	switch strings.ToLower(d.Name) {
	case "redirectpermanent":
		code = 301
	case "redirecttemp":
	case "redirect":
		if len(args) == 3 {
			if code, ok = aliasStatus(args[0]); !ok {
				return 0, "", "", false
			}
			args = args[1:]
		}
	default:
		return 0, "", "", false
	}
	if len(args) != 2 || code < 300 || code > 399 || !strings.HasPrefix(args[0], "/") {
		return 0, "", "", false
	}
	path, url = mergeSlashes(args[0]), args[1]
	if strings.ContainsAny(path+url, "$\\\"'\t;{}#") || hasControl(path+url) || strings.Contains(url, "?") {
		return 0, "", "", false
	}
	return code, path, url, true
}

// batchable returns how many directives from the first are plain
// Redirects whose paths a map of keys compared without case can hold
// (no two differ only by case).
func batchable(ds []*Directive) int {
	seen := map[string]string{}
	for i, d := range ds {
		_, p, _, ok := plainRedirect(d)
		if !ok {
			return i
		}
		if q, dup := seen[strings.ToLower(p)]; dup && q != p {
			return i
		}
		seen[strings.ToLower(p)] = p
	}
	return len(ds)
}

// covers reports whether Redirect's path p answers the path u: u is p,
// or below it (alias_matches: whole segments).
func covers(p, u string) bool {
	if strings.HasSuffix(p, "/") {
		return strings.HasPrefix(u, p)
	}
	return u == p || strings.HasPrefix(u, p+"/")
}

// above returns the paths a Redirect could name that cover p, but p:
// each shorter prefix ending at a '/', with and without it.
func above(p string) []string {
	var out []string
	for i := len(p) - 1; i > 0; i-- {
		if p[i] == '/' {
			out = append(out, p[:i+1], p[:i])
		}
	}
	return append(out, "/")
}

// batch writes a run of plain Redirects as a map and a walk: the steps
// look up the path, then each shorter path it is below (with and
// without its trailing slash), and the deepest one found says the
// answer, precomputed as Apache's first Redirect in the run that covers
// it (every Redirect covering the path covers that key, and no other
// does). The rest of the path and the query follow.
//
// Long because the walk's steps are one text; split, each piece would
// need the variables' names passed.
func (t *translator) batch(ds []*Directive) ([]string, bool) {
	type red struct {
		code      int
		path, url string
	}
	var rs []red
	for _, d := range ds {
		c, p, u, _ := plainRedirect(d)
		rs = append(rs, red{c, p, u})
	}
	// The rest of the path goes out escaped as Apache escapes it
	// (ap_os_escape_path): the part the map holds escaped here, the
	// part the walk puts aside through the escape map.
	ek, ev := t.escapeMap(ds[0])
	var b strings.Builder
	b.WriteString("volatile;\n")
	depth := 0
	codes := map[int]bool{}
	first := map[string]int{} // each path's first line
	for i, r := range rs {
		if _, ok := first[r.path]; !ok {
			first[r.path] = i
		}
	}
	done := map[string]bool{}
	for _, r := range rs {
		if done[r.path] {
			continue // Apache answers with the first of a path
		}
		done[r.path] = true
		// The first line covering the path: among the path and the
		// shorter paths it is below, the earliest.
		owner := first[r.path]
		for _, a := range above(r.path) {
			if i, ok := first[a]; ok && i < owner && covers(a, r.path) {
				owner = i
			}
		}
		ownerR := rs[owner]
		codes[ownerR.code] = true
		depth = max(depth, strings.Count(r.path, "/"))
		k := r.path
		if strings.HasPrefix(k, "~") || k == "default" {
			k = `\` + k
		}
		fmt.Fprintf(&b, "%s \"%s\t%d\t%s%s\";\n", quoteArg(k), r.path, ownerR.code, ownerR.url, escapeURI(r.path[len(ownerR.path):]))
	}
	n := len(t.res.Maps) + 1
	l := &LocMap{Source: ds[0].Source(), Name: "Redirect lines " + strconv.Itoa(n), Variable: fmt.Sprintf("$a_map_redirects%d", n), Key: fmt.Sprintf("a_key_redirects%d", n), Entries: b.String()}
	spec := rewrite.Spec{Steps: []rewrite.Text{{Src: "set $" + l.Key + ` "";`, Line: 1}},
		Maps: []rewrite.MapSpec{{Source: "$" + l.Key, Variable: l.Variable, Entries: l.Entries}}}
	if _, err := rewrite.Compile(spec); err != nil {
		t.note(ds[0], importer.Caveat, "the Redirects from here do not load as one map (%v); each is written as its own step", err)
		return nil, false
	}
	t.res.Maps = append(t.res.Maps, l)
	for _, d := range ds {
		t.count(d)
	}
	k := "$" + l.Key
	steps := []string{
		fmt.Sprintf("# %s to %s: %d Redirect lines, looked up in %s", ds[0].Source(), ds[len(ds)-1].Source(), len(ds), l.Variable),
		"set " + k + " $uri;", `set $a_ar "";`, `set $a_av "";`, `set $a_mk "";`, `set $a_mv "";`, `set $a_step 0;`,
		// A path deeper than every key starts at the depth of the
		// deepest, with the rest put aside.
		fmt.Sprintf(`if ($uri ~ "^((?:/[^/]*){%d})/(.+)$") { set %s "$1/"; set $a_ar $2; }`, depth, k),
	}
	for range 2*depth + 2 {
		steps = append(steps,
			`if ($a_av = "") {`,
			`    if (`+l.Variable+` ~ "^([^\t]*)\t(.*)$") { set $a_mk $1; set $a_mv $2; }`,
			`    if ($a_mk = "`+k+`") { set $a_av $a_mv; }`,
			`    set $a_mk "";`,
			`}`,
			`if ($a_av = "") {`,
			`    set $a_step 0;`,
			`    if (`+k+` ~ "^(.+)/$") { set $a_ar "/$a_ar"; set `+k+` $1; set $a_step 1; }`,
			`    if ($a_step = 0) { if (`+k+` ~ "^(.*/)([^/]+)$") { set $a_ar "$2$a_ar"; set `+k+` $1; } }`,
			`}`)
	}
	steps = append(steps, "set $"+ek+" $a_ar;", "set $a_ar "+ev+";")
	var cs []int
	for c := range codes {
		cs = append(cs, c)
	}
	slices.Sort(cs)
	for _, c := range cs {
		steps = append(steps, fmt.Sprintf(`if ($a_av ~ "^%d\t(.*)$") { return %d "$1$a_ar$is_args$args"; }`, c, c))
	}
	if err := compiles(nil, steps, t.res.Maps); err != nil {
		t.res.Maps = t.res.Maps[:len(t.res.Maps)-1]
		t.note(ds[0], importer.Caveat, "the Redirects from here do not load as one walk (%v); each is written as its own step", err)
		return nil, false
	}
	return steps, true
}
