package daemon

import (
	"encoding/json"
	"net/netip"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/BurntSushi/toml"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/engine/admin/edit"
	"github.com/redirectd/redirectd/engine/admin/edit/edits"
	"github.com/redirectd/redirectd/engine/admin/edit/ruleset"
	"github.com/redirectd/redirectd/matcher"
)

// TestEntryConditionsServed: a draft entry's conditions and header
// fields, sent as JSON as the API and the console send them, are served
// as the config's [[rule]] with the same when, query and headers serves
// them, and the /ruleset archive carries them to the fleet. An entry
// with conditions names the rule of its path with those (an add makes
// one beside the rule without them; a change of the rule with them
// edits it and replaces a change without conditions of the same path,
// which the later edit of one key supersedes: edits of one rule are
// applied most specific first); a condition the config refuses is
// refused at the entry.
func TestEntryConditionsServed(t *testing.T) {
	t.Parallel()
	const cfgText = `
[server]
headers = { X-Served-By = "redirectd" }

[[rule]]
from = "/old"
to = "/x"
when = { scheme = "https" }
`
	base, err := config.LoadFS(fstest.MapFS{"redirectd.toml": {Data: []byte(cfgText)}}, "redirectd.toml")
	if err != nil {
		t.Fatal(err)
	}
	lines := []string{
		`{"op":"add","host":"a.example","from":"/beta","to":"/beta/new","status":302,"query":{"id":"5"},` +
			`"when":{"scheme":"https","header":{"X-Beta":"1"},"cookie":{"seen":"*"},"language":["de","de-*"],"ip":"203.0.113.0/24","method":["GET"],"sample":0.5},` +
			`"headers":{"Cache-Control":"no-store"}}`,
		`{"op":"change","from":"/old","to":"/y","headers":{"X-Robots-Tag":"noindex"}}`,
		`{"op":"add","from":"/old","to":"/de","when":{"language":"de"}}`,
		`{"op":"change","from":"/old","to":"/tls","when":{"scheme":"https"}}`,
	}
	var list []edit.Edit
	for _, l := range lines {
		var e edit.Entry
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatal(err)
		}
		if err := e.Check(configSyntax{}); err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		list = append(list, edit.Edit{Entry: e})
	}
	set, _, err := edits.Apply(base.Set, edits.FromEdits(list), matcher.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	const wantText = `
[server]
headers = { X-Served-By = "redirectd" }

[[rule]]
from = "/old"
to = "/tls"
when = { scheme = "https" }

[[rule]]
host = "a.example"
from = "/beta"
to = "/beta/new"
status = 302
query = { id = "5" }
when = { scheme = "https", header = { X-Beta = "1" }, cookie = { seen = "*" }, language = ["de", "de-*"], ip = "203.0.113.0/24", method = ["GET"], sample = 0.5 }
headers = { Cache-Control = "no-store" }

[[rule]]
from = "/old"
to = "/de"
when = { language = "de" }
`
	want, err := config.LoadFS(fstest.MapFS{"redirectd.toml": {Data: []byte(wantText)}}, "redirectd.toml")
	if err != nil {
		t.Fatal(err)
	}
	ignore := cmpopts.IgnoreFields(matcher.Rule{}, "File", "Line")
	if d := cmp.Diff(want.Set.Rules(), set.Rules(), ignore, cmpopts.EquateEmpty(), cmpopts.EquateComparable(netip.Prefix{})); d != "" {
		t.Errorf("served (-the config's +the draft's):\n%s", d)
	}
	text, err := ruleset.RulesTOML(set, "h", configSyntax{})
	if err != nil {
		t.Fatal(err)
	}
	fleet, err := config.LoadFS(fstest.MapFS{"redirectd.toml": {Data: []byte(text)}}, "redirectd.toml")
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	if d := cmp.Diff(set.Rules(), fleet.Set.Rules(), ignore, cmpopts.EquateEmpty(), cmpopts.EquateComparable(netip.Prefix{})); d != "" {
		t.Errorf("the archive (-served +loaded):\n%s\n%s", d, text)
	}
	for _, tc := range []struct{ line, want string }{
		{`{"op":"add","from":"/a","to":"/b","when":{"ip":"203.0.113.7/24"}}`, "when.ip"},
		{`{"op":"add","from":"/a","to":"/b","when":{"browser":"x"}}`, "unknown condition"},
		{`{"op":"add","from":"/a","to":"/b","when":{"query":{"a":"1"}}}`, "when.query"},
		{`{"op":"add","from":"/a","to":"/b","headers":{"Location":"/c"}}`, "Location"},
		{`{"op":"delete","from":"/a","headers":{"X-A":"1"}}`, "delete takes no headers"},
		{`{"op":"delete","from":"/a","when":{"scheme":"ftp"}}`, "when.scheme"},
	} {
		var e edit.Entry
		if err := json.Unmarshal([]byte(tc.line), &e); err != nil {
			t.Fatal(err)
		}
		if err := e.Check(configSyntax{}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error naming %q", tc.line, err, tc.want)
		}
	}
}

// TestConditionsTOMLNamesTheRule: the conditions the console's Edit link
// fills in for a serving rule (ConditionsTOML) read back, as the entry
// form reads them, as an entry that names that rule.
func TestConditionsTOMLNamesTheRule(t *testing.T) {
	t.Parallel()
	const cfgText = `
[[rule]]
from = "/a"
to = "/b"
query = { "a b" = "it's", ref = "*" }
when = { scheme = "https", header = { X-Beta = "1" }, language = ["de", "de-*"], ip = ["203.0.113.0/24", "2001:db8::/32"], method = "GET", sample = 0.25, unless = { cookie = { seen = "*" }, query = { utm = "*" } } }
`
	cfg, err := config.LoadFS(fstest.MapFS{"redirectd.toml": {Data: []byte(cfgText)}}, "redirectd.toml")
	if err != nil {
		t.Fatal(err)
	}
	r := cfg.Set.Rules()[0]
	text := edit.RuleConditionsTOML(&r)
	var when map[string]any
	if _, err := toml.Decode(text, &when); err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	e := edit.Entry{Op: edit.OpChange, From: "/a", To: "/c", When: when, Query: map[string]string{}}
	for k, v := range when["query"].(map[string]any) {
		e.Query[k] = v.(string)
	}
	delete(e.When, "query")
	if err := e.Check(configSyntax{}); err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	if got, want := e.Key(), edit.RuleCondKey(&r); got != want {
		t.Errorf("the entry names %q, the rule is %q\n%s", got, want, text)
	}
}
