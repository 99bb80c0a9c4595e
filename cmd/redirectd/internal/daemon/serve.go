// Package daemon is redirectd serve: it starts the engine with a config's
// rules, the admin listener, the HTTPS side and the access log, and keeps
// them serving: reloads (SIGHUP, POST /reload, file changes), [rules]
// source polling with versions and rollback, idle garbage collection,
// systemd notification, and the drain on SIGTERM.
//
// The editing path's decisions are not here: drafts, versions, the
// audit and the write-ahead order of a change are package edits', the
// /ruleset archive and a fleet node's origins package ruleset's (both
// under engine/admin/edit, whose doc says what lives where). The daemon
// loads what they name (the config with a version's edits, a cached
// rule set), swaps the rules in through one function (apply, change.go)
// and fetches from the source, since those need config.
package daemon

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/redirectd/redirectd/cmd/redirectd/internal/configload"
	"github.com/redirectd/redirectd/cmd/redirectd/internal/engineopts"
	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/engine/accesslog"
	"github.com/redirectd/redirectd/engine/admin"
	"github.com/redirectd/redirectd/engine/admin/console"
	"github.com/redirectd/redirectd/engine/admin/edit"
	"github.com/redirectd/redirectd/engine/admin/edit/edits"
	"github.com/redirectd/redirectd/internal/safego"
	"github.com/redirectd/redirectd/matcher"
)

// Options are serve's command line, and how it loads configs.
type Options struct {
	Config      string // -config: "" for the built-in example
	LogFormat   string // -log-format: text or json
	AdminListen string // -admin-listen
	Upgrade     bool   // -upgrade
	Loader      configload.Loader
}

// Serve runs the server until SIGINT or SIGTERM; SIGHUP reloads the rules.
// It loads the config, starts the server and its companions (upstream
// pool, access log, TLS, rule source, admin) in that order, then waits
// for signals; each companion's defer stops it.
func Serve(o Options, stdout, stderr io.Writer) int {
	log, err := newLogger(stderr, o.LogFormat)
	if err != nil {
		fmt.Fprintf(stderr, "redirectd serve: %v\n", err)
		return 2
	}
	// Signals are caught from the start: SIGHUP's default action would
	// kill a server that is reloaded while it starts.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGUSR1, syscall.SIGUSR2)
	defer signal.Stop(sig)

	start := time.Now()
	cfg, ed, adminListen, err := loadForServe(o, log)
	if err != nil {
		fmt.Fprintf(stderr, "%v\n", err)
		return 1
	}
	opts := engineopts.Engine(&cfg.Server, log)
	opts.Takeover = o.Upgrade
	opts.MissesCapacity = cfg.Misses.Capacity
	ups, err := startUpstreams(cfg, &opts, log)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", cfg.Path, err)
		return 1
	}
	defer ups.close()
	alog, err := openAccessLog(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "%s: [access_log]: %v\n", cfg.Path, err)
		return 1
	}
	if alog != nil {
		defer alog.Close()
		opts.AccessLog = alog
	}
	var srv *engine.Server
	https, err := newHTTPS(cfg, &opts, func() *matcher.Set { return srv.Rules() }, log)
	if err != nil {
		fmt.Fprintf(stderr, "%s: [tls]: %v\n", cfg.Path, err)
		return 1
	}
	defer https.close()
	srv = engine.New(opts, cfg.Set)
	svc := makeService(srv, cfg, o.Config, o.Loader, ed, log)
	svc.adminListen, svc.https, svc.ups = o.AdminListen, https, ups
	settle := svc.settleWhenServing(cfg)
	stopSource, err := svc.startSource() // [rules] source: serve the cached version, poll
	if err != nil {
		fmt.Fprintf(stderr, "%s: [rules]: %v\n", cfg.Path, err)
		return 1
	}
	defer stopSource()
	loaded := svc.stamp() // before serving: what watch compares with
	if alog != nil {
		svc.countAccessLog(alog)
	}
	adm, err := startAdmin(cfg, svc)
	if err != nil {
		fmt.Fprintf(stderr, "%s: [admin]: %v\n", cfg.Path, err)
		return 1
	}
	done, ok := startServer(srv, https, log, settle)
	if !ok {
		return 1
	}
	logServing(log, srv, cfg, adm, start, o.Upgrade)
	edits.ArmCrashPoints() // a crash drill's, after recovery at start
	sdNotify("READY=1")
	freeLoadGarbage()
	if o.Config == "" {
		printExample(stdout, cfg, srv.Addr())
	}
	stop := make(chan struct{})
	defer close(stop)
	if cfg.Reload.Watch && o.Config != "" {
		go svc.watch(loaded, cfg.Reload.WatchInterval.Std(), stop)
	}
	go svc.idle.run(stop)
	upgrade := upgradeSide(o, adm, adminListen, cfg.Admin.Listen, stop, log) // upgrade.go: SIGUSR2, -upgrade
	return svc.withLastAnswered(stop, func() int { return awaitSignals(sig, done, svc, srv, adm, alog, cfg, upgrade, log) })
}

