package importer

import (
	"net/netip"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"
	"unicode/utf8"

	"github.com/BurntSushi/toml"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/matcher"
)

// roundTrip writes rules with WriteRule and loads them as check does.
func roundTrip(t testing.TB, rules []matcher.Rule) (string, []matcher.Rule, error) {
	var b strings.Builder
	WriteHeader(&b, "round trip\nof the writer")
	for _, r := range rules {
		WriteRule(&b, "a\ncomment\x00", r, nil)
	}
	text := b.String()
	var v map[string]any
	if _, err := toml.Decode(text, &v); err != nil {
		t.Fatalf("the writer wrote TOML that does not decode: %v\n%s", err, text)
	}
	cfg, err := config.LoadFS(fstest.MapFS{"redirectd.toml": {Data: []byte(text)}}, "redirectd.toml")
	if err != nil {
		return text, nil, err
	}
	return text, cfg.Set.Rules(), nil
}

// ignorePlace leaves out where a rule was read, which the writer does
// not decide.
var ignorePlace = cmpopts.IgnoreFields(matcher.Rule{}, "File", "Line")

// TestWriteRuleRoundTrip writes a rule with each key the writer knows and
// loads it back: every option survives.
func TestWriteRuleRoundTrip(t *testing.T) {
	from := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	rules := []matcher.Rule{
		{Kind: matcher.Exact, From: "/a", To: "/b", Status: 301, QueryString: matcher.QueryKeep},
		{Kind: matcher.Prefix, From: "/docs/", To: "https://example.com/manual/", Status: 308, Host: "example.org",
			TrailingSlash: true, QueryString: matcher.QueryDrop, Headers: []matcher.Header{{Name: "Cache-Control", Value: "max-age=60"}}},
		{Kind: matcher.Regex, From: `^/p/(?P<id>[0-9]+)$`, To: "/products/${id}", Status: 302, CaseInsensitive: true, QueryString: matcher.QueryReplace},
		{Kind: matcher.Exact, From: "/café", To: "/cafe", Status: 301, CaseInsensitive: true, UnicodeFold: true, DecodedPath: true},
		{Kind: matcher.Exact, From: "/article.php", To: "/a/1", Status: 301, Query: []matcher.QueryCond{{Name: "id", Value: "1"}, {Name: "x y", Value: "it's"}}},
		{Kind: matcher.Exact, From: "/gone", Status: 410},
		{Kind: matcher.Exact, From: "/old?x=1", To: "/new", Status: 301, RequestURI: true},
		{Kind: matcher.Exact, From: "/de", To: "/de/", Status: 302, When: &matcher.When{
			Language: []string{"de", "de-*"}, Header: []matcher.KeyValue{{Name: "X-Device", Value: "mobile"}},
			Cookie: []matcher.KeyValue{{Name: "v", Value: "2"}}, Scheme: "https",
			Unless: &matcher.When{Cookie: []matcher.KeyValue{{Name: "session", Value: "*"}}, Query: []matcher.QueryCond{{Name: "debug", Value: "1"}}}}},
		{Kind: matcher.Exact, From: "/f", To: "/g", Status: 301, Fallback: true, FallbackStatus: []int{404, 410}},
		{Kind: matcher.Exact, From: "/w", To: "/x", Status: 302, Active: matcher.Window{From: from, Until: from.Add(time.Hour)}, Shadow: true},
		{Kind: matcher.Exact, From: "/quote'\"\\\t", To: "/n", Status: 301},
		{Kind: matcher.Exact, From: "/staged", To: "/new", Status: 302, When: &matcher.When{
			IP:     []netip.Prefix{netip.MustParsePrefix("203.0.113.0/24"), netip.MustParsePrefix("2001:db8::/32"), netip.MustParsePrefix("198.51.100.7/32")},
			Method: []string{"GET", "HEAD"}, Sample: 0.1,
			Unless: &matcher.When{IP: []netip.Prefix{netip.MustParsePrefix("203.0.113.9/32")}, Sample: 1}}},
	}
	text, got, err := roundTrip(t, rules)
	if err != nil {
		t.Fatalf("the written config does not load: %v\n%s", err, text)
	}
	want := slices.Clone(rules)
	want[2].From = "(?i)" + want[2].From // as a Set holds it
	if d := cmp.Diff(want, got, ignorePlace, cmpopts.EquateEmpty(), cmp.Comparer(func(a, b netip.Prefix) bool { return a == b })); d != "" {
		t.Errorf("loading what WriteRule wrote gave other rules (-wrote +loaded):\n%s\n%s", d, text)
	}
}

