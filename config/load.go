package config

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/redirectd/redirectd/engine/accesslog"
	"github.com/redirectd/redirectd/matcher"
)

// Load reads the configuration at file, with the map files it names
// (relative paths are taken from file's folder), and compiles its rules.
func Load(file string) (*Config, error) {
	dir := filepath.Dir(file)
	return load(file, files{
		resolve: func(name string) string {
			if filepath.IsAbs(name) {
				return name
			}
			return filepath.Join(dir, name)
		},
		read: os.ReadFile,
		open: func(name string) (io.ReadCloser, error) { return os.Open(name) },
	})
}

// LoadFS is Load reading from fsys, such as an embedded example.
func LoadFS(fsys fs.FS, file string) (*Config, error) {
	dir := path.Dir(file)
	return load(file, files{
		resolve: func(name string) string { return path.Join(dir, name) },
		read:    func(name string) ([]byte, error) { return fs.ReadFile(fsys, name) },
		open:    func(name string) (io.ReadCloser, error) { return fsys.Open(name) },
	})
}

// files reads the config and the map files it names; resolve turns a name
// written in the config into the path to read and to report in errors.
// Map files are opened and read a piece at a time (see readMapFile).
type files struct {
	resolve func(name string) string
	read    func(path string) ([]byte, error)
	open    func(path string) (io.ReadCloser, error)
	// ruleSetOnly refuses every table but the rules' (LoadRuleSet).
	ruleSetOnly bool
	// headers are [server] headers given to LoadRuleSet, and node the
	// [rules] settings of the node loading it.
	headers []matcher.Header
	node    RulesReload
}

// rawRules is the [rules] table.
type rawRules struct {
	RulesReload
	Defaults *rawDefaults `toml:"defaults"`
	// Order is how a request's rule is chosen: "precedence" (the
	// default) or "file" (matcher.Builder.FileOrder).
	Order string `toml:"order"`
}

// rawConfig is the TOML document. Rules and maps are decoded as plain maps
// and converted by hand, so that a wrong type names its rule and line
// instead of producing the decoder's position-less message.
type rawConfig struct {
	Server   Server    `toml:"server"`
	Upstream *Upstream `toml:"upstream"`
	// Upstreams are the named groups, Route the [[route]] tables that
	// send misses to them (routes.go).
	Upstreams map[string]*Upstream `toml:"upstreams"`
	Route     []rawRoute           `toml:"route"`
	Admin     Admin                `toml:"admin"`
	AccessLog AccessLog            `toml:"access_log"`
	Rules     rawRules             `toml:"rules"`
	Rule      []rawRule            `toml:"rule"`
	Map       []rawMap             `toml:"map"`
	CSV       []rawCSV             `toml:"csv"`
	// Location and ServerRewrite are the location phase (locations.go).
	Location      []rawLocation      `toml:"location"`
	ServerRewrite []rawServerRewrite `toml:"server_rewrite"`
	LocationMap   []rawLocationMap   `toml:"location_map"`
	TLS           TLS                `toml:"tls"`
	ACME          *ACME              `toml:"acme"`
	Misses        rawMisses          `toml:"misses"`
	GeoIP         GeoIP              `toml:"geoip"`
}