// freeLoadGarbage hands what the load left behind back to the OS
// (freeLoadMemory), now rather than when the scavenger gets to it, off
// the path to the first answer.
func freeLoadGarbage() { safego.Go("free OS memory", freeLoadMemory) }

// loadForServe loads the config named on the command line, with its
// admin address overridden by -admin-listen, and checks that it can be
// served; the edits promoted through the admin API ([admin] edits_dir)
// are laid over its rules.
func loadForServe(o Options, log *slog.Logger) (cfg *config.Config, ed *edits.State, adminListen string, err error) {
	// The first load builds a heap from nothing: at the default GOGC the
	// collector runs on every doubling of a growing heap, marking it again
	// each time, about a fifth of the time to the first answer on a
	// 40,000-regex map. It runs less often during that load;
	// FreeOSMemory in serve hands the garbage back once serving.
	gc := debug.SetGCPercent(400)
	cfg, err = o.Loader.Load(o.Config)
	debug.SetGCPercent(gc)
	if err != nil {
		return nil, nil, "", err
	}
	adminListen = cfg.Admin.Listen // the configured one, which -upgrade takes back
	if o.AdminListen != "" {
		cfg.Admin.Listen = o.AdminListen
	}
	if err := Startable(cfg); err != nil {
		return nil, nil, "", err
	}
	ed, err = openEdits(cfg, log)
	if err == nil {
		err = applyEdits(ed, cfg, nil, log)
	}
	if err != nil {
		return nil, nil, "", fmt.Errorf("%s: [admin] edits_dir: %w (delete the file current there to serve the config's own rules)", cfg.Path, err)
	}
	return cfg, ed, adminListen, nil
}

// openAccessLog opens [access_log]'s file, or returns nil when there is
// none.
func openAccessLog(cfg *config.Config) (*accesslog.Log, error) {
	if !cfg.AccessLog.On() {
		return nil, nil
	}
	format, _ := accesslog.ParseFormatEscape(cfg.AccessLog.Format, cfg.AccessLog.Escape) // checked by config
	return accesslog.Open(cfg.AccessLog.Path, format)
}

// startAdmin starts the admin endpoints on [admin] listen and attaches
// them to svc, or returns nil when they are "off".
func startAdmin(cfg *config.Config, svc *service) (*admin.Server, error) {
	if cfg.Admin.Listen == "off" {
		return nil, nil
	}
	opts := adminOptions(cfg)
	opts.Wait = svc.versionReady
	adm, err := admin.New(opts, svc)
	if err != nil {
		return nil, err
	}
	if err := adm.Start(); err != nil {
		return nil, err
	}
	svc.attachAdmin(adm)
	return adm, nil
}

