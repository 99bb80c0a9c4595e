package apache

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/redirectd/redirectd/config/importer"
)

// forwardPrefix is the path of the locations that forward the [P] rules
// of other forms: a rule rewrites to it, the location strips it and
// sends the rest to the rule's backend. A client's own request of it is
// answered 404 by the first step of every server.
const forwardPrefix = "/__apache_forward/"

// Forward is such a location: every path under Prefix goes to Group.
type Forward struct {
	Source string
	Prefix string
	Group  *Group
}

// forwardGuard is the step that keeps clients out of the forwarding
// locations.
const forwardGuard = `if ($uri ~ "^/__apache_forward/") { return 404; }`

// proxyRule writes a [P] rule: ProxyPass's form as a forwarding
// location of its own (lines), any other as the internal rewrite
// viaLocation makes of it, which the caller writes.
func (c *rwCtx) proxyRule(r rule) ([]string, rule, error) {
	if lines, _, err := c.forward(r); err == nil {
		return lines, r, nil
	}
	r, err := c.viaLocation(r)
	return nil, r, err
}

// viaLocation rewrites a [P] rule of another form than ProxyPass's (a
// condition, a regex, a .htaccess) into an internal rewrite, with [L],
// to the forwarding location of its backend: the URL's path (its
// groups, variables and query as the rule has them) under the
// location's prefix, which the location strips before forwarding.
func (c *rwCtx) viaLocation(r rule) (rule, error) {
	scheme, rest, ok := strings.Cut(r.subst, "://")
	if !ok || !strings.EqualFold(scheme, "http") && !strings.EqualFold(scheme, "https") {
		return r, fmt.Errorf("a forward ([P]) to %s: not an http:// or https:// URL; left out", r.subst)
	}
	end := strings.IndexAny(rest, "/?")
	if end < 0 {
		end = len(rest)
	}
	hostPort, pathT := rest[:end], rest[end:]
	u, err := url.Parse(strings.ToLower(scheme) + "://" + hostPort)
	if err != nil || strings.ContainsAny(hostPort, "$%{}") || !backendHost(u.Hostname()) || !validPort(u.Port()) || u.User != nil {
		return r, fmt.Errorf("a forward ([P]) to %s: the backend's host is not a literal host name or address; left out", r.subst)
	}
	if !strings.HasPrefix(pathT, "/") {
		pathT = "/" + pathT
	}
	g := c.t.group(backendURL(u), c.t.preserve)
	prefix := forwardPrefix + g.Name
	if !c.t.forwarded[g] {
		c.t.forwarded[g] = true
		c.t.res.Forwards = append(c.t.res.Forwards, &Forward{Source: r.d.Source(), Prefix: prefix + "/", Group: g})
	}
	c.t.note(r.d, importer.Caveat, "[P]: forwarded through the location %s/, which strips its prefix and to which a client's own request is answered 404", prefix)
	if c.dir != "" {
		c.t.note(r.d, importer.Caveat, "[P] in a .htaccess: forwarded with the main server's ProxyPreserveHost for every host; a virtual host that sets it otherwise is not followed")
	}
	flags := map[string]string{}
	for k, v := range r.flags {
		flags[k] = v
	}
	delete(flags, "P")
	delete(flags, "R")
	flags["L"] = ""
	r.flags, r.subst = flags, prefix+pathT
	return r, nil
}

// writeForwards writes the forwarding locations of [P] rules.
func writeForwards(b *strings.Builder, res *Result) {
	for _, f := range res.Forwards {
		fmt.Fprintf(b, "\n# %s: RewriteRule [P]: forwards to %s what the rules rewrite to %s\n[[location]]\nmatch = \"prefix\"\npath = %s\nupstream = %q\nsteps = %s\n",
			f.Source, f.Group.Server, f.Prefix, importer.Quote(f.Prefix), f.Group.Name,
			steps([]string{"rewrite " + quoteArg("^"+quoteMeta(strings.TrimSuffix(f.Prefix, "/"))+"(/.*)$") + " $1 break;"}))
	}
}
