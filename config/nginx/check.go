package nginx

import (
	"fmt"
	"sort"
	"strings"

	"github.com/redirectd/redirectd/matcher"
	"github.com/redirectd/redirectd/matcher/rewrite"

	"github.com/redirectd/redirectd/internal/plural"
)

// maxCheckNotes bounds the differences check reports one by one.
const maxCheckNotes = 30

// maxProbeEntries bounds how many exact and how many regex keys of one map
// the check asks about. A request the model answers tries the map's
// regexes in order; in a site map of 42,000 hand-written regexes, a few
// thousand have no literal prefix beyond '/' and run for every request,
// and asking about every key took over ten minutes.
const maxProbeEntries = 1000

// check asks the model of nginx and the written tables the same
// requests, built from every location, rewrite and map key, and notes
// each answer that differs: what a piece left out changes, or a
// construct the tables say otherwise than nginx.
func (t *translator) check(res *Result) {
	hosts, err := rewrite.CompileHosts(hostSpecs(res.Structural))
	if err != nil {
		t.m.note(nil, "the written tables do not compile (a bug in the import; please report it): %v", err)
		return
	}
	var scratch rewrite.Scratch
	var diffs []string
	alike := map[string]int{} // differences from one pair of directives
	seen := map[string]int{}
	fragmentNoted := false
	for _, req := range t.probes() {
		o := t.m.emulate(req)
		if o.unknown {
			continue // nothing to say
		}
		if !t.structSrv[t.m.selectServer(req.host, req.https)] {
			continue // a server left out, said so
		}
		got, origin := runStructural(hosts, &scratch, req, res.KeepSlashes)
		want := "no redirect"
		if o.redirect {
			want = fmt.Sprintf("%d %s", o.status, asClientSees(o.location, req.path))
			if !matcher.HasLocation(o.status) {
				want = fmt.Sprintf("%d", o.status)
			}
		}
		res.loadProbes = append(res.loadProbes, loadProbe{req, want})
		if got == want {
			continue
		}
		if rfc, ok := queryBeforeFragment(want, req.query); ok && rfc == got {
			// A deliberate difference, said once.
			if !fragmentNoted {
				fragmentNoted = true
				t.m.note(nil, "targets with a fragment (first: %s): redirectd puts the request's query before the '#' (RFC 3986), where nginx appends it after the fragment, where no browser sends it to the server; so %s is answered %s", origin, want, got)
			}
			continue
		}
		key := origin
		if o.step != nil {
			key += "|" + o.step.d.Source()
		}
		if i, ok := seen[key]; ok {
			alike[diffs[i]]++
			continue
		}
		seen[key] = len(diffs)
		msg := fmt.Sprintf("%s://%s%s", [2]string{"http", "https"}[kindOf(req.https)], req.host, req.path)
		if req.query != "" {
			msg += "?" + req.query
		}
		msg += ": nginx gives " + want
		if o.step != nil {
			msg += " (" + o.step.d.Source() + ")"
		}
		msg += ", the written tables " + got
		if origin != "" {
			msg += " (from " + origin + ")"
		}
		diffs = append(diffs, msg)
	}
	for i, d := range diffs {
		if i == maxCheckNotes {
			t.m.note(nil, "... and %s", plural.Count(len(diffs)-maxCheckNotes, "more difference"))
			break
		}
		if n := alike[d]; n > 0 {
			d += " (and " + plural.Count(n, "more request") + " alike)"
		}
		t.m.note(nil, "differs: %s", d)
	}
}

// queryBeforeFragment returns answer (a status and a Location nginx
// gives) with the request's query, which nginx appends after the
// target's fragment, moved before the '#', as redirectd writes it.
func queryBeforeFragment(answer, query string) (string, bool) {
	suffix := "?" + query
	if query == "" || !strings.HasSuffix(answer, suffix) {
		return "", false
	}
	head := strings.TrimSuffix(answer, suffix)
	i := strings.IndexByte(head, '#')
	if i < 0 {
		return "", false
	}
	return head[:i] + suffix + head[i:], true
}

// probes returns requests that exercise every part of the config: each
// server's hosts, with paths from its locations, rewrites and map keys,
// with and without a query.
func (t *translator) probes() []request {
	var out []request
	for _, s := range t.m.servers {
		hosts, paths := probeHosts(s), t.probePaths(s)
		for k, https := range []bool{false, true} {
			// A server on both kinds of port is asked over TLS too
			// only where servers on one kind make nginx's choice
			// differ between them.
			if !s.on[k] || k == 1 && s.on[0] && !t.m.schemed {
				continue
			}
			for _, h := range hosts {
				for _, p := range paths {
					if !clientSends(p) {
						continue // a request no client makes: nothing to compare
					}
					if path, query, ok := strings.Cut(p, "?"); ok {
						// A $request_uri key with its query.
						out = append(out, request{host: h, path: path, query: query, https: https})
						continue
					}
					out = append(out, request{host: h, path: p, https: https}, request{host: h, path: p, query: "probe=1", https: https})
				}
			}
		}
	}
	return out
}

