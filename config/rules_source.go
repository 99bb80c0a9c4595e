package config

import (
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/redirectd/redirectd/matcher"

	"github.com/BurntSushi/toml"

	"github.com/redirectd/redirectd/internal/ascii"
	"github.com/redirectd/redirectd/internal/shorten"
)

// RulesSource is the part of [rules] that pulls the rules from a URL
// instead of the config's own [[rule]], [[map]] and [[csv]] entries.
type RulesSource struct {
	// Source is an http(s) URL of a .tar.gz holding a rules TOML and the
	// files it names, or of one TOML, map or CSV file.
	Source string `toml:"source"`
	// Poll is how often the source is asked for a new version (default
	// 30s), each wait stretched or shrunk by up to a fifth at random.
	Poll Duration `toml:"poll"`
	// SourceHeader is one "Name: value" header sent with every fetch,
	// such as a bearer token; SourceHeaderFile reads it from a file at
	// each fetch instead, so a rotated secret needs no reload.
	SourceHeader     string `toml:"source_header"`
	SourceHeaderFile string `toml:"source_header_file"`
	// CacheDir keeps the fetched versions, so that a node starts serving
	// the last good one while the source is down, and can roll back.
	CacheDir string `toml:"cache_dir"`
	// KeepVersions is how many versions /versions lists and cache_dir
	// keeps (default 10).
	KeepVersions int `toml:"keep_versions"`
}

// Defaults of [rules] source.
const (
	DefaultPoll         = 30 * time.Second
	DefaultKeepVersions = 10
	// minPoll keeps a typo ("5ms") from turning a fleet into a load test
	// of the source.
	minPoll         = time.Second
	maxKeepVersions = 1000
)

// checkRulesSource validates the source keys of [rules] and fills their
// defaults. With a source, the rules come from it alone: rules of the
// local config as well would make it unclear which file a rule lives in,
// and a rollback could not restore them.
func checkRulesSource(file string, raw *rawConfig, cfg *Config, loc *locator, errs *errorList) {
	rs := &cfg.Reload.RulesSource
	bad := func(key, format string, args ...any) {
		errs.add(&Error{File: file, Line: loc.line("rules", 0, key), What: "[rules]", Key: key, Msg: fmt.Sprintf(format, args...)})
	}
	if rs.Source == "" {
		for key, set := range map[string]bool{"poll": rs.Poll != 0, "source_header": rs.SourceHeader != "",
			"source_header_file": rs.SourceHeaderFile != "", "cache_dir": rs.CacheDir != "", "keep_versions": rs.KeepVersions != 0} {
			if set {
				bad(key, "only means something with [rules] source: set source to the URL of the rule set, or remove %s", key)
			}
		}
		return
	}
	if u, err := url.Parse(rs.Source); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		bad("source", "%q is not an http:// or https:// URL; write the URL of a .tar.gz, .toml, .map or .csv file", cut(rs.Source))
	}
	if len(raw.Rule)+len(raw.Map)+len(raw.CSV) > 0 || raw.Rules.Defaults != nil {
		bad("source", "the rules come from the source: move this file's [[rule]], [[map]], [[csv]] and [rules.defaults] into the rule set at the source")
	}
	if raw.Rules.Order != "" {
		bad("order", "the rules come from the source, and their order is theirs: set [rules] order in the rule set at the source")
	}
	if rs.Poll == 0 {
		rs.Poll = Duration(DefaultPoll)
	} else if rs.Poll.Std() < minPoll {
		bad("poll", "%s is shorter than %s; a fleet polling that often loads the source for nothing", rs.Poll.Std(), minPoll)
	}
	if rs.SourceHeader != "" && rs.SourceHeaderFile != "" {
		bad("source_header_file", "set source_header or source_header_file, not both")
	}
	if rs.SourceHeader != "" {
		if _, _, err := ParseHeader(rs.SourceHeader); err != nil {
			bad("source_header", "%v", err)
		}
	}
	if rs.CacheDir == "" {
		bad("cache_dir", "is required with source: a writable folder that keeps the fetched versions, such as \"/var/cache/redirectd\"")
	} else if !filepath.IsAbs(rs.CacheDir) {
		rs.CacheDir = filepath.Join(filepath.Dir(file), rs.CacheDir)
	}
	if rs.SourceHeaderFile != "" {
		// Read now as well as at each fetch: a missing secret is an
		// error of the config, not a 401 from the source later.
		rs.SourceHeaderFile = secretPath(file, rs.SourceHeaderFile)
		if h, err := readSecret(rs.SourceHeaderFile); err != nil {
			bad("source_header_file", "%v", err)
		} else if _, _, err := ParseHeader(h); err != nil {
			bad("source_header_file", "%s: %v", rs.SourceHeaderFile, err)
		}
	}
	switch {
	case rs.KeepVersions == 0:
		rs.KeepVersions = DefaultKeepVersions
	case rs.KeepVersions < 1 || rs.KeepVersions > maxKeepVersions:
		bad("keep_versions", "%d is out of range; use 1 to %d (default %d)", rs.KeepVersions, maxKeepVersions, DefaultKeepVersions)
	}
}

