package config

import (
	"time"

	"github.com/redirectd/redirectd/matcher"
	"github.com/redirectd/redirectd/matcher/rewrite"
)

// Config is a loaded, validated configuration.
type Config struct {
	// Path is the file it was read from.
	Path   string
	Server Server
	// Upstream is nil when no [upstream] is configured: misses get 404.
	Upstream *Upstream
	// Upstreams are the named groups of [upstreams.NAME], by name (nil
	// when there are none); Routes the [[route]] tables that send misses
	// to them, in file order (routes.go).
	Upstreams map[string]*Upstream
	Routes    []Route
	Admin     Admin
	AccessLog AccessLog
	Reload    RulesReload
	Misses    Misses
	// TLS is the [tls] table; ACME the [acme] table, nil when absent
	// (see tls.go).
	TLS  TLS
	ACME *ACME
	// Set is the compiled rules of [[rule]] tables, map and CSV files;
	// Set.Rules lists them in file order. (The config keeps no []Rule of
	// its own: for a million-rule map file that would be 100 MB held for
	// nothing.)
	Set *matcher.Set
	// Locations is the location phase of [[server_rewrite]] and
	// [[location]] (locations.go), nil without either.
	Locations *rewrite.Hosts
	// LocationTables counts the [[location]] tables, nested ones
	// included, for check's summary.
	LocationTables int
	// Files lists the map and CSV files read, for reloads on change.
	Files []string
	// Skipped are map entries left out of Set because they are wrong and
	// their [[map]] has invalid = "skip", in file order: the first
	// MaxSkipped of SkippedEntries.
	Skipped []*Error
	// GeoIP is the [geoip] table (conditions.go).
	GeoIP          GeoIP
	SkippedEntries int
	// Written counts the rules as the files write them: each [[rule]]
	// table, map entry and CSV row once, however many hosts it is listed
	// for, where Set holds (and Set.Counts counts) one rule per host.
	// check and the imports print this count, so that they agree.
	Written matcher.Counts
}

// MaxSkipped bounds Config.Skipped, so that a map of a million wrong
// entries is not held, and logged, a million times.
const MaxSkipped = 1000

// Server is the [server] table. Zero values mean the engine's defaults,
// which config/README.md lists.
type Server struct {
	// Listen is the traffic port's address.
	Listen string `toml:"listen"`
	// EventLoops is the number of event loops; 0 means one per CPU.
	EventLoops int `toml:"event_loops"`
	// MaxPathBytes bounds a request target (default 8192).
	MaxPathBytes int `toml:"max_path_bytes"`
	// IdleTimeout closes a connection silent between requests (default 10s).
	IdleTimeout Duration `toml:"idle_timeout"`
	// HeaderTimeout closes a connection slow to send a head (default 10s).
	HeaderTimeout Duration `toml:"header_timeout"`
	// MaxConnectionsPerIP bounds one client address's connections (default 256).
	MaxConnectionsPerIP int `toml:"max_connections_per_ip"`
	// IPv6Prefix is the prefix length an IPv6 client is counted by for
	// MaxConnectionsPerIP, 1 to 128 (default 64).
	IPv6Prefix int `toml:"ipv6_prefix"`
	// MaxConnections bounds all connections (default: the open-file limit less 64).
	MaxConnections int `toml:"max_connections"`
	// HTTPSRedirect sends every request not marked X-Forwarded-Proto: https
	// to https.
	HTTPSRedirect bool `toml:"https_redirect"`
	// AbsoluteRedirect sends a Location that is a path as an absolute URL
	// with the request's scheme, host and port, as nginx's default
	// `absolute_redirect on` (default false: the path as configured).
	AbsoluteRedirect bool `toml:"absolute_redirect"`
	// RedirectPort is absolute_redirect's port: "listener" (default, as
	// nginx) or "host", the Host header's (as Apache).
	RedirectPort string `toml:"redirect_port"`
	// ShutdownTimeout bounds the drain on SIGTERM (default 10s).
	ShutdownTimeout Duration `toml:"shutdown_timeout"`
	// DeferAccept hands a connection over once its first bytes arrive and
	// acknowledges a request with its answer (default true).
	DeferAccept *bool `toml:"defer_accept"`
	// Headers is the headers table: fields added to every answer the
	// server writes itself (headers.go); HeaderList is it checked.
	Headers    any              `toml:"headers"`
	HeaderList []matcher.Header `toml:"-"`
	// Proxies: proxy_protocol and trusted_proxies (proxy.go).
	Proxies
}

