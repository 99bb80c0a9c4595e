package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"reflect"
	"syscall"
	"time"

	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/engine/upstream"
)

// serve runs the server until SIGINT or SIGTERM; SIGHUP reloads the rules.
func serve(args []string, stdout, stderr io.Writer, log *slog.Logger) int {
	fs, file := newFlags("serve", stderr)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	// Signals are caught from the start: SIGHUP's default action would
	// kill a server that is reloaded while it starts.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sig)

	start := time.Now()
	cfg, err := loadConfig(*file)
	if err != nil {
		fmt.Fprintf(stderr, "%v\n", err)
		return 1
	}
	opts := engineOptions(&cfg.Server, log)
	if u := cfg.Upstream; u != nil {
		pool := upstream.New(upstreamConfig(u), log)
		defer pool.Close()
		opts.Upstream = &engine.UpstreamOptions{Pool: pool, HostFromUpstream: u.HostHeader == "upstream", MaxRequestBodyBytes: u.MaxRequestBodyBytes}
	}
	srv := engine.New(opts, cfg.Set)
	done := make(chan error, 1)
	go func() { done <- srv.Run() }()
	select {
	case err := <-done:
		log.Error("cannot start", "err", err)
		return 1
	case <-srv.Ready():
	}
	c := cfg.Set.Counts()
	log.Info("serving", "config", cfg.Path, "listen", srv.Addr(), "rules", cfg.Set.Len(),
		"exact", c.Exact, "prefix", c.Prefix, "regex", c.Regex, "startup", time.Since(start).Round(time.Microsecond))
	if *file == "" {
		printExample(stdout, cfg, srv.Addr())
	}
	for {
		select {
		case err := <-done:
			log.Error("server stopped", "err", err)
			return 1
		case s := <-sig:
			if s == syscall.SIGHUP {
				if next := reload(srv, cfg, *file, log); next != nil {
					cfg = next
				}
				continue
			}
			log.Info("stopping", "signal", s.String())
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			err := srv.Stop(ctx)
			cancel()
			if err != nil {
				log.Error("stop", "err", err)
				return 1
			}
			<-done
			return 0
		}
	}
}

// reload loads the config again and swaps its rules in; a config with
// errors leaves the running rules in place. Settings that need a restart
// (the [server] and [upstream] tables) are reported when they changed,
// not silently ignored. It returns the new config, or nil.
func reload(srv *engine.Server, cur *config.Config, file string, log *slog.Logger) *config.Config {
	start := time.Now()
	cfg, err := loadConfig(file)
	if err != nil {
		log.Error("reload failed; the previous rules keep serving", "config", cur.Path, "err", err)
		return nil
	}
	srv.Swap(cfg.Set)
	log.Info("reloaded", "config", cfg.Path, "rules", cfg.Set.Len(), "took", time.Since(start).Round(time.Microsecond))
	if !reflect.DeepEqual(cfg.Server, cur.Server) || !reflect.DeepEqual(cfg.Upstream, cur.Upstream) {
		log.Warn("[server] or [upstream] changed: the new rules serve, but these settings take effect only after a restart", "config", cfg.Path)
		cfg.Server, cfg.Upstream = cur.Server, cur.Upstream
	}
	return cfg
}

// printExample tells a new user what the built-in example serves.
func printExample(w io.Writer, cfg *config.Config, addr string) {
	fmt.Fprintf(w, "redirectd is serving its built-in example on http://%s (start it with -config FILE for your own rules).\n", addr)
	for _, r := range cfg.Rules {
		host := ""
		if r.Host != "" {
			host = "  (Host: " + r.Host + ")"
		}
		fmt.Fprintf(w, "  %-7s %-34s -> %d %s%s\n", r.Kind, r.From, r.Status, r.To, host)
	}
	fmt.Fprintf(w, "Try: curl -i http://%s/old\n", addr)
}

// engineOptions maps the [server] table onto the engine's options; zero
// values take the engine's defaults.
func engineOptions(sv *config.Server, log *slog.Logger) engine.Options {
	return engine.Options{
		Listen:        sv.Listen,
		EventLoops:    sv.EventLoops,
		MaxPathBytes:  sv.MaxPathBytes,
		IdleTimeout:   sv.IdleTimeout.Std(),
		HeaderTimeout: sv.HeaderTimeout.Std(),
		MaxConnsPerIP: sv.MaxConnectionsPerIP,
		MaxConns:      sv.MaxConnections,
		HTTPSRedirect: sv.HTTPSRedirect,
		Logger:        log,
	}
}

// upstreamConfig maps the [upstream] table onto the pool's config.
func upstreamConfig(u *config.Upstream) upstream.Config {
	c := upstream.Config{
		Servers:           u.Servers,
		LeastConn:         u.Balance == "least_conn",
		MaxConnsPerServer: u.MaxConnsPerServer,
		ConnectTimeout:    u.ConnectTimeout.Std(),
		ReadTimeout:       u.ReadTimeout.Std(),
		WriteTimeout:      u.WriteTimeout.Std(),
	}
	if hc := u.HealthCheck; hc != nil {
		c.HealthPath, c.HealthInterval = hc.Path, hc.Interval.Std()
	}
	return c
}