// FuzzWriteRule writes a rule made of arbitrary words: what is written
// always decodes as TOML, and when the loader takes it, it gives back the
// rule written.
func FuzzWriteRule(f *testing.F) {
	f.Add("/a", "/b", "", "id", "1", "X-A", "b", uint8(0), uint16(301))
	f.Add("^/p/(.*)$", "/q/$1", "Example.com", "", "", "", "", uint8(2), uint16(302))
	f.Add("/docs/", "https://x.test/", "", "", "", "", "", uint8(1|8|16), uint16(308))
	f.Add("/x'y", "/\"z\\\n", "a.test", "q\x00", "'", "Cache-Control", "no-store", uint8(0xff), uint16(410))
	f.Fuzz(func(t *testing.T, from, to, host, qname, qvalue, hname, hvalue string, flags uint8, status uint16) {
		r := matcher.Rule{Kind: matcher.Kind(flags % 3), From: from, To: to, Host: host, Status: int(status)}
		r.CaseInsensitive = flags&4 != 0
		r.TrailingSlash = flags&8 != 0
		r.QueryString = matcher.QueryMode(flags >> 4 % 3)
		if flags&64 != 0 && qname != "" {
			r.Query = []matcher.QueryCond{{Name: qname, Value: qvalue}}
		}
		if flags&128 != 0 && hname != "" {
			r.Headers = []matcher.Header{{Name: hname, Value: hvalue}}
		}
		if err := Writable(&r); err != nil {
			if !slices.ContainsFunc([]string{from, to, host, qname, qvalue, hname, hvalue}, func(s string) bool { return !utf8.ValidString(s) }) {
				t.Fatalf("Writable refused a rule of UTF-8 words: %v", err)
			}
			return
		}
		text, got, err := roundTrip(t, []matcher.Rule{r})
		if err != nil {
			return // a rule the loader refuses; the writer wrote TOML
		}
		want := []matcher.Rule{r}
		if r.Kind == matcher.Regex && r.CaseInsensitive {
			want[0].From = "(?i)" + strings.TrimPrefix(r.From, "(?i)")
		}
		// The loader compares hosts in lower case without a final dot.
		want[0].Host = strings.TrimSuffix(strings.ToLower(r.Host), ".")
		if len(got) == 1 && got[0].Host != want[0].Host && !isASCII(r.Host) {
			want[0].Host = got[0].Host // a name in Unicode is held as its A-label
		}
		if d := cmp.Diff(want, got, ignorePlace, cmpopts.EquateEmpty()); d != "" {
			t.Errorf("loading what WriteRule wrote gave another rule (-wrote +loaded):\n%s\n%s", d, text)
		}
	})
}

func isASCII(s string) bool {
	return !slices.ContainsFunc([]byte(s), func(c byte) bool { return c >= 0x80 })
}