// ParseHeader splits "Name: value" into its name and value. The name must
// be an RFC 9110 token and the value free of control characters, so that
// a header pasted with its line end cannot inject a second one.
func ParseHeader(h string) (name, value string, err error) {
	name, value, ok := strings.Cut(h, ":")
	if !ok {
		return "", "", fmt.Errorf("%q is not a header; write it as \"Name: value\", such as \"Authorization: Bearer TOKEN\"", cut(redact(h)))
	}
	name, value = strings.TrimSpace(name), strings.Trim(value, " \t")
	if !ascii.IsToken(name) {
		return "", "", fmt.Errorf("header name %q is not a token (letters, digits, !#$%%&'*+-.^_`|~)", cut(name))
	}
	for i := 0; i < len(value); i++ {
		if c := value[i]; ascii.IsControl(c) && c != '\t' {
			return "", "", fmt.Errorf("header %s holds a control character (a line end?) at byte %d; remove it", name, i)
		}
	}
	return name, value, nil
}

// redact keeps a header's name and hides its value, which is usually a
// secret, from error messages and logs.
func redact(h string) string {
	if name, _, ok := strings.Cut(h, ":"); ok {
		return name + ": ..."
	}
	return "..."
}

// cut shortens s for an error message.
func cut(s string) string { return shorten.Text(s, 80) }

// ruleSetTables are what a rule set fetched from a source may hold: rules,
// not the node's own settings, which stay in the local config.
var ruleSetTables = map[string]bool{"rule": true, "map": true, "csv": true, "rules": true}

// checkRuleSetKeys refuses the tables of a rule set loaded by LoadRuleSet
// that are not about rules, and every [rules] key but defaults.
func checkRuleSetKeys(file string, md toml.MetaData, loc *locator, errs *errorList) {
	for _, k := range md.Keys() {
		switch {
		case len(k) == 1 && !ruleSetTables[k[0]]:
			errs.add(&Error{File: file, Line: loc.line(k[0], 0, ""), Key: k[0],
				Msg: "a rule set from a source holds only [[rule]], [[map]], [[csv]] and [rules.defaults]; set this in the node's own config"})
		case len(k) == 2 && k[0] == "rules" && k[1] != "defaults" && k[1] != "order":
			errs.add(&Error{File: file, Line: loc.line("rules", 0, k[1]), What: "[rules]", Key: k[1],
				Msg: "a rule set from a source may set only [rules] order and [rules.defaults]; set this in the node's own config"})
		}
	}
}

// LoadRuleSet loads the rule set file, a path inside dir, as fetched from
// a source: only rule tables are allowed, and every file it names must lie
// inside dir (an absolute path, "..", or a link out of dir is an error),
// so a rule set cannot make the node read its own files. Errors name
// files by their path inside dir.
//
// serverHeaders are the local config's [server] headers, which a rule set
// cannot hold: its rules' own headers are merged with them, and its Set
// carries them (see headers.go).
func LoadRuleSet(dir, file string, serverHeaders ...matcher.Header) (*Config, error) {
	return LoadRuleSetFor(RulesReload{}, dir, file, serverHeaders...)
}

// LoadRuleSetFor is LoadRuleSet on a node whose [rules] are node: its
// regex and memory budgets (max_regexes, max_regex_instructions,
// max_rules_bytes) bound the rule set.
func LoadRuleSetFor(node RulesReload, dir, file string, serverHeaders ...matcher.Header) (*Config, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("cannot open rule set: %w", err)
	}
	defer root.Close()
	fsys := root.FS()
	return load(file, files{
		resolve: func(name string) string {
			if filepath.IsAbs(name) {
				return name // refused by fs.ValidPath, with the name in the error
			}
			return filepath.ToSlash(filepath.Join(filepath.Dir(file), name))
		},
		read:        func(name string) ([]byte, error) { return fs.ReadFile(fsys, name) },
		open:        func(name string) (io.ReadCloser, error) { return fsys.Open(name) },
		ruleSetOnly: true,
		headers:     serverHeaders,
		node:        node,
	})
}
