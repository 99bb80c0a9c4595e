package config

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/redirectd/redirectd/matcher/rewrite"
)

// rawLocation is a [[location]] (or a [[location.location]] nested in
// one) as decoded.
type rawLocation struct {
	Host        string   `toml:"host"`
	Hosts       []string `toml:"hosts"`
	Scheme      string   `toml:"scheme"`
	Match       string   `toml:"match"`
	Path        string   `toml:"path"`
	Steps       string   `toml:"steps"`
	Upstream    string   `toml:"upstream"`
	UpstreamURI *string  `toml:"upstream_uri"`
	// InterceptErrors is nginx's proxy_intercept_errors on.
	InterceptErrors bool          `toml:"intercept_errors"`
	Location        []rawLocation `toml:"location"`
}

// rawServerRewrite is a [[server_rewrite]]: steps that run before a
// location is chosen, as nginx's server-level rewrite directives.
type rawServerRewrite struct {
	Host   string   `toml:"host"`
	Hosts  []string `toml:"hosts"`
	Scheme string   `toml:"scheme"`
	Steps  string   `toml:"steps"`
	// DefaultServer makes its hosts' server the one for hosts that no
	// server names (nginx's listen ... default_server).
	DefaultServer bool `toml:"default_server"`
	// DefaultServerPorts limits DefaultServer to these listener ports.
	DefaultServerPorts []int `toml:"default_server_ports"`
}

// locationKinds are the values of a location's match.
var locationKinds = map[string]rewrite.Kind{
	"prefix": rewrite.Prefix, "exact": rewrite.Exact, "prefix_noregex": rewrite.PrefixNoRegex,
	"regex": rewrite.Regex, "regex_ci": rewrite.RegexCI, "named": rewrite.Named,
}

// locationKeys are the keys of a nested location; a top-level one also
// takes host, hosts and scheme.
var locationKeys = []string{"match", "path", "steps", "upstream", "upstream_uri", "intercept_errors", "location"}

// maxLocationDepth is how deep [[location.location...]] may nest.
const maxLocationDepth = 4

// readLocations compiles the [[server_rewrite]], [[location]] and
// [[location_map]] tables into one Program per host named and one for
// the others (nil when there are none), noting each problem in errs.
// It also returns how many [[location]] tables there are, nested ones
// included, and the map files read.
func readLocations(file string, raw *rawConfig, def *Upstream, groups map[string]*Upstream, loc *locator, fl files, errs *errorList) (*rewrite.Hosts, int, []string) {
	if len(raw.Location) == 0 && len(raw.ServerRewrite) == 0 {
		if len(raw.LocationMap) > 0 {
			errs.add(&Error{File: file, Line: loc.header("location_map", 0), What: "[[location_map]] #1",
				Msg: "a map is read by the steps of [[location]] and [[server_rewrite]], and there are none"})
		}
		return nil, 0, nil
	}
	r := &locReader{file: file, loc: loc, errs: errs, def: def, groups: groups, seen: map[string]int{}, hostLine: map[string]int{}}
	maps, mapFiles := r.locationMaps(raw.LocationMap, fl)
	var entries []locEntry
	for i := range raw.ServerRewrite {
		sr := &raw.ServerRewrite[i]
		line, what, hosts, scheme := r.scope("server_rewrite", i, sr.Host, sr.Hosts, sr.Scheme)
		r.defaultServer(sr, hosts, scheme, line, what) // servernames.go
		entries = append(entries, locEntry{hosts: hosts, scheme: scheme, steps: &rewrite.Text{Src: sr.Steps, Line: r.textLine(line, "steps")}, line: line})
	}
	for i := range raw.Location {
		rl := &raw.Location[i]
		line, what, hosts, scheme := r.scope("location", i, rl.Host, rl.Hosts, rl.Scheme)
		spec := r.location(rl, "location", line, what, 1)
		entries = append(entries, locEntry{hosts: hosts, scheme: scheme, spec: &spec, line: line})
	}
	if errs.full() || len(errs.errs) > 0 {
		return nil, r.tables, mapFiles
	}
	slices.SortStableFunc(entries, func(a, b locEntry) int { return a.line - b.line })
	var specs []rewrite.HostSpec
	for _, sv := range servers(entries) { // servernames.go
		hs := rewrite.HostSpec{Host: sv.host, Scheme: sv.scheme, Spec: rewrite.Spec{Maps: maps}}
		r.setDefault(&hs)
		for _, e := range entries {
			if len(e.hosts) > 0 && !slices.Contains(e.hosts, sv.host) || e.scheme != "" && e.scheme != sv.scheme {
				continue
			}
			if e.steps != nil {
				hs.Spec.Steps = append(hs.Spec.Steps, *e.steps)
			} else {
				hs.Spec.Locations = append(hs.Spec.Locations, *e.spec)
			}
		}
		if sv.host != "" || len(hs.Spec.Steps)+len(hs.Spec.Locations) > 0 {
			specs = append(specs, hs)
		}
	}
	hosts, err := rewrite.CompileHosts(specs)
	if err != nil {
		errs.add(r.placed(err))
		return nil, r.tables, mapFiles
	}
	hosts.SetFile(file) // for explain's and /rules' file:line
	return hosts, r.tables, mapFiles
}