// load reads the config file through fl, checks every table and
// compiles its rules; each problem found names file, line and key.
func load(file string, fl files) (*Config, error) {
	src, err := fl.read(file)
	if err != nil {
		return nil, fmt.Errorf("cannot read config: %w", err)
	}
	headers, err := scanTOML(file, src)
	if err != nil {
		return nil, err
	}
	var raw rawConfig
	md, err := decodeConfig(src, headers, &raw)
	if err != nil {
		return nil, decodeError(file, err)
	}
	loc := newLocator(src)
	var errs errorList
	checkKeys(file, md, loc, &errs)
	if fl.ruleSetOnly {
		checkRuleSetKeys(file, md, loc, &errs)
	}
	if err := errs.err(); err != nil {
		return nil, err
	}
	cfg := &Config{Path: file, Server: raw.Server}
	if cfg.Server.Listen == "" {
		cfg.Server.Listen = DefaultListen
	}
	checkServer(file, &cfg.Server, loc, &errs)
	checkProxies(file, &cfg.Server.Proxies, loc, &errs)
	cfg.Admin, cfg.AccessLog, cfg.Reload = raw.Admin, raw.AccessLog, raw.Rules.RulesReload
	defaults := convertDefaults(file, raw.Rules.Defaults, loc, &errs)
	cfg.Server.HeaderList = serverHeaders(file, &cfg.Server, loc, &errs)
	if fl.ruleSetOnly {
		cfg.Server.HeaderList = fl.headers
	}
	defaults.Headers = cfg.Server.HeaderList
	cfg.GeoIP, defaults.geoip = raw.GeoIP, raw.GeoIP.Database != ""
	if defaults.geoip {
		cfg.GeoIP.Database = fl.resolve(cfg.GeoIP.Database)
	}
	checkService(file, cfg, loc, &errs)
	checkRulesSource(file, &raw, cfg, loc, &errs)
	checkTLS(file, &raw, cfg, fl, loc, &errs)
	cfg.Misses = checkMisses(file, &raw.Misses, loc, &errs)
	if raw.Upstream != nil {
		raw.Upstream.Name = DefaultGroup
		checkUpstream(file, "upstream", raw.Upstream, fl, loc, &errs)
		cfg.Upstream = raw.Upstream
	}
	checkGroups(file, raw.Upstreams, fl, loc, &errs)
	cfg.Upstreams = raw.Upstreams
	cfg.Routes = checkRoutes(file, raw.Route, raw.Upstream, raw.Upstreams, loc, &errs)
	set, sink := readRules(file, &raw, &defaults, fl, loc, &errs)
	locations, nlocs, mapFiles := readLocations(file, &raw, raw.Upstream, raw.Upstreams, loc, fl, &errs)
	if err := errs.err(); err != nil {
		return nil, err
	}
	if err := set.SetHeaders(cfg.Server.HeaderList); err != nil {
		return nil, err // checked by serverHeaders already
	}
	if err := openGeoIP(file, cfg, loc); err != nil {
		return nil, err
	}
	cfg.Set, cfg.Files = set, append(sink.files, mapFiles...)
	if locations != nil {
		cfg.Locations, cfg.LocationTables = locations, nlocs
		set.SetLocations(locations)
	}
	if cfg.GeoIP.db != nil {
		set.SetCountries(cfg.GeoIP.db)
	}
	cfg.Skipped, cfg.SkippedEntries = sink.skipped, sink.nskipped
	cfg.Written = sink.written
	return cfg, nil
}

// readRules reads the rules of [[rule]], [[map]] and [[csv]] into a
// Set, noting each problem in errs; the sink returned tells which files
// were read and what was skipped.
func readRules(file string, raw *rawConfig, defaults *Defaults, fl files, loc *locator, errs *errorList) (*matcher.Set, *ruleSink) {
	// Rules and map files are read in file order: [[rule]] tables and
	// [[map]] entries may interleave, and file order decides between
	// regexes. Each rule is compiled as it is read, so that a map file's
	// million rules never exist as a []matcher.Rule.
	limits := raw.Rules.limits()
	if fl.ruleSetOnly {
		limits = fl.node.limits()
	}
	for _, k := range []struct {
		key string
		v   int64
	}{{"max_regexes", int64(raw.Rules.MaxRegexes)}, {"max_regex_instructions", int64(raw.Rules.MaxRegexInstructions)}, {"max_rules_bytes", raw.Rules.MaxRulesBytes}} {
		if k.v < 0 {
			errs.add(&Error{File: file, Line: loc.line("rules", 0, k.key), What: "[rules]", Key: k.key, Msg: fmt.Sprintf("%d: give a positive number, or leave it out for the default", k.v)})
		}
	}
	sink := &ruleSink{b: matcher.NewBuilder(limits), file: file, loc: loc, errs: errs}
	switch raw.Rules.Order {
	case "", "precedence":
	case "file":
		sink.b.FileOrder()
	default:
		errs.add(&Error{File: file, Line: loc.line("rules", 0, "order"), What: "[rules]", Key: "order",
			Msg: fmt.Sprintf("%q: write \"precedence\" (exact, longest prefix, first regex; the request's host first) or \"file\" (the first matching rule in file order)", raw.Rules.Order)})
	}
	sink.b.SetURI(defaults.URI)
	for _, e := range fileOrder(loc, len(raw.Rule), len(raw.Map), len(raw.CSV)) {
		if errs.full() || sink.stop {
			break
		}
		if e.isCSV {
			appendCSVRules(sink, e.index, &raw.CSV[e.index], defaults, fl)
		} else if e.isMap {
			appendMapRules(sink, e.index, &raw.Map[e.index], defaults, fl)
		} else if rs, ok := convertRule(file, e.index, &raw.Rule[e.index], defaults, loc, errs); ok {
			for i := range rs {
				sink.add(&rs[i])
			}
		}
	}
	set, err := sink.b.Set()
	keepMapTables(set, sink.built)
	for _, e := range unjoin(err) {
		if e != nil {
			sink.place(e)
		}
	}
	return set, sink
}