// TestWriteTablesRoundTrip writes [upstream] and [tls] tables as the
// nginx import does and loads them back.
func TestWriteTablesRoundTrip(t *testing.T) {
	var b strings.Builder
	WriteHeader(&b, "tables")
	WriteRule(&b, "", matcher.Rule{From: "/a", To: "/b", Status: 301}, nil)
	WriteUpstream(&b, "nginx.conf:3: upstream", Upstream{Servers: []string{"127.0.0.1:8001", "app'2.internal:8002"}, Balance: "least_conn", HostHeader: "upstream"})
	WriteTLS(&b, "nginx's TLS port", TLS{Listen: "127.0.0.1:8443", Certificates: []Certificate{
		{Cert: "certs/a.crt", Key: "certs/a.key", Comment: "nginx.conf:9"},
		{Cert: "b \"quoted\".crt", Key: "b.key"},
	}})
	cfg, err := config.LoadFS(fstest.MapFS{"redirectd.toml": {Data: []byte(b.String())}}, "redirectd.toml")
	if err != nil {
		t.Fatalf("the written config does not load: %v\n%s", err, b.String())
	}
	got := struct {
		Servers             []string
		Balance, HostHeader string
		Listen              string
		Certs               [][2]string
	}{Servers: cfg.Upstream.Servers, Balance: cfg.Upstream.Balance, HostHeader: cfg.Upstream.HostHeader, Listen: cfg.TLS.Listen}
	for _, c := range cfg.TLS.Certificates {
		got.Certs = append(got.Certs, [2]string{c.Cert, c.Key})
	}
	want := got
	want.Servers, want.Balance, want.HostHeader, want.Listen = []string{"127.0.0.1:8001", "app'2.internal:8002"}, "least_conn", "upstream", "127.0.0.1:8443"
	want.Certs = [][2]string{{"certs/a.crt", "certs/a.key"}, {"b \"quoted\".crt", "b.key"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("loaded tables (-wrote +loaded):\n%s\n%s", d, b.String())
	}
	// Commented, the tables are not there for the loader.
	var c strings.Builder
	WriteRule(&c, "", matcher.Rule{From: "/a", To: "/b", Status: 301}, nil)
	WriteTLS(&c, "", TLS{Listen: "127.0.0.1:8443", Commented: true, Certificates: []Certificate{{Cert: "x", Key: "y"}}})
	cfg, err = config.LoadFS(fstest.MapFS{"redirectd.toml": {Data: []byte(c.String())}}, "redirectd.toml")
	if err != nil || cfg.TLS.Listen != "" {
		t.Errorf("a commented [tls]: %v, listen %q\n%s", err, cfg.TLS.Listen, c.String())
	}
}

// TestWriteGroupsRoundTrip writes named upstream groups, with TLS keys
// and a commented one, and routes, as the nginx import does, and loads
// them back.
func TestWriteGroupsRoundTrip(t *testing.T) {
	var b strings.Builder
	WriteUpstream(&b, "default", Upstream{Name: "default", Servers: []string{"127.0.0.1:8001"}, HostHeader: "preserve"})
	WriteUpstream(&b, "nginx.conf:9: proxy_pass https://blog.example.net", Upstream{Name: "blog-example-net",
		Servers: []string{"https://blog.example.net", "https://10.0.0.5:8443"}, HostHeader: "blog.example.net",
		TLSServerName: "blog.example.net", CAFile: "/nowhere/ca.pem", Commented: []string{"ca_file"}})
	WriteUpstream(&b, "", Upstream{Name: "app", Servers: []string{"10.0.0.1:80", "10.0.0.2:80"}, Balance: "least_conn", HostHeader: "app",
		Limits: map[string]string{"connect_timeout": "5s", "read_timeout": "2m0s", "write_timeout": "45s", "max_request_body_bytes": "20971520"}})
	WriteRoute(&b, "nginx.conf:8: location /blog/", "www.example.com", "/blog/", "blog-example-net")
	WriteRoute(&b, "", "*.example.com", "/", "app")
	WriteRoute(&b, "", "", "/api/", "default")
	cfg, err := config.LoadFS(fstest.MapFS{"redirectd.toml": {Data: []byte(b.String())}}, "redirectd.toml")
	if err != nil {
		t.Fatalf("the written config does not load: %v\n%s", err, b.String())
	}
	type group struct {
		Servers                                    []string
		Balance, HostHeader, TLSServerName, CAFile string
	}
	got := map[string]group{"default": {cfg.Upstream.Servers, cfg.Upstream.Balance, cfg.Upstream.HostHeader, cfg.Upstream.TLSServerName, cfg.Upstream.CAFile}}
	for name, u := range cfg.Upstreams {
		got[name] = group{u.Servers, u.Balance, u.HostHeader, u.TLSServerName, u.CAFile}
	}
	want := map[string]group{
		"default":          {[]string{"127.0.0.1:8001"}, "round_robin", "preserve", "", ""},
		"blog-example-net": {[]string{"https://blog.example.net", "https://10.0.0.5:8443"}, "round_robin", "blog.example.net", "blog.example.net", ""},
		"app":              {[]string{"10.0.0.1:80", "10.0.0.2:80"}, "least_conn", "app", "", ""},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("loaded groups (-wrote +loaded):\n%s\n%s", d, b.String())
	}
	if app := cfg.Upstreams["app"]; app == nil || time.Duration(app.ConnectTimeout) != 5*time.Second || time.Duration(app.ReadTimeout) != 2*time.Minute ||
		time.Duration(app.WriteTimeout) != 45*time.Second || app.MaxRequestBodyBytes != 20971520 {
		t.Errorf("group app's limits did not load as written: %+v\n%s", app, b.String())
	}
	var routes [][3]string
	for _, r := range cfg.Routes {
		routes = append(routes, [3]string{r.Host, r.Prefix, r.Upstream})
	}
	wantRoutes := [][3]string{{"www.example.com", "/blog/", "blog-example-net"}, {"*.example.com", "/", "app"}, {"", "/api/", "default"}}
	if d := cmp.Diff(wantRoutes, routes); d != "" {
		t.Errorf("loaded routes (-wrote +loaded):\n%s\n%s", d, b.String())
	}
}

// TestWritableWhen checks that Writable finds bytes that are not UTF-8
// in every kind of condition that holds text from a source, an unless's
// included.
func TestWritableWhen(t *testing.T) {
	bad := "caf\xe9"
	for name, w := range map[string]*matcher.When{
		"language":      {Language: []string{bad}},
		"country":       {Country: []string{bad}},
		"header value":  {Header: []matcher.KeyValue{{Name: "X-A", Value: bad}}},
		"cookie name":   {Cookie: []matcher.KeyValue{{Name: bad, Value: "1"}}},
		"unless query":  {Unless: &matcher.When{Query: []matcher.QueryCond{{Name: "q", Value: bad}}}},
		"unless header": {Scheme: "https", Unless: &matcher.When{Header: []matcher.KeyValue{{Name: bad, Value: "*"}}}},
	} {
		r := matcher.Rule{From: "/a", To: "/b", Status: 302, When: w}
		if err := Writable(&r); err == nil || !strings.Contains(err.Error(), "when ") {
			t.Errorf("%s: Writable gave %v, want a refusal naming when", name, err)
		}
	}
	ok := matcher.Rule{From: "/a", To: "/b", Status: 302, When: &matcher.When{Method: []string{"GET"}, Sample: 0.5, Language: []string{"de"}}}
	if err := Writable(&ok); err != nil {
		t.Errorf("a rule of UTF-8 conditions: %v", err)
	}
}