// DeferAcceptOn reports whether defer_accept is on: unless set to false.
func (s *Server) DeferAcceptOn() bool { return s.DeferAccept == nil || *s.DeferAccept }

// Admin is the [admin] table: the loopback API for operators.
type Admin struct {
	// Listen is the admin address (default 127.0.0.1:9180); "off"
	// disables the admin listener.
	Listen string `toml:"listen"`
	// Token, when set, is required as "Authorization: Bearer <token>" by
	// every endpoint but the health probes; a non-loopback Listen needs
	// one.
	Token string `toml:"token"`
	// TokenFile names a file holding the token instead (secrets.go),
	// read at every load into Token.
	TokenFile string `toml:"token_file"`
	// Tokens are named tokens, each with a role and optionally a list
	// of hosts it may see and edit (admin_tokens.go).
	Tokens []AdminToken `toml:"tokens"`
	// EditsDir is the folder where the versions promoted through the
	// admin API's drafts are kept; "" turns drafts off. Relative to the
	// config's folder.
	EditsDir string `toml:"edits_dir"`
	// AuditLog is the file each promote and rollback is appended to as
	// a JSON line: default EditsDir/audit.jsonl, "off" for none.
	AuditLog string `toml:"audit_log"`
	// MaxUploadBytes bounds the body of POST /drafts/{id}/upload
	// (default 256 MiB).
	MaxUploadBytes int64 `toml:"max_upload_bytes"`
	// MaxDrafts bounds the drafts one token (author) may have open, and
	// MaxDraftEntries the entries they hold together (defaults 10 and
	// DefaultMaxDraftEntries): a draft is held in memory until it is
	// promoted or discarded.
	MaxDrafts       int `toml:"max_drafts"`
	MaxDraftEntries int `toml:"max_draft_entries"`
}

// AccessLog is the [access_log] table.
type AccessLog struct {
	// Enabled defaults to true.
	Enabled *bool `toml:"enabled"`
	// Path is a file, or "-" for stderr (default "-").
	Path string `toml:"path"`
	// Format is "combined" (default), "json", or a layout of nginx
	// log_format $variables, compiled at load.
	Format string `toml:"format"`
	// Escape is nginx's log_format escape= for a layout: "default" or
	// "json".
	Escape string `toml:"escape"`
}

// On reports whether the access log is enabled.
func (a *AccessLog) On() bool { return a.Enabled == nil || *a.Enabled }

// RulesReload is the [rules] table.
type RulesReload struct {
	// Watch reloads when the config or a map file changes.
	Watch bool `toml:"watch"`
	// WatchInterval is how often files are checked (default 2s).
	WatchInterval Duration `toml:"watch_interval"`
	// RulesSource fetches the rules from a URL (see rules_source.go).
	RulesSource
	// MaxRegexes and MaxRegexInstructions bound the regexes of the rules
	// that compile to programs, and their instructions in all
	// (matcher.Limits); 0: the defaults. They apply to a rule set from
	// the source too.
	MaxRegexes           int `toml:"max_regexes"`
	MaxRegexInstructions int `toml:"max_regex_instructions"`
	// MaxRulesBytes bounds the memory the rules outside packed tables
	// take, as the matcher estimates it while compiling them
	// (matcher.Limits.RuleBytes); 0: the default.
	MaxRulesBytes int64 `toml:"max_rules_bytes"`
}

// limits returns the matcher's limits with r's regex budgets.
func (r *RulesReload) limits() matcher.Limits {
	l := packLimits
	if r.MaxRegexes > 0 {
		l.Programs = r.MaxRegexes
	}
	if r.MaxRegexInstructions > 0 {
		l.ProgramInsts = r.MaxRegexInstructions
	}
	if r.MaxRulesBytes > 0 {
		l.RuleBytes = r.MaxRulesBytes
	}
	return l
}

// Defaults of the service tables.
const (
	DefaultAdminListen     = "127.0.0.1:9180"
	DefaultShutdownTimeout = 10 * time.Second
	DefaultWatchInterval   = 2 * time.Second
)

// DefaultListen is the traffic address when [server] listen is not set.
const DefaultListen = "127.0.0.1:8080"