// packLimits bounds the Set's packed tables; tests lower it.
var packLimits = matcher.DefaultLimits

// ruleSink compiles the rules of one load as they are read.
type ruleSink struct {
	b     *matcher.Builder
	file  string // the config file
	loc   *locator
	errs  *errorList
	files []string // map and CSV files read
	stop  bool     // a limit was reached: read no more rules

	// skip is set while a [[map]] with invalid = "skip" is read: its
	// wrong entries are left out and listed in skipped (the first
	// MaxSkipped) and counted in nskipped, instead of failing the load.
	skip     bool
	skipped  []*Error
	nskipped int
	lastSkip Error // the last entry skipped

	// written counts the rules added as the files write them (see
	// Config.Written): the rules of one entry, one per host, are added
	// one after the other with the entry's file and line.
	written  matcher.Counts
	lastFile string
	lastLine int

	// built are the map files whose tables the next load may take
	// over (mapreuse.go).
	built []mapBuilt
}

// add compiles r into the Set, or records its error on the line of the key
// it is about (see place). A map entry the Set refuses is skipped when its
// [[map]] says so; a limit of the Set is never an entry's fault.
func (k *ruleSink) add(r *matcher.Rule) {
	err := k.b.Add(r)
	if err == nil {
		k.count(r)
		return
	}
	if ce, ok := k.locate(err).(*Error); ok && k.skip && !errors.Is(err, matcher.ErrLimit) {
		k.refuse(ce)
		return
	}
	k.place(err)
}

// count adds r to written unless it is another host's copy of the entry
// counted last.
func (k *ruleSink) count(r *matcher.Rule) {
	if r.Line > 0 && r.Line == k.lastLine && r.File == k.lastFile {
		return
	}
	k.lastFile, k.lastLine = r.File, r.Line
	switch r.Kind {
	case matcher.Exact:
		k.written.Exact++
	case matcher.Prefix:
		k.written.Prefix++
	case matcher.Regex:
		k.written.Regex++
	}
}

// refuse records a wrong map entry: an error of the load, or one more
// skipped entry. A rule refused once per host of its [[map]] is skipped
// once.
func (k *ruleSink) refuse(e *Error) {
	if !k.skip {
		k.errs.add(e)
		return
	}
	if k.nskipped > 0 && k.lastSkip == *e {
		return
	}
	k.lastSkip = *e
	if k.nskipped++; len(k.skipped) < MaxSkipped {
		k.skipped = append(k.skipped, e)
	}
}

// place records an error of the Set's builder on the line of the key it is
// about (see locate).
func (k *ruleSink) place(err error) {
	if errors.Is(err, matcher.ErrLimit) {
		k.stop = true // every further rule would say the same
	}
	k.errs.add(k.locate(err))
}

