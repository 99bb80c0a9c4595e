package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/redirectd/redirectd/matcher"
)

// Route is one [[route]]: the misses of Host (any host when "") whose
// path starts with Prefix go to the group named Upstream.
type Route struct {
	// Host is lower case, "*.example.com" for any subdomain, "" for any
	// host.
	Host string
	// Prefix starts with '/'; "/" when left out. It is normalised as
	// rules' paths are (matcher.NormalizePath).
	Prefix string
	// Upstream names a group of [upstreams], or "default" for [upstream].
	Upstream string
	// Line is the [[route]] header's line.
	Line int
}

// rawRoute is a [[route]] as decoded.
type rawRoute struct {
	Host     string  `toml:"host"`
	Prefix   *string `toml:"prefix"`
	Upstream string  `toml:"upstream"`
}

// DefaultGroup is the name of the [upstream] table's group.
const DefaultGroup = "default"

// maxGroupName bounds a group's name, which labels its metrics.
const maxGroupName = 64

// checkGroups validates the named [upstreams.NAME] groups and fills
// their defaults.
func checkGroups(file string, groups map[string]*Upstream, fl files, loc *locator, errs *errorList) {
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range groups {
			if !yield(k) {
				return
			}
		}
	}) {
		u, table := groups[name], "upstreams."+name
		if msg := checkGroupName(name); msg != "" {
			errs.add(&Error{File: file, Line: loc.header(table, 0), What: "[" + table + "]", Msg: msg})
			continue
		}
		if u == nil {
			continue
		}
		u.Name = name
		checkUpstream(file, table, u, fl, loc, errs)
	}
}

// checkGroupName says what is wrong with the name of a group, or "".
func checkGroupName(name string) string {
	if name == DefaultGroup {
		return "\"default\" is the name of the [upstream] table's group; write its keys under [upstream], or give this group another name"
	}
	if name == "" || len(name) > maxGroupName {
		return fmt.Sprintf("a group's name has 1 to %d letters, digits, '-' or '_'", maxGroupName)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return fmt.Sprintf("the name %q has a %q; a group's name has letters, digits, '-' or '_' only", cut(name), c)
		}
	}
	return ""
}

// checkRoutes converts the [[route]] tables, checking each names a group
// there is and is written once.
func checkRoutes(file string, raw []rawRoute, def *Upstream, groups map[string]*Upstream, loc *locator, errs *errorList) []Route {
	var out []Route
	seen := map[[2]string]int{}
	for i := range raw {
		r := &raw[i]
		line := loc.header("route", i)
		what := fmt.Sprintf("[[route]] #%d", i+1)
		bad := func(key, format string, args ...any) {
			errs.add(&Error{File: file, Line: loc.keyLine(line, key), What: what, Key: key, Msg: fmt.Sprintf(format, args...)})
		}
		rt, ok := Route{Prefix: "/", Upstream: r.Upstream, Line: line}, true
		if r.Host != "" {
			h, msg := asciiHost(r.Host)
			if msg != "" {
				bad("host", "%q %s", cut(r.Host), msg)
				ok = false
			}
			rt.Host = h
		}
		if r.Prefix != nil {
			rt.Prefix = *r.Prefix
			if msg := checkRoutePrefix(rt.Prefix); msg != "" {
				bad("prefix", "%q %s", cut(rt.Prefix), msg)
				ok = false
			}
			// As a rule's path: "/%7Euser/" is "/~user/" (matcher.Match.Path).
			rt.Prefix = matcher.NormalizePath(rt.Prefix)
		}
		switch {
		case r.Upstream == "":
			bad("upstream", "missing; name the group the misses go to: \"default\" for [upstream], or a group of [upstreams.NAME]")
			ok = false
		case r.Upstream == DefaultGroup && def == nil:
			bad("upstream", "\"default\" is the [upstream] table's group, and there is none; add [upstream], or name a group of [upstreams.NAME]")
			ok = false
		case r.Upstream != DefaultGroup && groups[r.Upstream] == nil:
			bad("upstream", "%q is no group; %s", cut(r.Upstream), knownGroups(def, groups))
			ok = false
		}
		if !ok {
			continue
		}
		key := [2]string{rt.Host, rt.Prefix}
		if first, dup := seen[key]; dup {
			host := rt.Host
			if host == "" {
				host = "every host"
			}
			bad("prefix", "%s %q is routed already by the [[route]] on line %d; keep one", host, rt.Prefix, first)
			continue
		}
		seen[key] = line
		out = append(out, rt)
	}
	return out
}

// checkRoutePrefix says what is wrong with a route's path prefix, or "".
func checkRoutePrefix(p string) string {
	if p == "" || p[0] != '/' {
		return "must start with '/'"
	}
	if len(p) > maxPathBytesLimit {
		return "is too long"
	}
	for i := 0; i < len(p); i++ {
		if c := p[i]; c <= ' ' || c == 0x7f || c == '?' || c == '#' || c >= 0x80 {
			return "is not a path prefix: it may not hold spaces, control bytes, '?', '#' or non-ASCII bytes (percent-encode them)"
		}
	}
	return ""
}

// knownGroups lists the group names a route may give.
func knownGroups(def *Upstream, groups map[string]*Upstream) string {
	var names []string
	if def != nil {
		names = append(names, DefaultGroup)
	}
	for k := range groups {
		names = append(names, k)
	}
	if len(names) == 0 {
		return "there are no groups: add [upstream] or [upstreams.NAME]"
	}
	slices.Sort(names)
	return "known: " + strings.Join(names, ", ")
}