// startServer runs srv on its own goroutine, whose error comes on done,
// and waits until it listens; then ACME starts, now that the challenge
// ports are ours, and served (settleWhenServing). It is false, and has
// logged why, when srv cannot start.
func startServer(srv *engine.Server, https *httpsSide, log *slog.Logger, served func()) (done chan error, ok bool) {
	done = make(chan error, 1)
	go func() {
		var err error
		defer func() { done <- err }()
		defer safego.RecoverErr("engine", &err)
		err = srv.Run()
	}()
	select {
	case err := <-done:
		log.Error("cannot start", "err", err)
		return nil, false
	case <-srv.Ready():
	}
	if https != nil {
		https.m.Start()
	}
	served()
	return done, true
}

// logServing says that srv serves: where, how many rules, how long the
// start took; and, on -upgrade, that the old instance is still to stop.
func logServing(log *slog.Logger, srv *engine.Server, cfg *config.Config, adm *admin.Server, start time.Time, takeover bool) {
	// srv.Rules, not cfg.Set: a reload (the cached rule set of [rules]
	// source, an early POST /reload) may have replaced and dropped it.
	c, perHost := srv.Rules().Counts(), srv.Rules().Len()
	if srv.Rules() == cfg.Set {
		c = cfg.Written // the rules as written, as check and the imports count them
	}
	attrs := []any{"config", cfg.Path, "listen", srv.Addr(), "rules", c.Exact + c.Prefix + c.Regex,
		"exact", c.Exact, "prefix", c.Prefix, "regex", c.Regex}
	if perHost != c.Exact+c.Prefix+c.Regex {
		attrs = append(attrs, "per_host", perHost)
	}
	attrs = append(attrs, "startup", time.Since(start).Round(time.Microsecond))
	if adm != nil {
		attrs = append(attrs, "admin", adm.Addr())
	}
	if a := srv.TLSAddr(); a != "" {
		attrs = append(attrs, "tls", a)
	}
	logSkipped(log, cfg)
	if takeover {
		attrs = append(attrs, "upgrade", true)
		log.Warn("upgrade: serving beside the instance already on these ports, if one is; stop it (SIGTERM) to complete the hand-over", "listen", srv.Addr())
	}
	log.Info("serving", attrs...)
}

// awaitSignals serves until the server stops by itself or a signal
// other than SIGHUP (reload) or SIGUSR1 (reopen the access log) comes,
// and returns the exit code.
func awaitSignals(sig <-chan os.Signal, done <-chan error, svc *service, srv *engine.Server, adm *admin.Server, alog *accesslog.Log, cfg *config.Config, upgrade func(), log *slog.Logger) int {
	for {
		select {
		case err := <-done:
			log.Error("server stopped", "err", err)
			return 1
		case s := <-sig:
			switch s {
			case syscall.SIGHUP:
				svc.reload(edit.Audit{Author: "SIGHUP"})
				continue
			case syscall.SIGUSR1:
				// logrotate renamed the access log: write to a new file.
				if alog != nil {
					if err := alog.Reopen(); err != nil {
						log.Error("cannot reopen the access log; still writing to the old file", "err", err)
					} else {
						log.Info("access log reopened", "path", cfg.AccessLog.Path)
					}
				}
				continue
			case syscall.SIGUSR2:
				upgrade() // upgrade.go
				continue
			}
			return shutdown(srv, adm, done, cfg.Server.ShutdownTimeout.Std(), s, log)
		}
	}
}

// shutdown drains and stops the server: what is in flight is answered
// within timeout, idle connections are closed.
func shutdown(srv *engine.Server, adm *admin.Server, done <-chan error, timeout time.Duration, s os.Signal, log *slog.Logger) int {
	log.Info("stopping", "signal", s.String(), "timeout", timeout)
	sdNotify("STOPPING=1")
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	code := 0
	if err := srv.Shutdown(ctx); err != nil {
		log.Error("stop", "err", err)
		code = 1
	}
	<-done
	if adm != nil {
		adm.Shutdown(context.Background())
	}
	log.Info("stopped")
	return code
}

// newLogger returns the process's logger: text or JSON on w.
func newLogger(w io.Writer, format string) (*slog.Logger, error) {
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, nil)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, nil)), nil
	}
	return nil, fmt.Errorf("-log-format %q: use text or json", format)
}