// locate turns an error of the Set's builder into an *Error on the line of
// the key it is about: a [[rule]]'s errors carry its header line, which
// locates the key; a map file's carry the entry's own line. Other errors
// are returned as they are.
func (k *ruleSink) locate(err error) error {
	var re *matcher.RuleError
	if !errors.As(err, &re) {
		return err
	}
	ce := &Error{File: re.Rule.File, Line: re.Rule.Line, Key: re.Field, Msg: re.Msg}
	if re.Rule.File == k.file {
		// Named as the decoding checks name it ([[rule]] #N), the line
		// being the key's: one form for every error of a [[rule]].
		ce.Line = k.loc.keyLine(re.Rule.Line, re.Field)
		ce.What = "[[rule]]"
		if i := k.loc.entry("rule", re.Rule.Line); i >= 0 {
			ce.What = entryName("rule", i)
		}
	}
	return ce
}

// unjoin splits an errors.Join result into its errors.
func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// decodeError turns a TOML decoding error into file:line form, naming the
// key where the decoder says which.
func decodeError(file string, err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		e := &Error{File: file, Line: pe.Position.Line, Key: pe.LastKey, Msg: pe.Message}
		return e
	}
	// Type mismatches come as plain errors of the form
	// `toml: line N (last key "k"): msg`.
	if m := decodeErrRE.FindStringSubmatch(err.Error()); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &Error{File: file, Line: line, Key: m[2], Msg: mismatchMessage(m[2], m[3])}
	}
	return &Error{File: file, Msg: err.Error()}
}

// mismatchMessage rewrites the decoder's message for a value of the wrong
// kind at key into one that names what to write, without Go's type names
// ("type mismatch for config.rawRules: expected table but found
// []map[string]any" for a [[rules]] that means [[rule]]).
func mismatchMessage(key, msg string) string {
	last := key[strings.LastIndexByte(key, '.')+1:]
	switch {
	case strings.Contains(msg, "expected table but found []map"):
		hint := ""
		if arr := nearestArrayTable(last); arr != "" {
			hint = fmt.Sprintf("; for rules, write [[%s]]", arr)
		}
		return fmt.Sprintf("unknown table [[%s]]: [%s] is a table of settings, written once%s", key, key, hint)
	case strings.Contains(msg, "type map[string]any; destination has type slice"):
		return fmt.Sprintf("[%s] must be written [[%s]], once for each entry", key, key)
	case strings.Contains(msg, "destination has type "):
		want := msg[strings.LastIndex(msg, "destination has type ")+len("destination has type "):]
		got := ""
		if i, j := strings.Index(msg, "TOML value has type "), strings.Index(msg, ";"); i >= 0 && j > i {
			got = msg[i+len("TOML value has type ") : j]
		}
		return fmt.Sprintf("wrong type: %s, where %s is wanted", tomlKind(got), tomlKind(want))
	}
	return msg
}

// tomlKind names a decoder type as a TOML writer knows it.
func tomlKind(t string) string {
	switch {
	case t == "string":
		return "a string"
	case strings.HasPrefix(t, "int"), t == "integer":
		return "an integer"
	case strings.HasPrefix(t, "float"):
		return "a number"
	case t == "bool", t == "boolean":
		return "true or false"
	case strings.HasPrefix(t, "map"), t == "struct":
		return "a table"
	case strings.HasPrefix(t, "[]"), t == "slice", t == "array":
		return "a list"
	}
	return t
}

// nearestArrayTable returns the array of tables whose name is name less
// or plus one letter (rules, maps, csvs), or "".
func nearestArrayTable(name string) string {
	for _, a := range []string{"rule", "map", "csv"} {
		if strings.TrimSuffix(name, "s") == a || name == a+"s" {
			return a
		}
	}
	return ""
}

var decodeErrRE = regexp.MustCompile(`^toml: line (\d+) \(last key "([^"]*)"\): (.*)$`)

