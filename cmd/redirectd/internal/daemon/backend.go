package daemon

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/redirectd/redirectd/cmd/redirectd/internal/configload"
	"github.com/redirectd/redirectd/cmd/redirectd/internal/explain"
	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/engine/accesslog"
	"github.com/redirectd/redirectd/engine/admin"
	"github.com/redirectd/redirectd/engine/admin/edit"
	"github.com/redirectd/redirectd/engine/admin/edit/edits"
	"github.com/redirectd/redirectd/engine/admin/edit/ruleset"
	"github.com/redirectd/redirectd/engine/promtext"
	"github.com/redirectd/redirectd/internal/safego"
	"github.com/redirectd/redirectd/matcher"
)

// service ties the running server to its config: reloads (SIGHUP, POST
// /reload, file changes), the admin API's view of it, and the metrics of
// both.
type service struct {
	srv  *engine.Server
	file string // "" for the built-in example
	// loader loads file, or the example.
	loader configload.Loader
	log    *slog.Logger
	// adminListen is serve -admin-listen, which replaces [admin] listen
	// in every config loaded, reloads included.
	adminListen string

	mu  sync.Mutex // serialises reloads
	cfg *config.Config
	// https is the HTTPS port's certificate manager (nil without [tls]).
	https *httpsSide
	// admin is the admin server (nil until it is made, or with listen
	// "off"), whose token a reload replaces (token_file rotated).
	admin *admin.Server
	// ups are the upstream groups' pools, which a reload replaces.
	ups *upstreams

	set                  *metrics.Set
	reloads, reloadFails *metrics.Counter
	lastReload           *metrics.Gauge
	lastReloadUnix       float64
	// skipped is the serving config's count of map entries left out
	// (invalid = "skip"), read by a gauge without waiting for a reload.
	skipped atomic.Int64

	// rs pulls the rules from [rules] source (nil without one); versions
	// lists the rule sets loaded (versions.go).
	rs       *ruleSource
	versions edits.VersionLog
	// versionInfo holds redirectd_rules_version_info, remade when the
	// version serving changes (its label is the hash).
	versionInfo atomic.Pointer[metrics.Set]
	// ed is what the admin API's drafts edit (editing.go).
	ed *edits.State
	// ruleset is the archive of the version serving, made on the
	// first GET /ruleset after it changes (package ruleset).
	ruleset ruleset.Archive
	// snap is the rules serving with their version's hash and who made
	// them, stored together at each swap, for GET /ruleset, /rules and
	// explain.
	snap atomic.Pointer[ruleset.Snapshot]
	// idle hands a burst's garbage back once the process is quiet.
	idle *idleCollector
	// versionReady is closed once the version of the config serve
	// loaded is recorded (settleVersion): the admin endpoints and every
	// change of rules wait for it.
	versionReady chan struct{}
}

// serviceMetricHelp is the HELP text of every family the service
// registers: a family added without a line fails TestServiceMetricHelp,
// which names it.
var serviceMetricHelp = promtext.Help{
	"redirectd_goroutine_panics_total":                       "Panics recovered on a goroutine outside a connection's, by goroutine; each stopped that goroutine's work.",
	"redirectd_idle_collections_total":                       "Collections run because the process went quiet with a burst's garbage in its heap, each followed by handing the free memory back to the OS.",
	"redirectd_config_reloads_total":                         "Config reloads (SIGHUP, POST /reload, watch), by result; a failed one leaves the running rules in place.",
	"redirectd_config_last_reload_success_timestamp_seconds": "Time the serving rules were loaded, in seconds since the Unix epoch.",
	"redirectd_map_entries_skipped":                          "Map entries the serving config left out (invalid = \"skip\").",
	"redirectd_rules":                                        "Rules serving, by kind.",
	"redirectd_access_log_dropped_lines_total":               "Access log lines dropped because the disk could not keep up.",
	"redirectd_access_log_written_lines_total":               "Access log lines handed to the writer.",
}

// versionMetricHelp is serviceMetricHelp for the families of the rules
// source and of the version serving (source.go, versions.go).
var versionMetricHelp = promtext.Help{
	"redirectd_rules_source_last_success_timestamp_seconds": "Time of the last fetch from [rules] source that succeeded (changed or not), in seconds since the Unix epoch.",
	"redirectd_rules_source_age_seconds":                    "Seconds since the last fetch from [rules] source that succeeded.",
	"redirectd_rules_source_fetches_total":                  "Fetches from [rules] source that succeeded, by result: a new version or unchanged.",
	"redirectd_rules_source_failures_total":                 "Fetches or loads from [rules] source that failed, by reason; the running rules stay.",
	"redirectd_rules_pinned":                                "1 while a rolled-back version is pinned (POST /versions/rollback), else 0.",
	"redirectd_rules_version_info":                          "The content hash of the rule set serving, as a label; the value is 1.",
}

