package vercel

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/config/importer"
	"github.com/redirectd/redirectd/matcher"
)

// FuzzSource feeds arbitrary sources and destinations through the
// translation and checks, beyond not panicking, that a source that parses
// gives a regex that compiles or a note, that each sample matches its
// regex, and that the written config loads.
func FuzzSource(f *testing.F) {
	for _, s := range [][2]string{
		{"/a", "/b"}, {"/blog/:slug", "/n/:slug"}, {"/d/:p*", "https://x.example/:p*"}, {"/o/(.*)", "/n/$1"},
		{"/f/:n.pdf", "/g/:n.pdf"}, {"/a{/:b}?", "/c/:b"}, {"/:x((?!y).*)", "/z"}, {"/i/:id(\\d+)", "/j/:id?q=$"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, source, dst string) {
		if len(source) > 200 || len(dst) > 200 {
			return
		}
		rules := []Redirect{{Index: 0, Line: 1, Source: source, Destination: dst}}
		cands, notes := Translate("vercel.json", rules)
		c := cands[0]
		if c.Regex == nil && len(notes) == 0 {
			t.Fatalf("%q -> %q: neither translated nor noted", source, dst)
		}
		if c.Regex != nil {
			re, err := regexp.Compile(c.Regex.From)
			if err != nil {
				t.Fatalf("regex %s: %v", c.Regex.From, err)
			}
			for _, s := range c.Samples {
				if !re.MatchString(s.Path) {
					t.Errorf("sample %q does not match %s", s.Path, c.Regex.From)
				}
				if !strings.HasPrefix(s.Path, c.Prefix) {
					t.Errorf("sample %q does not start with the prefix %q", s.Path, c.Prefix)
				}
			}
		}
		res := importer.Order(cands)
		var buf bytes.Buffer
		importer.WriteFileOrderTOML(&buf, "fuzz", "", res.Rules)
		if _, err := config.LoadFS(fstest.MapFS{"r.toml": {Data: buf.Bytes()}}, "r.toml"); err != nil {
			t.Errorf("the written config does not load: %v\n%s", err, buf.String())
		}
	})
}

// FuzzParse feeds arbitrary bytes to the JSON reader: no panic, and each
// entry read has a line within the file.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"redirects":[{"source":"/a","destination":"/b"}]}`))
	f.Add([]byte("{\n\"trailingSlash\": true,\n\"redirects\": [\n{\"source\":\"/a\",\"destination\":\"/b\",\"x\":1}\n]}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rules, _, err := Parse("vercel.json", data)
		lines := bytes.Count(data, []byte("\n")) + 1
		for _, r := range rules {
			if err == nil && (r.Line < 1 || r.Line > lines) {
				t.Errorf("entry %d at line %d of %d", r.Index, r.Line, lines)
			}
		}
	})
}

// FuzzHas feeds arbitrary has and missing conditions through the
// translation and checks, beyond not panicking, that each is translated
// or noted, that a header or cookie written into when keeps the value
// Vercel compares, and that the written config loads.
func FuzzHas(f *testing.F) {
	f.Add("header", "X-Device", "mobile", true, false)
	f.Add("cookie", "lang", `f\.r`, true, false)
	f.Add("cookie", "session", "", false, true)
	f.Add("host", "", "", false, false)
	f.Add("query", "a b", "(x|y)", true, false)
	f.Fuzz(func(t *testing.T, typ, key, value string, withValue, missing bool) {
		if len(key) > 100 || len(value) > 100 {
			return
		}
		cond := Cond{Type: typ, Key: key}
		if withValue {
			cond.Value = &value
		}
		r := Redirect{Line: 1, Source: "/a", Destination: "/b", Has: []Cond{cond}}
		if missing {
			r.Has, r.Missing = nil, []Cond{cond}
		}
		cands, notes := Translate("vercel.json", []Redirect{r})
		res := importer.Order(cands)
		if len(res.Rules) == 0 && len(notes)+len(res.Notes) == 0 {
			t.Fatalf("%+v: neither translated nor noted", cond)
		}
		// What is written asks for the key with the value Vercel's ^value$
		// takes, or with any value ("*") when the condition has none.
		check := func(kvs []matcher.KeyValue) {
			for _, kv := range kvs {
				switch {
				case kv.Name != key:
					t.Errorf("%+v written for the name %q", cond, kv.Name)
				case !withValue && kv.Value != matcher.AnyValue:
					t.Errorf("%+v without a value written as %s = %q, want %q", cond, kv.Name, kv.Value, matcher.AnyValue)
				case withValue && !regexp.MustCompile("^(?:"+value+")$").MatchString(kv.Value):
					t.Errorf("%+v written as %s = %q, which Vercel's ^value$ does not take", cond, kv.Name, kv.Value)
				}
			}
		}
		for _, x := range res.Rules {
			if x.When == nil {
				continue
			}
			check(append(x.When.Header, x.When.Cookie...))
			if u := x.When.Unless; u != nil {
				check(append(u.Header, u.Cookie...))
				for _, q := range u.Query {
					check([]matcher.KeyValue{{Name: q.Name, Value: q.Value}})
				}
			}
		}
		var buf bytes.Buffer
		importer.WriteFileOrderTOML(&buf, "fuzz", "", res.Rules)
		if _, err := config.LoadFS(fstest.MapFS{"r.toml": {Data: buf.Bytes()}}, "r.toml"); err != nil {
			t.Errorf("the written config does not load: %v\n%s", err, buf.String())
		}
	})
}