// locReader converts location tables, noting problems in errs.
type locReader struct {
	file   string
	loc    *locator
	errs   *errorList
	def    *Upstream
	groups map[string]*Upstream
	// seen counts the tables of each nested name read so far, for the
	// locator: [[location.location]] headers come in document order.
	seen map[string]int
	// tables counts the [[location]] tables, nested ones included.
	tables int
	// maps are where each [[location_map]] is, by variable.
	maps map[string]mapPlace
	// hostLine is the header line of the first table naming each host.
	hostLine map[string]int
	// defHost is the host of default_server by scheme; portDefaults the
	// ports of default_server_ports, by server.
	defHost      map[string]string
	portDefaults map[serverKey][]string
}

// bad notes a problem with key of the table headed at line.
func (r *locReader) bad(line int, what, key, format string, a ...any) {
	r.errs.add(&Error{File: r.file, Line: r.loc.keyLine(line, key), What: what, Key: key, Msg: fmt.Sprintf(format, a...)})
}

// scope reads the keys every [[server_rewrite]] and [[location]] has
// (host or hosts, and scheme) for the table's entry i, with the line and
// name its errors give.
func (r *locReader) scope(table string, i int, host string, hosts []string, scheme string) (line int, what string, names []string, sch string) {
	line = r.loc.header(table, i)
	what = fmt.Sprintf("[[%s]] #%d", table, i+1)
	return line, what, r.hosts(host, hosts, line, what), r.scheme(scheme, line, what)
}

// hosts checks a table's host and hosts, returning them lower case.
func (r *locReader) hosts(one string, many []string, line int, what string) []string {
	key := "hosts"
	if one != "" {
		many, key = append([]string{one}, many...), "host"
	}
	var out []string
	for _, h := range many {
		if strings.HasPrefix(h, "~") {
			out = append(out, h) // a regex name: CompileHosts checks it
			r.hostLine[h] = line
			continue
		}
		name, msg := serverName(h)
		if msg != "" {
			r.bad(line, what, key, "%q %s", cut(h), msg)
			continue
		}
		out = append(out, name)
		if _, ok := r.hostLine[name]; !ok {
			r.hostLine[name] = line
		}
	}
	return out
}

// textLine is the line of the first line of the string of key: the line
// after the key's when the value opens a multi-line string and breaks
// the line there, as TOML then drops that line break.
func (r *locReader) textLine(header int, key string) int {
	n := r.loc.keyLine(header, key)
	if n <= 0 || n > len(r.loc.lines) {
		return n
	}
	text := bytes.TrimSpace(r.loc.lines[n-1])
	for _, q := range []string{`'''`, `"""`} {
		if bytes.HasSuffix(text, []byte(q)) && bytes.Count(text, []byte(q)) == 1 {
			return n + 1
		}
	}
	return n
}