// checkKeys reports every key the schema does not know, spelled exactly:
// toml's Undecoded misses keys that differ only in case.
func checkKeys(file string, md toml.MetaData, loc *locator, errs *errorList) {
	count := map[string]int{}
	for _, k := range md.Keys() {
		if len(k) == 1 {
			count[k[0]]++
			if !isKnown("", k[0]) {
				errs.add(&Error{File: file, Line: loc.line(k[0], 0, ""), Key: k[0],
					Msg: fmt.Sprintf("unknown table or key; known: %s", strings.Join(known[""], ", "))})
			}
			continue
		}
		parent, key := strings.Join(k[:len(k)-1], "."), k[len(k)-1]
		if freeTables[parent] {
			continue
		}
		if k[0] == "upstreams" {
			checkGroupKey(file, k, loc, errs)
			continue
		}
		if _, isTable := known[parent]; !isTable {
			if isKnown(k[0], k[1]) {
				i := max(count[k[0]]-1, 0)
				errs.add(&Error{File: file, Line: loc.line(k[0], i, k[1]), What: entryName(k[0], i), Key: k[1],
					Msg: "must be a plain value, not a table"})
			}
			continue // under an unknown or misused table, reported once above
		}
		if !isKnown(parent, key) {
			i := max(count[k[0]]-1, 0)
			errs.add(&Error{File: file, Line: loc.line(parent, i, key), What: entryName(parent, i), Key: key,
				Msg: fmt.Sprintf("unknown key; known keys here: %s", strings.Join(known[parent], ", "))})
		}
	}
}

// checkGroupKey reports a key of an [upstreams.NAME] group that
// [upstream] does not take; k is the key's whole path.
func checkGroupKey(file string, k []string, loc *locator, errs *errorList) {
	if len(k) < 3 {
		return // the group itself, whose name checkGroups checks
	}
	table := strings.Join(k[:len(k)-1], ".")
	schema := "upstream"
	if len(k) > 3 {
		schema = "upstream." + strings.Join(k[2:len(k)-1], ".")
	}
	key := k[len(k)-1]
	if _, ok := known[schema]; !ok {
		if len(k) == 4 && isKnown("upstream", k[2]) {
			errs.add(&Error{File: file, Line: loc.line("upstreams."+k[1], 0, k[2]), What: "[upstreams." + k[1] + "]", Key: k[2],
				Msg: "must be a plain value, not a table"})
		}
		return
	}
	if !isKnown(schema, key) {
		errs.add(&Error{File: file, Line: loc.line(table, 0, key), What: "[" + table + "]", Key: key,
			Msg: fmt.Sprintf("unknown key; known keys here: %s", strings.Join(known[schema], ", "))})
	}
}

func isKnown(table, key string) bool {
	keys, ok := known[table]
	if !ok {
		return false
	}
	for _, k := range keys {
		if k == key {
			return true
		}
	}
	return false
}

func entryName(table string, i int) string {
	if table != "rule" && table != "map" && table != "route" && table != "location" && table != "server_rewrite" && table != "location_map" {
		return "[" + table + "]"
	}
	return fmt.Sprintf("[[%s]] #%d", table, i+1)
}

type entryRef struct {
	isMap, isCSV bool
	index        int
}

// fileOrder interleaves the [[rule]], [[map]] and [[csv]] entries by the
// line of their headers.
func fileOrder(loc *locator, rules, maps, csvs int) []entryRef {
	out := make([]entryRef, 0, rules+maps+csvs)
	for i := range rules {
		out = append(out, entryRef{index: i})
	}
	for i := range maps {
		out = append(out, entryRef{isMap: true, index: i})
	}
	for i := range csvs {
		out = append(out, entryRef{isCSV: true, index: i})
	}
	line := func(e entryRef) int {
		switch {
		case e.isMap:
			return loc.header("map", e.index)
		case e.isCSV:
			return loc.header("csv", e.index)
		}
		return loc.header("rule", e.index)
	}
	sort.SliceStable(out, func(i, j int) bool { return line(out[i]) < line(out[j]) })
	return out
}

