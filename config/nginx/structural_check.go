package nginx

// The self-check of servers written as the location model: their
// tables compiled as the loader compiles them, and run.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/redirectd/redirectd/config/importer"
	"github.com/redirectd/redirectd/matcher/rewrite"
)

// hostSpecs are the structural servers as the loader compiles them: per
// host, its server steps and locations.
func hostSpecs(structs []*Structural) []rewrite.HostSpec {
	var specs []rewrite.HostSpec
	for _, st := range structs {
		var spec rewrite.Spec
		for _, mp := range allMaps(structs) {
			spec.Maps = append(spec.Maps, mapSpec(mp))
		}
		if len(st.Steps) > 0 {
			spec.Steps = []rewrite.Text{{Src: stepText(st.Steps), Line: 1}}
		}
		for _, l := range st.Locations {
			spec.Locations = append(spec.Locations, locSpec(l))
		}
		if st.Hosts == nil {
			specs = append(specs, rewrite.HostSpec{Spec: spec, Scheme: st.Scheme})
		}
		for i, h := range st.Hosts {
			if i == 0 && st.Default && st.DefaultScheme != "" {
				// The default of one scheme: a server per scheme, as
				// the config loads the table writeStructural writes.
				for _, sch := range []string{"http", "https"} {
					specs = append(specs, rewrite.HostSpec{Host: h, Spec: spec, Scheme: sch, Default: sch == st.DefaultScheme})
				}
				continue
			}
			specs = append(specs, rewrite.HostSpec{Host: h, Spec: spec, Scheme: st.Scheme, Default: st.Default && i == 0})
		}
	}
	return specs
}

// locSpec is location l as the loader compiles it.
func locSpec(l *StructLoc) rewrite.LocationSpec {
	kinds := map[string]rewrite.Kind{"prefix": rewrite.Prefix, "exact": rewrite.Exact, "prefix_noregex": rewrite.PrefixNoRegex,
		"regex": rewrite.Regex, "regex_ci": rewrite.RegexCI}
	kinds["named"] = rewrite.Named
	sp := rewrite.LocationSpec{Line: l.D.Line, Match: kinds[l.Match], Path: l.Path, Steps: stepText(l.Steps), StepsLine: l.D.Line, InterceptErrors: l.Intercept}
	if l.Group != nil {
		sp.Pass, sp.Upstream, sp.URI, sp.HasURI = true, l.Group.Name, l.URI, l.HasURI
		if sp.Upstream == "default" {
			sp.Upstream = ""
		}
	}
	for _, n := range l.Locations {
		sp.Locations = append(sp.Locations, locSpec(n))
	}
	return sp
}

// runStructural answers req as the engine does for a host with
// locations, as the self-check compares it with the model of nginx. It
// gives a redirect's status and Location as a client reads it, else "no
// redirect"; origin is what answered. keepSlashes is merge_slashes off,
// which the engine passes for the whole config.
func runStructural(hosts *rewrite.Hosts, scratch *rewrite.Scratch, req request, keepSlashes bool) (got, origin string) {
	p := hosts.Lookup([]byte(strings.ToLower(hostOnly(req.host))), req.https)
	if p == nil {
		return "no redirect", ""
	}
	target := req.path
	var query []byte
	if req.query != "" {
		target += "?" + req.query
		query = []byte(req.query)
	}
	port := "80"
	if req.https {
		port = "443"
	}
	rq := rewrite.Request{Host: []byte(strings.ToLower(hostOnly(req.host))), Target: []byte(target), Path: []byte(req.path), Query: query,
		Method: []byte("GET"), Port: []byte(port), HTTPS: req.https, KeepSlashes: keepSlashes}
	var res rewrite.Result
	p.Run(scratch, &rq, &res)
	switch {
	case res.Action == rewrite.Answer && (res.Status == 410 || res.Status == 451):
		// As the model of nginx says them: an answer rules give too.
		return fmt.Sprint(res.Status), res.Where
	case res.Action != rewrite.Redirect:
		return "no redirect", res.Where
	}
	return fmt.Sprintf("%d %s", res.Status, asClientSees(string(res.Location), req.path)), res.Where
}

// loadProbe is one request the self-check asked a structural server,
// and nginx's answer as the model of nginx gives it.
type loadProbe struct {
	req  request
	want string
}

// CheckLoaded asks the locations of the config loaded from what Write
// wrote, as serve runs them, the self-check's requests, and returns a
// note for each answer that differs from the model of nginx's: the
// written text, read back, must say what the import meant.
func (r *Result) CheckLoaded(hosts *rewrite.Hosts) []Note {
	var notes []Note
	var scratch rewrite.Scratch
	seen := map[string]bool{}
	for _, p := range r.loadProbes {
		got, _ := runStructural(hosts, &scratch, p.req, r.KeepSlashes)
		if got == p.want {
			continue
		}
		msg := fmt.Sprintf("differs: %s://%s%s: nginx gives %s, the loaded config %s", [2]string{"http", "https"}[kindOf(p.req.https)], p.req.host, p.req.path, p.want, got)
		if p.req.query != "" {
			msg = strings.Replace(msg, ": nginx gives", "?"+p.req.query+": nginx gives", 1)
		}
		if !seen[msg] && len(seen) < maxCheckNotes {
			seen[msg] = true
			notes = append(notes, Note{Kind: importer.Differs, Msg: msg})
		}
	}
	return notes
}

// allMaps are the maps the structural servers read, each once: the
// [[location_map]] tables every host's steps can read.
func allMaps(structs []*Structural) []*nmap {
	var out []*nmap
	for _, st := range structs {
		for _, mp := range st.Maps {
			if !slices.Contains(out, mp) {
				out = append(out, mp)
			}
		}
	}
	return out
}
