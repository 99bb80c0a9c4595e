// Package engineopts maps a config's [server] and [upstream] tables onto
// the engine's and the upstream pool's options, for the two commands that
// start the engine: serve, and test (which starts it on a loopback port).
package engineopts

import (
	"log/slog"

	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/engine/upstream"
)

// Engine maps the [server] table onto the engine's options; zero
// values take the engine's defaults.
func Engine(sv *config.Server, log *slog.Logger) engine.Options {
	return engine.Options{
		Listen:           sv.Listen,
		EventLoops:       sv.EventLoops,
		MaxPathBytes:     sv.MaxPathBytes,
		IdleTimeout:      sv.IdleTimeout.Std(),
		HeaderTimeout:    sv.HeaderTimeout.Std(),
		MaxConnsPerIP:    sv.MaxConnectionsPerIP,
		IPv6Prefix:       sv.IPv6Prefix,
		MaxConns:         sv.MaxConnections,
		HTTPSRedirect:    sv.HTTPSRedirect,
		AbsoluteRedirect: sv.AbsoluteRedirect,
		DeferAccept:      sv.DeferAcceptOn(),
		Proxies:          engine.ProxyOptions{Protocol: sv.ProxyProtocol, Trusted: sv.TrustedProxies},
		Logger:           log,
	}
}

// Upstream maps the [upstream] table onto the pool's config.
func Upstream(u *config.Upstream) upstream.Config {
	c := upstream.Config{
		Servers:           u.Servers,
		LeastConn:         u.Balance == "least_conn",
		MaxConnsPerServer: u.MaxConnsPerServer,
		ConnectTimeout:    u.ConnectTimeout.Std(),
		ReadTimeout:       u.ReadTimeout.Std(),
		WriteTimeout:      u.WriteTimeout.Std(),
		PoolWaitTimeout:   u.PoolWaitTimeout.Std(),
	}
	if hc := u.HealthCheck; hc != nil {
		c.HealthPath, c.HealthInterval = hc.Path, hc.Interval.Std()
	}
	return c
}