// newService is makeService with the version of cfg recorded.
func newService(srv *engine.Server, cfg *config.Config, file string, loader configload.Loader, ed *edits.State, log *slog.Logger) *service {
	s := makeService(srv, cfg, file, loader, ed, log)
	s.settleVersion(cfg)
	return s
}

// makeService makes the service of srv serving cfg's rules; its version
// is recorded by settleVersion, which it waits for (versionReady).
func makeService(srv *engine.Server, cfg *config.Config, file string, loader configload.Loader, ed *edits.State, log *slog.Logger) *service {
	if ed == nil {
		ed = edits.NewState(edits.Options{})
	}
	s := &service{srv: srv, cfg: cfg, file: file, loader: loader, ed: ed, log: log, set: metrics.NewSet(), versionReady: make(chan struct{})}
	ed.Serve(srv.Rules, s.missAnswer)
	s.reloads = s.set.NewCounter(`redirectd_config_reloads_total{result="ok"}`)
	s.reloadFails = s.set.NewCounter(`redirectd_config_reloads_total{result="failed"}`)
	s.lastReloadUnix = float64(time.Now().Unix())
	s.lastReload = s.set.NewGauge(`redirectd_config_last_reload_success_timestamp_seconds`, func() float64 {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.lastReloadUnix
	})
	s.skipped.Store(int64(cfg.SkippedEntries))
	s.set.NewGauge(`redirectd_map_entries_skipped`, func() float64 { return float64(s.skipped.Load()) })
	for _, kind := range []string{"exact", "prefix", "regex"} {
		s.set.NewGauge(fmt.Sprintf(`redirectd_rules{kind=%q}`, kind), func() float64 {
			c := s.srv.Rules().Counts()
			return float64(map[string]int{"exact": c.Exact, "prefix": c.Prefix, "regex": c.Regex}[kind])
		})
	}
	s.restoreLastAnswered()
	s.idle = newIdleCollector(s.set)
	return s
}

// reload loads the config again and swaps its rules in; a config with
// errors leaves the running rules in place and is returned. Settings that
// need a restart ([server], [admin], [access_log]) are
// reported when they changed, not silently ignored.
//
// Each request is a reload of its own, run one after another: one that
// comes during another's waits for it, then reads the files again,
// which may have changed since the other read them. So each logs
// "reload" (who asked) once it starts, then "reloaded" or "reload
// failed", and nothing of another reload comes between.
func (s *service) reload(who edit.Audit) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	args := []any{"author", who.Author}
	if who.Message != "" {
		args = append(args, "message", who.Message)
	}
	s.log.Info("reload", args...)
	s.kickSource() // SIGHUP and POST /reload also ask the source now
	return s.apply(change{action: "reload", who: who})
}