// checkServer reports [server] values out of range; zero means the default.
func checkServer(file string, sv *Server, loc *locator, errs *errorList) {
	bad := func(key, format string, args ...any) {
		errs.add(&Error{File: file, Line: loc.line("server", 0, key), What: "[server]", Key: key, Msg: fmt.Sprintf(format, args...)})
	}
	for _, v := range []struct {
		key string
		n   int
	}{
		{"event_loops", sv.EventLoops},
		{"max_path_bytes", sv.MaxPathBytes},
		{"max_connections_per_ip", sv.MaxConnectionsPerIP},
		{"ipv6_prefix", sv.IPv6Prefix},
		{"max_connections", sv.MaxConnections},
	} {
		if v.n < 0 {
			bad(v.key, "%d is negative; leave it out or use 0 for the default", v.n)
		}
	}
	if sv.IPv6Prefix > 128 {
		bad("ipv6_prefix", "%d is more than 128, the bits of an IPv6 address; use 64 (the default) for one client per /64", sv.IPv6Prefix)
	}
	switch {
	case sv.RedirectPort != "" && sv.RedirectPort != "listener" && sv.RedirectPort != "host":
		bad("redirect_port", "%q is not a choice; use \"listener\" (the listener's port, as nginx) or \"host\" (the Host header's, as Apache)", sv.RedirectPort)
	case sv.RedirectPort != "" && !sv.AbsoluteRedirect:
		bad("redirect_port", "is the port of an absolute Location: it needs absolute_redirect = true")
	}
	if sv.MaxPathBytes > maxPathBytesLimit {
		bad("max_path_bytes", "%d is more than %d; a request head is limited to it plus 64 KiB", sv.MaxPathBytes, maxPathBytesLimit)
	}
}

// maxPathBytesLimit bounds max_path_bytes; longer URLs are refused by
// browsers and proxies long before.
const maxPathBytesLimit = 1 << 20

// checkService validates [admin], [access_log] and [rules] and fills
// their defaults.
func checkService(file string, cfg *Config, loc *locator, errs *errorList) {
	if cfg.Admin.Listen == "" {
		cfg.Admin.Listen = DefaultAdminListen
	}
	checkAdminToken(file, &cfg.Admin, loc, errs)
	checkAdminTokens(file, &cfg.Admin, loc, errs)
	checkAdminEdits(file, cfg, loc, errs)
	switch p := cfg.AccessLog.Path; {
	case p == "":
		cfg.AccessLog.Path = "-"
	case p != "-" && p != "off" && !filepath.IsAbs(p):
		// From the config's folder, as maps, edits_dir and cache_dir:
		// a service's working folder is not the operator's.
		cfg.AccessLog.Path = filepath.Join(filepath.Dir(file), p)
	}
	if cfg.AccessLog.Format == "" {
		cfg.AccessLog.Format = "combined"
	}
	// Compiled here, so that check refuses what serve would, with the
	// place of the unknown variable.
	if _, err := accesslog.ParseFormatEscape(cfg.AccessLog.Format, cfg.AccessLog.Escape); err != nil {
		key, msg := "format", err.Error()
		switch {
		case errors.Is(err, accesslog.ErrEscape):
			key = "escape"
		case errors.Is(err, accesslog.ErrUnknownFormat):
			msg = fmt.Sprintf("%q is not a format; use \"combined\", \"json\" or a layout of nginx log_format $variables", cut(cfg.AccessLog.Format))
		}
		errs.add(&Error{File: file, Line: loc.line("access_log", 0, key), What: "[access_log]", Key: key, Msg: msg})
	}
	defaultDuration(&cfg.Server.ShutdownTimeout, DefaultShutdownTimeout)
	defaultDuration(&cfg.Reload.WatchInterval, DefaultWatchInterval)
}

// Where is the place of a problem: "file:line", or the file alone. With
// Reason, it lets a caller write a skipped map entry as a warning.
func (e *Error) Where() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d", e.File, e.Line)
	}
	return e.File
}

// Reason is the problem without its place: "from: cannot compile ...".
func (e *Error) Reason() string {
	return e.Error()[len(e.Where())+2:]
}