// location converts one location table (named table, headed at line)
// and those nested in it.
func (r *locReader) location(rl *rawLocation, table string, line int, what string, depth int) rewrite.LocationSpec {
	r.tables++
	sp := rewrite.LocationSpec{Line: line, Path: rl.Path, Steps: rl.Steps, StepsLine: r.textLine(line, "steps")}
	kind, ok := locationKinds[rl.Match]
	switch {
	case rl.Match == "":
		kind = rewrite.Prefix
	case !ok:
		r.bad(line, what, "match", "%q is no kind of location; kinds: exact, prefix, prefix_noregex, regex, regex_ci, named", cut(rl.Match))
	}
	sp.Match = kind
	if rl.Path == "" {
		r.bad(line, what, "path", "missing; a location needs a path (a regex for regex and regex_ci, a name for named)")
	}
	if depth > 1 && (rl.Host != "" || len(rl.Hosts) > 0) {
		r.bad(line, what, "host", "a nested location takes its host from the location it is in")
	}
	switch u := rl.Upstream; {
	case u == "":
	case u == DefaultGroup && r.def == nil:
		r.bad(line, what, "upstream", "\"default\" is the [upstream] table's group, and there is none; add [upstream], or name a group of [upstreams.NAME]")
	case u != DefaultGroup && r.groups[u] == nil:
		r.bad(line, what, "upstream", "%q is no group; %s", cut(u), knownGroups(r.def, r.groups))
	default:
		sp.Pass = true
		if u != DefaultGroup {
			sp.Upstream = u
		}
	}
	if rl.UpstreamURI != nil {
		sp.URI, sp.HasURI = *rl.UpstreamURI, true
		if rl.Upstream == "" {
			r.bad(line, what, "upstream_uri", "needs upstream: it is the path sent to that group in place of the location's")
		}
		if !strings.HasPrefix(sp.URI, "/") {
			r.bad(line, what, "upstream_uri", "%q must start with '/'", cut(sp.URI))
		}
	}
	if rl.InterceptErrors {
		sp.InterceptErrors = true
		if rl.Upstream == "" {
			r.bad(line, what, "intercept_errors", "needs upstream: it sends the upstream's errors to the location's error_page")
		}
	}
	if len(rl.Location) > 0 && depth >= maxLocationDepth {
		r.bad(line, what, "location", "locations nest %d deep at most", maxLocationDepth)
		return sp
	}
	sub := table + ".location"
	for i := range rl.Location {
		n := r.seen[sub]
		r.seen[sub]++
		subLine := r.loc.header(sub, n)
		sp.Locations = append(sp.Locations, r.location(&rl.Location[i], sub, subLine, fmt.Sprintf("%s > [[%s]] #%d", what, sub, i+1), depth+1))
	}
	return sp
}

// placed turns an error of rewrite.CompileHosts into one naming file,
// line and key.
func (r *locReader) placed(err error) error {
	e, ok := err.(*rewrite.Error)
	if !ok {
		return &Error{File: r.file, Msg: err.Error()}
	}
	if e.Map != "" {
		return r.placedMap(e)
	}
	what := "[[server_rewrite]]"
	if e.Location != "" {
		what = "[[location]] " + e.Location
	}
	if e.Host != "" {
		what += " (host " + e.Host + ")"
	}
	line := e.Line
	if e.Key == "host" || e.Key == "default_server" {
		line = r.loc.keyLine(r.hostLine[e.Host], "host")
	} else if e.Key != "steps" && e.Key != "" {
		line = r.loc.keyLine(e.Line, e.Key)
	}
	return &Error{File: r.file, Line: line, What: what, Key: e.Key, Msg: e.Msg}
}