// probeHosts returns the hosts to ask server s about: one per name, and
// one it is the default for when it is.
func probeHosts(s *server) []string {
	hosts := []string{probeHost(s)}
	for _, n := range s.names {
		if h := probeHostOf(n); h != hosts[0] {
			hosts = append(hosts, h)
		}
	}
	if s.dflt && s.hosts == nil {
		// A named default server's other hosts are noted once, in
		// pickDefault, rather than request by request.
		hosts = append(hosts, "unnamed.invalid")
	}
	return hosts
}

// probePaths returns, sorted, the paths to ask server s about: from its
// locations, its rewrites' regexes and its maps' keys, each also in
// upper case and with more after it, and two of no rule.
func (t *translator) probePaths(s *server) []string {
	paths := map[string]bool{"/": true, "/probe-miss": true}
	addRe := func(re *nginxRegex) {
		if re == nil {
			return
		}
		if x := re.sample(); x != "" {
			paths[x] = true
			paths[strings.ToUpper(x)] = true
		}
		if re.literal != "" {
			paths[re.literal+"probe"] = true
		}
	}
	addSteps := func(steps []*step) {
		for _, st := range steps {
			addRe(st.re)
			if st.mapv == nil {
				continue
			}
			for _, e := range t.sample(st.mapv, st.mapv.exact, "exact") {
				if !st.mapv.requestURI && clientPath(e.key) != e.key {
					// A $uri key a client sends encoded: the model
					// compares the path as sent, not decoded.
					continue
				}
				if strings.HasPrefix(e.key, "/") {
					paths[e.key], paths[strings.ToUpper(e.key)], paths[e.key+"/probe"] = true, true, true
				}
			}
			for _, e := range t.sample(st.mapv, st.mapv.regex, "regex") {
				addRe(e.re)
			}
		}
	}
	addSteps(s.pre)
	for _, l := range s.locs {
		if l.re != nil {
			addRe(l.re)
		} else {
			paths[l.path], paths[l.path+"probe"], paths[l.path+"probe/x.html"] = true, true, true
			for _, st := range l.steps {
				// An unanchored rewrite ("^(.*)/x$") matches under
				// the location's path, where nginx runs it.
				if x := st.sampleRe(); strings.HasPrefix(x, "/") && !strings.HasPrefix(x, l.path) {
					paths[strings.TrimSuffix(l.path, "/")+x] = true
				}
			}
		}
		addSteps(l.steps)
	}
	sorted := make([]string, 0, len(paths))
	for p := range paths {
		if strings.HasPrefix(p, "/") {
			sorted = append(sorted, p)
		}
	}
	sort.Strings(sorted)
	return sorted
}

func probeHostOf(name string) string {
	switch {
	case strings.HasPrefix(name, "*."):
		return "probe" + name[1:]
	case strings.HasPrefix(name, "."):
		return name[1:]
	}
	return name
}

// asClientSees writes a Location as a client reads it: a relative
// reference resolved against the request's path, a space, backslash,
// quote, < and > percent-encoded, "https:/host" read as "https://host",
// and every byte a URI cannot hold (UTF-8 included) percent-encoded, as a
// browser encodes a Location before it follows it and as redirectd sends
// one (matcher.EncodeTarget). The check compares both answers so.
func asClientSees(loc, path string) string {
	loc = matcher.EncodeTarget(locationEscapes.Replace(loc))
	if fixed, ok := slashTypo(loc); ok {
		loc = fixed
	}
	if isRelative(loc) {
		loc = resolvePath(path, loc)
	}
	return loc
}

// sample returns at most maxProbeEntries of a map's entries, spread
// evenly from the first to the last, and notes once when it leaves some
// out.
func (t *translator) sample(mp *nmap, es []*mapEntry, kind string) []*mapEntry {
	if len(es) <= maxProbeEntries {
		return es
	}
	t.noteOnce(mp.d, "the self-check asked about %d of the map's %d %s keys, spread from first to last", maxProbeEntries, len(es), kind)
	out := make([]*mapEntry, 0, maxProbeEntries)
	for i := range maxProbeEntries {
		out = append(out, es[i*(len(es)-1)/(maxProbeEntries-1)])
	}
	return out
}

// sampleRe is a path the step's regex matches, "" for none.
func (s *step) sampleRe() string {
	if s.re == nil {
		return ""
	}
	return s.re.sample()
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