// reloadLocked loads and swaps in rules for apply (change.go), the one
// path by which rules change after start (SIGHUP, POST /reload, watch, a
// new version at the source, a promote, a rollback, a pin, an unpin), so
// each is validated alike; and for the start of a node with a source. c
// is a rule set from the source to load (nil: the config's own rules, or
// the source's version serving). commit, when not nil, makes the change
// durable once the rules are checked, before they swap; its error fails
// the load. s.mu is held.
func (s *service) reloadLocked(c *candidate, commit func(edit.Version) error) (string, error) {
	// Not while starting (the cached rule set of a source loads before
	// the listeners are up): READY=1 would tell systemd too early.
	if s.srv.Readiness() == nil {
		sdNotify("RELOADING=1")
		defer sdNotify("READY=1")
	}
	start := time.Now()
	cfg, ver, origins, err := s.load(c)
	if err == nil && s.adminListen != "" {
		cfg.Admin.Listen = s.adminListen
	}
	if err == nil {
		// Certificates reload with the rules; one that does not load
		// fails the reload, and the running rules and certificates stay.
		err = s.https.reload(cfg)
	}
	var fw forwarding
	commitUps := func() {}
	if err == nil && s.ups != nil {
		// So do the upstream groups and routes.
		fw, commitUps, err = s.ups.build(cfg)
	}
	if err == nil && commit != nil {
		err = commit(ver)
	}
	if err != nil {
		s.reloadFails.Inc()
		s.log.Error("reload failed; the previous rules keep serving", "config", s.cfg.Path, "err", err)
		return "", err
	}
	// Recorded before the swap, so that whoever sees the new rules answer
	// finds them in /versions (and the pin as the load set it) too.
	pin := edits.KeepPin
	if c != nil {
		pin = c.pin
	}
	var edited *edit.Version
	if c != nil {
		edited = c.edits
	}
	snap := ruleset.Take(ver.Hash, cfg.Set, origins, s.ed, edited)
	s.recordVersion(ver, cfg.Set.Len(), pin)
	old := s.srv.Rules()
	if s.ups != nil {
		s.srv.SetUpstreams(fw.def, fw.routes, fw.named...)
		commitUps()
	}
	s.srv.Swap(cfg.Set)
	s.snap.Store(snap)
	s.https.rulesSwapped()
	carried := cfg.Set.CarryHits(old)
	// The engine now holds the only reference the old rules need: serve's
	// own variable still points at the first Config, which kept the first
	// Set alive for the life of the process (a whole million-rule set of
	// settled RSS after any reload).
	s.cfg.Set = nil
	s.skipped.Store(int64(cfg.SkippedEntries))
	logSkipped(s.log, cfg)
	s.reloads.Inc()
	s.lastReloadUnix = float64(time.Now().Unix())
	msg := fmt.Sprintf("%s in %s, version %s", RuleCounts(cfg.Written, cfg.Set.Counts()), time.Since(start).Round(time.Microsecond), ver.Hash)
	s.log.Info("reloaded", "config", cfg.Path, "rules", cfg.Set.Len(), "version", ver.Hash, "hits_carried", carried, "took", time.Since(start).Round(time.Microsecond))
	s.applyToken(cfg)
	msg += s.keepRestartSettings(cfg)
	s.cfg = cfg
	if c == nil || c.edits == nil {
		freeLoadMemory() // the old rules, the decoder's garbage and its code's pages
	}
	// A promote or rollback hands them back once it has its outcome
	// (with its draft's edits, garbage only then), off its answer's
	// path: at a million edits the collection takes a second or more.
	return msg, nil
}

// keepRestartSettings gives cfg, the config a reload loaded, the running
// config's values of the settings that take effect only after a restart
// (listeners, logs, TLS ports), warning that they changed; it returns
// what to add to the reload's message, "" when none changed.
func (s *service) keepRestartSettings(cfg *config.Config) string {
	keys := restartNeeded(s.cfg, cfg)
	if len(keys) == 0 {
		return ""
	}
	changed := strings.Join(keys, ", ")
	s.log.Warn(changed+" changed: the new rules serve, but these settings take effect only after a restart", "config", cfg.Path)
	token := cfg.Admin
	cfg.Server, cfg.Admin, cfg.AccessLog, cfg.Misses = s.cfg.Server, s.cfg.Admin, s.cfg.AccessLog, s.cfg.Misses
	if tokenSwappable(s.cfg.Admin, token) {
		cfg.Admin.Token, cfg.Admin.TokenFile = token.Token, token.TokenFile // applied by applyToken
	}
	cfg.TLS.Listen, cfg.TLS.HSTS, cfg.TLS.HandshakeTimeout = s.cfg.TLS.Listen, s.cfg.TLS.HSTS, s.cfg.TLS.HandshakeTimeout
	cfg.TLS.PostQuantum = s.cfg.TLS.PostQuantum
	cfg.TLS.HTTP2, cfg.TLS.MaxConcurrentStreams = s.cfg.TLS.HTTP2, s.cfg.TLS.MaxConcurrentStreams
	return "; " + changed + " changed: restart to apply"
}

// attachAdmin gives the service its admin server, once made, so that
// reloads can replace its token; a reload that came first (the cached
// rule set of a source) may have read a newer token than the server was
// made with.
func (s *service) attachAdmin(adm *admin.Server) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.admin = adm
	s.applyToken(s.cfg)
}

// applyToken puts cfg's admin token, read from token_file at this load,
// in the admin server's place when only the token changed; turning one
// on or off needs a restart (restartNeeded says so). s.mu is held.
func (s *service) applyToken(cfg *config.Config) {
	if s.admin == nil || !tokenSwappable(s.cfg.Admin, cfg.Admin) {
		return
	}
	if err := s.admin.SetToken(cfg.Admin.Token); err != nil {
		s.log.Error("cannot replace the admin token; the old one stays", "config", cfg.Path, "err", err)
		return
	}
	if cfg.Admin.Token != s.cfg.Admin.Token {
		s.log.Info("admin token replaced", "config", cfg.Path, "token_file", cfg.Admin.TokenFile)
	}
}

// tokenSwappable reports whether a reload from old to cur can replace
// the admin token in place: both have one (the admin server checks
// tokens rather than Hosts).
func tokenSwappable(old, cur config.Admin) bool {
	return old.Token != "" && cur.Token != ""
}

