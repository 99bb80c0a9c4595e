package config

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/redirectd/redirectd/config/geoip"
	"github.com/redirectd/redirectd/internal/ascii"
	"github.com/redirectd/redirectd/matcher"
)

// GeoIP is the [geoip] table: the MaxMind-format country database that
// when.country reads. It is opened with the rules, so a reload (SIGHUP,
// POST /reload) reads a replaced file too.
type GeoIP struct {
	Database string `toml:"database"`
	db       *geoip.DB
}

// openGeoIP opens [geoip] database, if set, naming the key in an error.
func openGeoIP(file string, cfg *Config, loc *locator) error {
	if cfg.GeoIP.Database == "" {
		return nil
	}
	db, err := geoip.Open(cfg.GeoIP.Database)
	if err != nil {
		return &Error{File: file, Line: loc.line("geoip", 0, "database"), What: "[geoip]", Key: "database",
			Msg: fmt.Sprintf("cannot open the country database: %v; give the path of a GeoLite2-Country.mmdb or GeoIP2-Country.mmdb", err)}
	}
	cfg.GeoIP.db = db
	return nil
}

// whenKeys are the conditions when accepts, from matcher's registry of
// condition kinds.
var whenKeys = matcher.CondKeys(false)

// unlessKeys are the conditions when.unless accepts.
var unlessKeys = matcher.CondKeys(true)

// failWhen records an error about a condition on the line of the rule's
// when key, naming the condition ("when.country").
func (e *entry) failWhen(key, format string, args ...any) {
	e.ok = false
	e.errs.add(&Error{File: e.file, Line: e.loc.line(e.table, e.index, "when"), What: entryName(e.table, e.index), Key: key,
		Msg: fmt.Sprintf(format, args...)})
}

// when reads a rule's or map's conditions: a table of language, country,
// header and cookie; nil when absent. geoip says whether [geoip] names a
// database, without which country cannot be known.
func (e *entry) when(v any, geoip bool) *matcher.When {
	if v == nil {
		return nil
	}
	t, ok := v.(map[string]any)
	if !ok {
		e.fail("when", "must be a table such as { language = [\"de\", \"de-*\"], country = [\"AT\"] }, not %s", tomlType(v))
		return nil
	}
	if len(t) == 0 {
		e.fail("when", "the table is empty; leave when out to match every request")
		return nil
	}
	return e.whenIn("when", t, geoip)
}

// whenIn reads the conditions of the table t at field: when, or
// when.unless, which also takes query and no unless of its own.
func (e *entry) whenIn(field string, t map[string]any, geoip bool) *matcher.When {
	w := &matcher.When{}
	inUnless := field != "when"
	for _, key := range sortedKeys(t) {
		val, name := t[key], field+"."+key
		switch key {
		case "language":
			w.Language = e.whenList(name, val)
			for _, l := range w.Language {
				if !validLanguageRange(l) {
					e.failWhen(name, "%q is not a language range; write a tag such as \"de\", \"de-AT\", \"de-*\" or \"*\"", l)
				}
			}
		case "country":
			w.Country = e.whenList(name, val)
			for _, c := range w.Country {
				if len(c) != 2 || c[0] < 'A' || c[0] > 'Z' || c[1] < 'A' || c[1] > 'Z' {
					e.failWhen(name, "%q is not an ISO 3166 alpha-2 country code; write two capital letters such as \"DE\"", c)
				}
			}
			if len(w.Country) > 0 && !geoip {
				e.failWhen(name, "needs a country database: add [geoip] database = \"/var/lib/GeoIP/GeoLite2-Country.mmdb\"")
			}
		case "header", "cookie":
			kv := e.whenTable(name, val, true)
			if key == "header" {
				w.Header = kv
			} else {
				w.Cookie = kv
			}
		case "unless":
			u, ok := val.(map[string]any)
			switch {
			case inUnless:
				e.failWhen(name, "an unless holds no unless; write its conditions in the one unless")
			case !ok || len(u) == 0:
				e.failWhen(name, "must be a non-empty table of conditions none of which may hold, such as { cookie = { seen = \"*\" } }, not %s", tomlType(val))
			default:
				w.Unless = e.whenIn(name, u, geoip)
			}
		case "query":
			if !inUnless {
				e.failWhen(name, "a query condition goes in the rule's query; when.unless.query names a parameter that must not be there")
				continue
			}
			for _, kv := range e.whenTable(name, val, false) {
				w.Query = append(w.Query, matcher.QueryCond(kv))
			}
		default:
			// The kinds held in one file each in package matcher
			// (scheme, ip, method, sample) read their own values.
			if known, err := matcher.ParseCond(w, key, val, tomlType); known {
				if err != nil {
					e.failWhen(name, "%v", err)
				}
				continue
			}
			keys := whenKeys
			if inUnless {
				keys = unlessKeys
			}
			e.failWhen(name, "unknown condition; use %s", quotedList(keys))
		}
	}
	return w
}

// quotedList writes "a", "b" or "c".
func quotedList(keys []string) string {
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = strconv.Quote(k)
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// whenList reads a string or a non-empty list of strings.
func (e *entry) whenList(key string, v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		out := make([]string, 0, len(x))
		for _, y := range x {
			s, ok := y.(string)
			if !ok {
				e.failWhen(key, "must be a list of strings, not a list holding %s", tomlType(y))
				return nil
			}
			out = append(out, s)
		}
		if len(out) == 0 {
			e.failWhen(key, "the list is empty; leave it out for no condition")
		}
		return out
	}
	e.failWhen(key, "must be a string or a list of strings, not %s", tomlType(v))
	return nil
}

// whenTable reads a table of names to the string each must have ("*":
// any value); tokens says the names are field or cookie names.
func (e *entry) whenTable(key string, v any, tokens bool) []matcher.KeyValue {
	t, ok := v.(map[string]any)
	if !ok || len(t) == 0 {
		e.failWhen(key, "must be a non-empty table of names to values, such as { X-Device = \"mobile\" }, not %s", tomlType(v))
		return nil
	}
	var out []matcher.KeyValue
	for _, name := range sortedKeys(t) {
		s, ok := t[name].(string)
		if !ok {
			e.failWhen(key, "%q must be a string, not %s", name, tomlType(t[name]))
			continue
		}
		if tokens && !ascii.IsToken(name) || name == "" {
			e.failWhen(key, "%q is not a valid name: use letters, digits and !#$%%&'*+-.^_`|~", name)
			continue
		}
		out = append(out, matcher.KeyValue{Name: name, Value: s})
	}
	return out
}

func sortedKeys(t map[string]any) []string {
	keys := make([]string, 0, len(t))
	for k := range t {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// validLanguageRange accepts "*", and subtags of 1 to 8 letters (the
// first) or letters and digits joined by '-', optionally ending in "-*"
// (RFC 4647 section 2).
func validLanguageRange(r string) bool {
	if r == "*" {
		return true
	}
	if len(r) > 2 && r[len(r)-2:] == "-*" {
		r = r[:len(r)-2]
	}
	n, first := 0, true
	for i := 0; i <= len(r); i++ {
		if i == len(r) || r[i] == '-' {
			if n < 1 || n > 8 {
				return false
			}
			n, first = 0, false
			continue
		}
		c := r[i] | 0x20
		if !(c >= 'a' && c <= 'z' || !first && r[i] >= '0' && r[i] <= '9') {
			return false
		}
		n++
	}
	return true
}