// restartNeeded returns the settings read only at start that changed
// between old and cur, each as "[table] key", in the order of the file's
// structs; none when a reload applies everything.
func restartNeeded(old, cur *config.Config) []string {
	os, cs := old.Server, cur.Server
	// [server] headers travel with the rules (matcher.Set.Headers).
	os.Headers, os.HeaderList, cs.Headers, cs.HeaderList = nil, nil, nil, nil
	var keys []string
	keys = changedKeys(keys, "server", os, cs)
	// The upstream groups and routes apply with the reload (upstreams.go).
	oa, ca := old.Admin, cur.Admin
	if tokenSwappable(oa, ca) {
		// A rotated token_file applies with the reload (applyToken).
		oa.Token, oa.TokenFile, ca.Token, ca.TokenFile = "", "", "", ""
	}
	keys = changedKeys(keys, "admin", oa, ca)
	keys = changedKeys(keys, "access_log", old.AccessLog, cur.AccessLog)
	keys = changedKeys(keys, "misses", old.Misses, cur.Misses)
	for _, k := range []struct {
		name string
		same bool
	}{{"listen", old.TLS.Listen == cur.TLS.Listen}, {"hsts", old.TLS.HSTS == cur.TLS.HSTS}, {"handshake_timeout", old.TLS.HandshakeTimeout == cur.TLS.HandshakeTimeout},
		{"post_quantum", old.TLS.PostQuantum == cur.TLS.PostQuantum},
		{"http2", old.TLS.HTTP2On() == cur.TLS.HTTP2On()}, {"max_concurrent_streams", old.TLS.MaxConcurrentStreams == cur.TLS.MaxConcurrentStreams}} {
		if !k.same {
			keys = append(keys, "[tls] "+k.name)
		}
	}
	return keys
}

// changedKeys appends "[table] key" for each field of the structs a and b
// (of one type) that differs, named by its toml tag.
func changedKeys(keys []string, table string, a, b any) []string {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	if va.Kind() != reflect.Struct {
		if !reflect.DeepEqual(a, b) {
			keys = append(keys, "["+table+"]")
		}
		return keys
	}
	t := va.Type()
	for i := range t.NumField() {
		if reflect.DeepEqual(va.Field(i).Interface(), vb.Field(i).Interface()) {
			continue
		}
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("toml"), ",")
		if name == "" || name == "-" {
			name = strings.ToLower(t.Field(i).Name)
		}
		keys = append(keys, "["+table+"] "+name)
	}
	return keys
}

// printExample tells a new user what the built-in example serves.
func printExample(w io.Writer, cfg *config.Config, addr string) {
	fmt.Fprintf(w, "redirectd is serving its built-in example on http://%s (start it with -config FILE for your own rules).\n", addr)
	for _, r := range cfg.Set.Rules() {
		host := ""
		if r.Host != "" {
			host = "  (Host: " + r.Host + ")"
		}
		fmt.Fprintf(w, "  %-7s %-34s -> %d %s%s\n", r.Kind, r.From, r.Status, r.To, host)
	}
	fmt.Fprintf(w, "Try: curl -i http://%s/old\n", addr)
}

// adminOptions are the admin server's options from cfg's [admin].
func adminOptions(cfg *config.Config) admin.Options {
	// The console keeps the rules' daily hit history beside the edits.
	var co console.Options
	if cfg.Admin.EditsDir != "" {
		co.HistoryDir = filepath.Join(cfg.Admin.EditsDir, "hits")
	}
	o := admin.Options{Listen: cfg.Admin.Listen, Token: cfg.Admin.Token, MaxUploadBytes: cfg.Admin.MaxUploadBytes, Pages: console.NewWith(co)}
	for _, t := range cfg.Admin.Tokens {
		role, _ := edit.ParseRole(t.Role) // checked by config
		o.Tokens = append(o.Tokens, admin.Token{Name: t.Name, Role: role, Token: t.Token, Hosts: t.Hosts})
	}
	return o
}