// DefaultStatus is the status of a rule that sets none.
const DefaultStatus = 301

// freeTables are tables whose keys are the user's own names (the query
// parameters of a rule's conditions), checked by their converter.
var freeTables = map[string]bool{"rule.query": true,
	"server.headers": true, "rule.headers": true, "map.headers": true, "csv.headers": true,
	"rule.when": true, "rule.when.header": true, "rule.when.cookie": true, // checked by when (conditions.go)
	"map.when": true, "map.when.header": true, "map.when.cookie": true,
	"rule.when.unless": true, "rule.when.unless.header": true, "rule.when.unless.cookie": true, "rule.when.unless.query": true,
	"map.when.unless": true, "map.when.unless.header": true, "map.when.unless.cookie": true, "map.when.unless.query": true,
	"rule.when.query": true, "map.when.query": true, // refused by when, with the reason
	"rule.when.unless.unless": true, "map.when.unless.unless": true}

// known lists the keys each table accepts. Keys are compared exactly, so a
// misspelt or differently cased key is reported rather than ignored.
var known = map[string][]string{
	"":             {"server", "upstream", "upstreams", "route", "admin", "access_log", "rules", "rule", "map", "csv", "location", "server_rewrite", "location_map", "tls", "acme", "misses", "geoip"},
	"misses":       {"capacity"},
	"geoip":        {"database"},
	"csv":          {"file", "headers", "invalid"},
	"admin":        {"listen", "token", "token_file", "tokens", "edits_dir", "audit_log", "max_upload_bytes", "max_drafts", "max_draft_entries"},
	"admin.tokens": {"name", "role", "token", "token_file", "hosts"},
	"access_log":   {"enabled", "path", "format", "escape"},
	"rules": {"watch", "watch_interval", "defaults", "source", "poll", "source_header", "source_header_file",
		"cache_dir", "keep_versions", "max_regexes", "max_regex_instructions", "max_rules_bytes", "order"},
	"upstream": {"servers", "balance", "max_conns_per_server", "connect_timeout", "read_timeout",
		"write_timeout", "pool_wait_timeout", "send_timeout", "body_timeout", "tunnel_idle_timeout",
		"host_header", "max_request_body_bytes", "request_buffer_bytes", "body_min_rate", "max_conns_per_client", "health_check",
		"tls_server_name", "ca_file", "client_cert_file", "client_key_file", "tls_insecure_skip_verify"},
	"upstream.health_check": {"path", "interval"},
	"route":                 {"host", "prefix", "upstream"},
	// [[location]] and [[server_rewrite]], see locations.go.
	"location":                            append([]string{"host", "hosts", "scheme"}, locationKeys...),
	"location.location":                   locationKeys,
	"location.location.location":          locationKeys,
	"location.location.location.location": locationKeys,
	"server_rewrite":                      {"host", "hosts", "scheme", "steps", "default_server", "default_server_ports"},
	"location_map":                        locationMapKeys,
	"server": {"listen", "event_loops", "max_path_bytes", "idle_timeout", "header_timeout",
		"max_connections_per_ip", "ipv6_prefix", "max_connections", "https_redirect", "absolute_redirect", "redirect_port", "shutdown_timeout", "defer_accept",
		"proxy_protocol", "trusted_proxies", "headers"},
	"rule":           {"match", "from", "to", "status", "host", "case_insensitive", "trailing_slash", "query_string", "query", "request_uri", "path", "headers", "when"},
	"map":            {"file", "format", "match", "status", "host", "case_insensitive", "trailing_slash", "query_string", "request_uri", "path", "invalid", "headers", "when"},
	"rules.defaults": {"status", "case_insensitive", "trailing_slash", "query_string", "path", "uri", "merge_slashes"},
	// [tls] and [acme], see tls.go.
	"tls":             {"listen", "certificate", "certificates_dir", "hsts", "handshake_timeout", "post_quantum", "http2", "max_concurrent_streams"},
	"tls.certificate": {"cert", "key"},
	"acme":            {"email", "ca", "ca_root", "storage", "hosts", "on_demand", "ask", "on_demand_rate", "on_demand_per_domain_week", "on_demand_queue", "redis"},
	"acme.redis":      {"address", "username", "password", "password_file", "db", "key_prefix", "tls"},
	"acme.redis.tls":  {"ca_file", "server_name", "cert_file", "key_file"},
}