// countAccessLog exports the access log's line counts. Counters, not
// gauges, because they only grow (promtool rejects a gauge named _total);
// the library has no counter read from a callback, so they are written
// by hand.
func (s *service) countAccessLog(alog *accesslog.Log) {
	s.set.RegisterMetricsWriter(func(w io.Writer) {
		metrics.WriteCounterUint64(w, "redirectd_access_log_dropped_lines_total", alog.Dropped())
		metrics.WriteCounterUint64(w, "redirectd_access_log_written_lines_total", alog.Written())
	})
}

// logSkipped logs, once per load, each map entry cfg left out because its
// [[map]] has invalid = "skip".
func logSkipped(log *slog.Logger, cfg *config.Config) {
	for _, e := range cfg.Skipped {
		log.Warn("map entry left out (invalid = \"skip\")", "at", e.Where(), "reason", e.Reason())
	}
	if more := cfg.SkippedEntries - len(cfg.Skipped); more > 0 {
		log.Warn("more map entries left out (invalid = \"skip\") than are logged", "not_logged", more, "skipped", cfg.SkippedEntries)
	}
}

// The admin.Backend methods.

func (s *service) WriteMetrics(w io.Writer) {
	s.srv.WriteMetrics(w)
	promtext.WriteSet(w, s.set, serviceMetricHelp)
	promtext.WriteSet(w, safego.Metrics(), serviceMetricHelp)
	s.writeVersionMetrics(w)
	s.https.writeMetrics(w)
	promtext.WriteProcess(w)
}

func (s *service) Ready() error {
	if err := s.rulesReady(); err != nil {
		return err
	}
	if err := s.https.ready(); err != nil {
		return err
	}
	return s.srv.Readiness()
}

func (s *service) Rules() []admin.RuleInfo {
	var out []admin.RuleInfo
	// The edits, their messages and a fleet node's origins of the
	// version serving, taken with it at its swap: a promote's commit
	// is not read meanwhile.
	snap := s.snap.Load()
	s.srv.Rules().Each(func(r matcher.RuleHits) {
		ri := ruleInfo(r) // rules.go
		snap.Show(&ri, r.Rule)
		out = append(out, ri)
	})
	return out
}

func (s *service) Explain(url string, ar admin.ExplainRequest) (string, error) {
	// A fleet node names a rule an editor made by its origin, as /rules
	// does, from the origins taken with the rules serving.
	set, name := s.snap.Load().Explained(s.srv.Rules())
	var fields explain.Fields
	for _, h := range ar.Headers {
		if err := fields.Set(h); err != nil {
			return "", err
		}
	}
	req := &matcher.FixedRequest{Fields: fields, Countries: set.Countries()}
	client, err := explain.ParseClient(ar.Client)
	if err != nil {
		return "", err
	}
	req.Client = client
	var b bytes.Buffer
	if err := explain.RequestNamed(&b, set, url, time.Now(), req, name); err != nil {
		return "", err
	}
	return b.String(), nil
}

func (s *service) Reload() (string, error) { return s.reload(edit.Audit{Author: "admin API"}) }

// ReloadBy is Reload for a caller the audit log names.
func (s *service) ReloadBy(a edit.Audit) (string, error) { return s.reload(a) }

// stamp describes the config file and the map files it names (path,
// modification time, size), for watch to tell when one changes.
func (s *service) stamp() string {
	s.mu.Lock()
	files := append([]string{s.cfg.Path}, s.cfg.Files...)
	files = append(files, s.https.files(s.cfg)...)
	// A rotated admin token (a Kubernetes Secret updated in place)
	// reloads too.
	if f := s.cfg.Admin.TokenFile; f != "" {
		files = append(files, f)
	}
	s.mu.Unlock()
	var b bytes.Buffer
	for _, f := range files {
		if st, err := os.Stat(f); err == nil {
			fmt.Fprintf(&b, "%s %d %d;", f, st.ModTime().UnixNano(), st.Size())
		} else {
			fmt.Fprintf(&b, "%s missing;", f)
		}
	}
	return b.String()
}

// watch reloads when the config file or a map file it names changes from
// last (a stamp taken as the rules were loaded, not when watch starts: a
// file edited while the server started would otherwise never be read),
// checking every interval, until stop closes.
func (s *service) watch(last string, interval time.Duration, stop <-chan struct{}) {
	defer safego.Recover("config watch")
	every(interval, stop, func() {
		if now := s.stamp(); now != last {
			// Stamped before reloading: a change made during the reload
			// is seen at the next tick.
			last = now
			s.log.Info("config files changed; reloading", "config", s.cfg.Path)
			s.reload(edit.Audit{Author: "watch", Message: "config files changed"})
		}
	})
}
