package importer

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/redirectd/redirectd/internal/ascii"
	"github.com/redirectd/redirectd/matcher"
)

// This file is the one writer of redirectd configs that every import
// uses: the inverse of config.Load, so that loading what it writes gives
// back the rules it was given (FuzzWriteRule).

// WriteTOML writes rules as a redirectd config: header as its first
// comment, a [geoip] table naming the database geoip when it is not "",
// then each rule as a [[rule]] table under a comment naming the source
// line and its text.
func WriteTOML(w io.Writer, header, geoip string, rules []Rule) error {
	var b strings.Builder
	WriteHeader(&b, header)
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	return writeRules(w, geoip, rules)
}

// writeRules writes WriteTOML's [geoip] and [[rule]] tables.
func writeRules(w io.Writer, geoip string, rules []Rule) error {
	var b strings.Builder
	if geoip != "" {
		fmt.Fprintf(&b, "\n[geoip]\ndatabase = %s\n", Quote(geoip))
	}
	for _, r := range rules {
		WriteRule(&b, fmt.Sprintf("%s:%d: %s", r.File, r.Line, r.Text), r.Rule, nil)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteFileOrderTOML is WriteTOML for the rules of a service that applies
// the first matching rule in file order, whatever its host (Netlify,
// Vercel: see Order): the config says [rules] order = "file".
func WriteFileOrderTOML(w io.Writer, header, geoip string, rules []Rule) error {
	var b strings.Builder
	WriteHeader(&b, header)
	b.WriteString("\n# The service applies the first rule in file order that matches.\n[rules]\norder = \"file\"\n")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	return writeRules(w, geoip, rules)
}

// Writable reports why r cannot be written as a [[rule]] (nil when it
// can): TOML holds text only, so a word with bytes that are not UTF-8
// (a Latin-1 path in a source file) has no TOML form. The caller leaves
// such a rule out with a note; a map file holds bytes and can hold it.
func Writable(r *matcher.Rule) error {
	words := []struct{ key, v string }{{"from", r.From}, {"to", r.To}, {"host", r.Host}}
	for _, q := range r.Query {
		words = append(words, struct{ key, v string }{"query", q.Name + q.Value})
	}
	for _, h := range r.Headers {
		words = append(words, struct{ key, v string }{"headers", h.Name + h.Value})
	}
	for w := r.When; w != nil; w = w.Unless {
		for _, v := range w.Words() {
			words = append(words, struct{ key, v string }{"when", v})
		}
	}
	for _, w := range words {
		if !utf8.ValidString(w.v) {
			return fmt.Errorf("%s %q holds bytes that are not UTF-8, which a TOML config cannot hold", w.key, w.v)
		}
	}
	return nil
}

// WriteHeader writes text as the config's first comment, one line of it
// per line of text.
func WriteHeader(b *strings.Builder, text string) {
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		WriteComment(b, line)
	}
}

// WriteComment writes text as one comment line, whatever it holds.
func WriteComment(b *strings.Builder, text string) {
	b.WriteString("# " + oneLine(text) + "\n")
}

// WriteRule writes r as a [[rule]] table under the comment (none for
// ""). hosts, when not nil, are the names the rule is for in place of
// r.Host: host = [...], which the loader turns into one rule per name.
func WriteRule(b *strings.Builder, comment string, r matcher.Rule, hosts []string) {
	b.WriteString("\n")
	if comment != "" {
		WriteComment(b, comment)
	}
	b.WriteString("[[rule]]\n")
	if r.Kind != matcher.Exact {
		fmt.Fprintf(b, "match = %q\n", r.Kind.String())
	}
	from := r.From
	if r.Kind == matcher.Regex && r.CaseInsensitive {
		// A compiled Set holds a case-insensitive regex with the (?i)
		// that case_insensitive adds: written from a Set's rules, the
		// flag says it once.
		from = strings.TrimPrefix(from, "(?i)")
	}
	fmt.Fprintf(b, "from = %s\n", Quote(from))
	if r.To != "" || matcher.HasLocation(r.Status) {
		fmt.Fprintf(b, "to = %s\n", Quote(r.To))
	}
	if len(r.Query) > 0 {
		fmt.Fprintf(b, "query = %s\n", queryTable(r.Query))
	}
	writeOptions(b, r, hosts, true)
}

// Map is a [[map]] table: the file of its entries and what they share.
type Map struct {
	File string
	// Format is the file's format ("" for the default, nginx's map).
	Format string
	// Skip writes invalid = "skip", with SkipWhy as its comment.
	Skip    bool
	SkipWhy string
	// Options holds what every entry shares: Kind (written as match when
	// not Exact), Status (none for a map of "no redirect" entries: Pass),
	// Host, the path options, RequestURI, Headers, When, Fallback, Active
	// and Shadow. Hosts, when not nil, replace Options.Host.
	Options matcher.Rule
	Hosts   []string
	// KeyCase: the map file marks each case-insensitive key itself (~*),
	// so case_insensitive is not written.
	KeyCase bool
}

// WriteMap writes m as a [[map]] table under the comment (none for "").
func WriteMap(b *strings.Builder, comment string, m Map) {
	b.WriteString("\n")
	if comment != "" {
		WriteComment(b, comment)
	}
	fmt.Fprintf(b, "[[map]]\nfile = %s\n", Quote(m.File))
	if m.Format != "" {
		fmt.Fprintf(b, "format = %s\n", Quote(m.Format))
	}
	if m.Skip {
		if m.SkipWhy != "" {
			WriteComment(b, m.SkipWhy)
		}
		b.WriteString("invalid = \"skip\"\n")
	}
	if m.Options.Kind != matcher.Exact {
		fmt.Fprintf(b, "match = %q\n", m.Options.Kind.String())
	}
	writeOptions(b, m.Options, m.Hosts, !m.KeyCase)
}

// writeOptions writes the keys a rule and a map share, each only when it
// is not the loader's default.
func writeOptions(b *strings.Builder, r matcher.Rule, hosts []string, withCase bool) {
	if !r.Pass {
		fmt.Fprintf(b, "status = %d\n", r.Status)
	}
	if hosts == nil && r.Host != "" {
		hosts = []string{r.Host}
	}
	switch len(hosts) {
	case 0:
	case 1:
		fmt.Fprintf(b, "host = %s\n", Quote(hosts[0]))
	default:
		fmt.Fprintf(b, "host = %s\n", list(hosts))
	}
	if r.CaseInsensitive && withCase {
		if r.UnicodeFold {
			b.WriteString("case_insensitive = \"unicode\"\n")
		} else {
			b.WriteString("case_insensitive = true\n")
		}
	}
	if r.DecodedPath {
		b.WriteString("path = \"decoded\"\n")
	}
	if r.TrailingSlash {
		b.WriteString("trailing_slash = \"ignore\"\n")
	}
	if r.RequestURI {
		b.WriteString("request_uri = true\n")
	}
	if !r.Pass {
		switch r.QueryString {
		case matcher.QueryDrop:
			b.WriteString("query_string = \"drop\"\n")
		case matcher.QueryReplace:
			b.WriteString("query_string = \"replace\"\n")
		default:
			b.WriteString("query_string = \"keep\"\n")
		}
	}
	if r.When != nil && !r.When.Empty() {
		b.WriteString("when = " + whenTOML(r.When) + "\n")
	}
	if len(r.Headers) > 0 && !r.Pass {
		kvs := make([]matcher.KeyValue, len(r.Headers))
		for i, h := range r.Headers {
			kvs[i] = matcher.KeyValue(h)
		}
		b.WriteString("headers = " + table(kvs) + "\n")
	}
	if r.Fallback {
		b.WriteString("fallback = true\n")
	}
	if len(r.FallbackStatus) > 0 {
		st := make([]string, len(r.FallbackStatus))
		for i, s := range r.FallbackStatus {
			st[i] = fmt.Sprint(s)
		}
		fmt.Fprintf(b, "fallback_status = [%s]\n", strings.Join(st, ", "))
	}
	if !r.Active.IsZero() {
		var parts []string
		if !r.Active.From.IsZero() {
			parts = append(parts, "from = "+r.Active.From.Format(time.RFC3339Nano))
		}
		if !r.Active.Until.IsZero() {
			parts = append(parts, "until = "+r.Active.Until.Format(time.RFC3339Nano))
		}
		fmt.Fprintf(b, "active = { %s }\n", strings.Join(parts, ", "))
	}
	if r.Shadow {
		b.WriteString("mode = \"shadow\"\n")
	}
}

// queryTable writes query conditions as an inline table, by name (a TOML
// table has no order; the loader reads them by name).
func queryTable(q []matcher.QueryCond) string {
	kvs := make([]matcher.KeyValue, len(q))
	for i, c := range q {
		kvs[i] = matcher.KeyValue(c)
	}
	slices.SortFunc(kvs, func(a, b matcher.KeyValue) int { return strings.Compare(a.Name, b.Name) })
	return table(kvs)
}

// whenTOML writes w as an inline table:
// { language = ['de'], header = { X-Device = 'mobile' } }.
func whenTOML(w *matcher.When) string {
	parts := w.TOMLParts(matcher.TOMLForm{Quote: Quote, Key: bareKey})
	if w.Unless != nil && !w.Unless.Empty() {
		parts = append(parts, "unless = "+whenTOML(w.Unless))
	}
	return "{ " + strings.Join(parts, ", ") + " }"
}

// list writes strings as a TOML array.
func list(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = Quote(v)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// table writes names and values as an inline table, in their order.
func table(kvs []matcher.KeyValue) string {
	q := make([]string, len(kvs))
	for i, kv := range kvs {
		q[i] = bareKey(kv.Name) + " = " + Quote(kv.Value)
	}
	return "{ " + strings.Join(q, ", ") + " }"
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
		if r != '\t' && ascii.IsControl(r) {
			return '?'
		}
		return r
	}, strings.ToValidUTF8(s, "?"))
}

