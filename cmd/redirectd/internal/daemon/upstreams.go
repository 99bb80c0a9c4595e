package daemon

import (
	"log/slog"
	"reflect"
	"slices"

	"github.com/redirectd/redirectd/cmd/redirectd/internal/engineopts"
	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/engine/upstream"
)

// upstreams are the pools of the config's upstream groups, kept across
// reloads: a group whose table is unchanged keeps its pool (its kept-alive
// connections and health state), a changed one gets a new pool.
type upstreams struct {
	log     *slog.Logger
	running map[string]*runningGroup
}

// runningGroup is one group's table as last applied, with its pool and the
// engine's options for it.
type runningGroup struct {
	cfg  config.Upstream
	pool *upstream.Pool
	opts *engine.UpstreamOptions
}

// forwarding is what the engine forwards by: the default group (nil when
// there is no [upstream]) and the routes.
type forwarding struct {
	def    *engine.UpstreamOptions
	routes []engine.UpstreamRoute
	// named are every named group, for locations that forward to one
	// by name.
	named []*engine.UpstreamOptions
}

// build makes the groups of cfg, reusing the running ones that did not
// change; it returns the engine's view of them and a commit that makes
// them the running ones and closes the pools no longer used (or, on
// error, closes what it made and leaves the running groups alone).
func (u *upstreams) build(cfg *config.Config) (forwarding, func(), error) {
	next := map[string]*runningGroup{}
	var made []*upstream.Pool
	abort := func() {
		for _, p := range made {
			p.Close()
		}
	}
	group := func(c *config.Upstream) (*runningGroup, error) {
		if g := u.running[c.Name]; g != nil && reflect.DeepEqual(g.cfg, *c) {
			next[c.Name] = g
			return g, nil
		}
		pc, err := engineopts.Upstream(c)
		if err != nil {
			return nil, err
		}
		if c.TLSInsecureSkipVerify {
			u.log.Warn("tls_insecure_skip_verify is on: the https:// servers' certificates are not checked, so anyone on the path can read and change this traffic", "group", c.Name)
		}
		pool := upstream.New(pc, u.log)
		made = append(made, pool)
		g := &runningGroup{cfg: *c, pool: pool, opts: engineopts.Forwarding(c, pool)}
		next[c.Name] = g
		return g, nil
	}
	var f forwarding
	if cfg.Upstream != nil {
		g, err := group(cfg.Upstream)
		if err != nil {
			abort()
			return f, nil, err
		}
		f.def = g.opts
	}
	names := make([]string, 0, len(cfg.Upstreams))
	for name := range cfg.Upstreams {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		g, err := group(cfg.Upstreams[name])
		if err != nil {
			abort()
			return f, nil, err
		}
		f.named = append(f.named, g.opts)
	}
	for _, r := range cfg.Routes {
		if g := next[r.Upstream]; g != nil {
			f.routes = append(f.routes, engine.UpstreamRoute{Host: r.Host, Prefix: r.Prefix, Group: g.opts})
		}
	}
	commit := func() {
		for name, g := range u.running {
			if next[name] != g {
				// Exchanges under way finish: Close stops the health
				// checks and closes the idle connections only.
				g.pool.Close()
			}
		}
		u.running = next
	}
	return f, commit, nil
}

// startUpstreams makes the pools of cfg's groups and sets opts to
// forward to them.
func startUpstreams(cfg *config.Config, opts *engine.Options, log *slog.Logger) (*upstreams, error) {
	ups := &upstreams{log: log}
	fw, commit, err := ups.build(cfg)
	if err != nil {
		return nil, err
	}
	commit()
	opts.Upstream, opts.Routes, opts.Groups = fw.def, fw.routes, fw.named
	return ups, nil
}

// close closes every running pool.
func (u *upstreams) close() {
	for _, g := range u.running {
		g.pool.Close()
	}
	u.running = nil
}
