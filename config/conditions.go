package config

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/redirectd/redirectd/config/geoip"
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
	t := e.subTable("when", v, "a table such as { language = [\"de\", \"de-*\"], country = [\"AT\"] }", "leave when out to match every request")
	if t == nil {
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
			for _, kv := range e.whenTable(name, val) {
				w.Query = append(w.Query, matcher.QueryCond(kv))
			}
		default:
			// Each kind in package matcher reads its own value.
			if known, err := matcher.ParseCond(w, key, val, tomlType); known {
				if err != nil {
					e.failWhen(name, "%v", err)
				} else if key == "country" && !geoip {
					e.failWhen(name, "needs a country database: add [geoip] database = \"/var/lib/GeoIP/GeoLite2-Country.mmdb\"")
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

// whenTable reads when.unless.query: a table of parameter names to the
// string each must have ("*": any value).
func (e *entry) whenTable(key string, v any) []matcher.KeyValue {
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
		if name == "" {
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