// Quote quotes s for TOML: a literal string when it can be one, which
// keeps regexes readable, else a basic string with escapes.
func Quote(s string) string {
	plain := !strings.ContainsAny(s, "'\n\r")
	plain = plain && ascii.IndexControl(s) < 0
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
		case ascii.IsControl(c):
			fmt.Fprintf(&b, "\\u%04x", c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// Upstream is an [upstream] table, or an [upstreams.NAME] one: where the
// source's server proxied.
type Upstream struct {
	// Name is the group's: "" or "default" for [upstream].
	Name    string
	Servers []string
	// Balance, HostHeader and the TLS keys are written when not "".
	Balance, HostHeader                                  string
	TLSServerName, CAFile, ClientCertFile, ClientKeyFile string
	// Commented names the keys written as comments (a file that cannot
	// be read where the import runs, which the loader would refuse).
	Commented []string
	// Limits are connect_timeout, read_timeout, write_timeout (durations)
	// and max_request_body_bytes (an integer), written where set.
	Limits map[string]string
}

// WriteUpstream writes u as its table under the comment.
func WriteUpstream(b *strings.Builder, comment string, u Upstream) {
	b.WriteString("\n")
	if comment != "" {
		WriteComment(b, comment)
	}
	if u.Name == "" || u.Name == "default" {
		b.WriteString("[upstream]\n")
	} else {
		fmt.Fprintf(b, "[upstreams.%s]\n", bareKey(u.Name))
	}
	fmt.Fprintf(b, "servers = %s\n", list(u.Servers))
	for _, kv := range [][2]string{{"balance", u.Balance}, {"host_header", u.HostHeader}, {"tls_server_name", u.TLSServerName},
		{"ca_file", u.CAFile}, {"client_cert_file", u.ClientCertFile}, {"client_key_file", u.ClientKeyFile}} {
		if kv[1] == "" {
			continue
		}
		if slices.Contains(u.Commented, kv[0]) {
			b.WriteString("# ")
		}
		fmt.Fprintf(b, "%s = %s\n", kv[0], Quote(kv[1]))
	}
	for _, k := range []string{"connect_timeout", "read_timeout", "write_timeout"} {
		if v := u.Limits[k]; v != "" {
			fmt.Fprintf(b, "%s = %s\n", k, Quote(v))
		}
	}
	if v := u.Limits["max_request_body_bytes"]; v != "" && strings.Trim(v, "0123456789") == "" {
		fmt.Fprintf(b, "max_request_body_bytes = %s\n", v)
	}
}

// WriteRoute writes a [[route]] under the comment: host "" for any host,
// prefix "/" left out.
func WriteRoute(b *strings.Builder, comment, host, prefix, group string) {
	b.WriteString("\n")
	if comment != "" {
		WriteComment(b, comment)
	}
	b.WriteString("[[route]]\n")
	if host != "" {
		fmt.Fprintf(b, "host = %s\n", Quote(host))
	}
	if prefix != "/" {
		fmt.Fprintf(b, "prefix = %s\n", Quote(prefix))
	}
	fmt.Fprintf(b, "upstream = %s\n", Quote(group))
}

// TLS is a [tls] table with its [[tls.certificate]] pairs.
type TLS struct {
	Listen       string
	Certificates []Certificate
	// Commented writes the tables as comments, for the operator to
	// uncomment where the certificate files are: [tls] with a file that
	// cannot be read, or with none, would fail check and serve.
	Commented bool
}

// Certificate is one [[tls.certificate]], with the comment above it.
type Certificate struct{ Cert, Key, Comment string }

// WriteTLS writes t under the comment.
func WriteTLS(b *strings.Builder, comment string, t TLS) {
	cm := ""
	if t.Commented {
		cm = "# "
	}
	b.WriteString("\n")
	if comment != "" {
		WriteComment(b, comment)
	}
	fmt.Fprintf(b, "%s[tls]\n%slisten = %s\n", cm, cm, Quote(t.Listen))
	for _, c := range t.Certificates {
		b.WriteString("\n")
		if c.Comment != "" {
			WriteComment(b, c.Comment)
		}
		fmt.Fprintf(b, "%s[[tls.certificate]]\n%scert = %s\n%skey = %s\n", cm, cm, Quote(c.Cert), cm, Quote(c.Key))
	}
}
