// Package engineopts maps a config's [server] table and upstream groups onto
// the engine's and the upstream pool's options, for the two commands that
// start the engine: serve, and test (which starts it on a loopback port).
package engineopts

import (
	"crypto/tls"
	"fmt"
	"log/slog"

	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/engine/upstream"
)

// Engine maps the [server] table onto the engine's options; zero
// values take the engine's defaults.
func Engine(sv *config.Server, log *slog.Logger) engine.Options {
	return engine.Options{
		Listen:               sv.Listen,
		EventLoops:           sv.EventLoops,
		MaxPathBytes:         sv.MaxPathBytes,
		IdleTimeout:          sv.IdleTimeout.Std(),
		HeaderTimeout:        sv.HeaderTimeout.Std(),
		MaxConnsPerIP:        sv.MaxConnectionsPerIP,
		IPv6Prefix:           sv.IPv6Prefix,
		MaxConns:             sv.MaxConnections,
		HTTPSRedirect:        sv.HTTPSRedirect,
		AbsoluteRedirect:     sv.AbsoluteRedirect,
		RedirectPortFromHost: sv.RedirectPort == "host",
		DeferAccept:          sv.DeferAcceptOn(),
		Proxies:              engine.ProxyOptions{Protocol: sv.ProxyProtocol, Trusted: sv.TrustedProxies},
		Logger:               log,
	}
}

// Upstream maps an upstream group ([upstream] or [upstreams.NAME]) onto
// the pool's config: its https:// servers with their TLS settings, which
// share one session cache so that a new connection resumes a session
// rather than doing a full handshake.
func Upstream(u *config.Upstream) (upstream.Config, error) {
	c := upstream.Config{
		Group:             u.Name,
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
		switch {
		case u.HostHeader != "preserve" && u.HostHeader != "upstream" && u.HostHeader != "":
			c.HealthHost = u.HostHeader
		case u.TLSServerName != "":
			c.HealthHost = u.TLSServerName
		}
	}
	if len(u.Targets) == 0 {
		return c, nil
	}
	c.Servers = nil
	sessions := tls.NewLRUClientSessionCache(0)
	for _, t := range u.Targets {
		ut := upstream.Target{Addr: t.Addr}
		if t.TLS {
			tc, err := u.ClientTLS(t.Host)
			if err != nil {
				return c, fmt.Errorf("upstream %s server %s: %w", u.Name, t.Addr, err)
			}
			tc.ClientSessionCache = sessions
			ut.TLS = tc
		}
		c.Targets = append(c.Targets, ut)
	}
	return c, nil
}

// Forwarding maps a group onto the engine's options for forwarding to
// pool.
func Forwarding(u *config.Upstream, pool *upstream.Pool) *engine.UpstreamOptions {
	o := &engine.UpstreamOptions{Name: u.Name, Pool: pool, HostFromUpstream: u.HostHeader == "upstream", MaxRequestBodyBytes: u.MaxRequestBodyBytes,
		BodyTimeout: u.BodyTimeout.Std(), SendTimeout: u.SendTimeout.Std(), TunnelIdleTimeout: u.TunnelIdleTimeout.Std(),
		RequestBufferBytes: u.RequestBufferBytes, BodyMinRate: u.BodyMinRate, MaxConnsPerClient: u.MaxConnsPerClient}
	if u.HostHeader != "preserve" && u.HostHeader != "upstream" {
		o.HostHeader = u.HostHeader
	}
	return o
}
