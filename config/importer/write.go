package importer

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/redirectd/redirectd/matcher"
)

// WriteTOML writes rules as a redirectd config: header as its first
// comment, a [geoip] table naming the database geoip when it is not "",
// then each rule as a [[rule]] table under a comment naming the source
// line and its text.
func WriteTOML(w io.Writer, header, geoip string, rules []Rule) error {
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(header), "\n") {
		b.WriteString("# " + line + "\n")
	}
	if geoip != "" {
		fmt.Fprintf(&b, "\n[geoip]\ndatabase = %s\n", Quote(geoip))
	}
	for _, r := range rules {
		fmt.Fprintf(&b, "\n# %s:%d: %s\n[[rule]]\n", r.File, r.Line, oneLine(r.Text))
		if r.Kind != matcher.Exact {
			fmt.Fprintf(&b, "match = %q\n", r.Kind.String())
		}
		fmt.Fprintf(&b, "from = %s\nto = %s\nstatus = %d\n", Quote(r.From), Quote(r.To), r.Status)
		if r.Host != "" {
			fmt.Fprintf(&b, "host = %s\n", Quote(r.Host))
		}
		if r.CaseInsensitive {
			b.WriteString("case_insensitive = true\n")
		}
		if r.TrailingSlash {
			b.WriteString("trailing_slash = \"ignore\"\n")
		}
		switch r.QueryString {
		case matcher.QueryDrop:
			b.WriteString("query_string = \"drop\"\n")
		case matcher.QueryReplace:
			b.WriteString("query_string = \"replace\"\n")
		}
		if r.RequestURI {
			b.WriteString("request_uri = true\n")
		}
		if len(r.Query) > 0 {
			q := slices.Clone(r.Query)
			slices.SortFunc(q, func(a, b matcher.QueryCond) int { return strings.Compare(a.Name, b.Name) })
			parts := make([]string, len(q))
			for i, c := range q {
				parts[i] = Quote(c.Name) + " = " + Quote(c.Value)
			}
			fmt.Fprintf(&b, "query = { %s }\n", strings.Join(parts, ", "))
		}
		if !r.When.Empty() {
			b.WriteString("when = " + whenTOML(r.When) + "\n")
		}
		if r.Fallback {
			b.WriteString("fallback = true\n")
		}
		if len(r.FallbackStatus) > 0 {
			st := make([]string, len(r.FallbackStatus))
			for i, s := range r.FallbackStatus {
				st[i] = fmt.Sprint(s)
			}
			fmt.Fprintf(&b, "fallback_status = [%s]\n", strings.Join(st, ", "))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// whenTOML writes w as an inline table:
// { language = ['de'], header = { X-Device = 'mobile' } }.
func whenTOML(w *matcher.When) string {
	var parts []string
	list := func(key string, vs []string) {
		if len(vs) == 0 {
			return
		}
		q := make([]string, len(vs))
		for i, v := range vs {
			q[i] = Quote(v)
		}
		parts = append(parts, key+" = ["+strings.Join(q, ", ")+"]")
	}
	table := func(key string, kvs []matcher.KeyValue) {
		if len(kvs) == 0 {
			return
		}
		q := make([]string, len(kvs))
		for i, kv := range kvs {
			q[i] = bareKey(kv.Name) + " = " + Quote(kv.Value)
		}
		parts = append(parts, key+" = { "+strings.Join(q, ", ")+" }")
	}
	list("language", w.Language)
	list("country", w.Country)
	table("header", w.Header)
	table("cookie", w.Cookie)
	if len(w.Query) > 0 {
		q := make([]matcher.KeyValue, len(w.Query))
		for i, c := range w.Query {
			q[i] = matcher.KeyValue{Name: c.Name, Value: c.Value}
		}
		table("query", q)
	}
	if !w.Unless.Empty() {
		parts = append(parts, "unless = "+whenTOML(w.Unless))
	}
	return "{ " + strings.Join(parts, ", ") + " }"
}

// bareKey writes a TOML key bare when it can be (letters, digits, - and
// _), else quoted.
func bareKey(k string) string {
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return Quote(k)
		}
	}
	if k == "" {
		return Quote(k)
	}
	return k
}

// oneLine keeps a comment on one line of valid TOML whatever the source
// text holds: control characters (line ends included) become '?'.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\t' || r == 0x7f {
			return '?'
		}
		return r
	}, strings.ToValidUTF8(s, "?"))
}

// Quote quotes s for TOML: a literal string when it can be one, which
// keeps regexes readable, else a basic string with escapes.
func Quote(s string) string {
	plain := !strings.ContainsAny(s, "'\n\r")
	for i := 0; plain && i < len(s); i++ {
		plain = s[i] >= 0x20 && s[i] != 0x7f
	}
	if plain {
		return "'" + s + "'"
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range []byte(s) {
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, "\\u%04x", c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
