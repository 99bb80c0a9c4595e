package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/matcher"
)

// writeFiles writes name -> content into a temporary folder and returns the
// path of "redirectd.toml" there.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "redirectd.toml")
}

func TestLoad(t *testing.T) {
	file := writeFiles(t, map[string]string{
		"redirectd.toml": `
[server]
listen = "127.0.0.1:9999"
event_loops = 2
max_path_bytes = 4096
idle_timeout = "30s"
header_timeout = "1m"
max_connections_per_ip = 10
ipv6_prefix = 56
max_connections = 1000
https_redirect = true
absolute_redirect = true
[[rule]]
from = "/old"
to = "https://example.com/new"

[[map]]
file = "r.map"
status = 302

[[rule]]
match = "regex"
from = '^/b/(\d+)$'
to = "/posts/$1"
status = 308
host = "Shop.Example.com"
`,
		"r.map": `# comment
/a   /x;     # trailing comment
"/with space" '/y';
~^/m/(\d+)$  /z/$1;
~*^/CI$ /ci;  /two /per-line;
`,
	})
	cfg, err := config.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	wantServer := config.Server{Listen: "127.0.0.1:9999", EventLoops: 2, MaxPathBytes: 4096,
		IdleTimeout: config.Duration(30 * time.Second), HeaderTimeout: config.Duration(time.Minute),
		MaxConnectionsPerIP: 10, IPv6Prefix: 56, MaxConnections: 1000, HTTPSRedirect: true, AbsoluteRedirect: true, ShutdownTimeout: config.Duration(config.DefaultShutdownTimeout)}
	if diff := cmp.Diff(wantServer, cfg.Server); diff != "" {
		t.Errorf("server (-want +got):\n%s", diff)
	}
	mapFile := filepath.Join(filepath.Dir(file), "r.map")
	want := []matcher.Rule{
		{Kind: matcher.Exact, From: "/old", To: "https://example.com/new", Status: 301, File: file, Line: 13},
		{Kind: matcher.Exact, From: "/a", To: "/x", Status: 302, File: mapFile, Line: 2},
		{Kind: matcher.Exact, From: "/with space", To: "/y", Status: 302, File: mapFile, Line: 3},
		{Kind: matcher.Regex, From: `^/m/(\d+)$`, To: "/z/$1", Status: 302, File: mapFile, Line: 4},
		{Kind: matcher.Regex, From: `(?i)^/CI$`, To: "/ci", Status: 302, File: mapFile, Line: 5},
		{Kind: matcher.Exact, From: "/two", To: "/per-line", Status: 302, File: mapFile, Line: 5},
		{Kind: matcher.Regex, From: `^/b/(\d+)$`, To: "/posts/$1", Status: 308, Host: "shop.example.com", File: file, Line: 21},
	}
	if diff := cmp.Diff(want, cfg.Set.Rules()); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}
	if got, want := cfg.Set.Counts(), (matcher.Counts{Exact: 4, Regex: 3}); got != want {
		t.Errorf("counts %+v, want %+v", got, want)
	}
}

func TestLoadDefaults(t *testing.T) {
	cfg, err := config.Load(writeFiles(t, map[string]string{"redirectd.toml": "[[rule]]\nfrom = \"/a\"\nto = \"/b\"\n"}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Server.Listen != config.DefaultListen || cfg.Set.Rules()[0].Status != 301 || cfg.Set.Rules()[0].Kind != matcher.Exact {
		t.Errorf("defaults not applied: %+v %+v", cfg.Server, cfg.Set.Rules()[0])
	}
}

// TestLoadErrors checks that every refused config names the file, the line
// and the key or rule at fault.
func TestLoadErrors(t *testing.T) {
	const rule1 = "[[rule]]\nfrom = \"/a\"\nto = \"/b\"\n"
	tests := []struct {
		name  string
		files map[string]string
		want  []string // fragments of the error, each must appear
	}{
		{"syntax", map[string]string{"redirectd.toml": "[server]\nlisten = \n"},
			[]string{"redirectd.toml:2: "}},
		{"unknown key in second rule", map[string]string{"redirectd.toml": rule1 + "\n[[rule]]\nfrom = \"/c\"\ntraget = \"/d\"\n"},
			[]string{"redirectd.toml:7: [[rule]] #2: traget: unknown key"}},
		{"key in the wrong case", map[string]string{"redirectd.toml": "[server]\nLISTEN = \"127.0.0.1:1\"\n"},
			[]string{"redirectd.toml:2: [server]: LISTEN: unknown key"}},
		{"unknown table", map[string]string{"redirectd.toml": "[serverr]\nlisten = \"x\"\n"},
			[]string{"redirectd.toml:1: serverr: unknown table or key"}},
		{"bad status", map[string]string{"redirectd.toml": rule1 + "\n[[rule]]\nfrom = \"/c\"\nto = \"/d\"\nstatus = 305\n"},
			[]string{"redirectd.toml:8: [[rule]] #2: status: 305 is not a redirect status"}},
		{"status as string", map[string]string{"redirectd.toml": "[[rule]]\nfrom = \"/c\"\nto = \"/d\"\nstatus = \"301\"\n"},
			[]string{"redirectd.toml:4: [[rule]] #1: status: must be an integer, not a string"}},
		{"query not a table", map[string]string{"redirectd.toml": rule1 + "query = \"utm_source=x\"\n"},
			[]string{"redirectd.toml:4: [[rule]] #1: query: must be a table of parameter names to values, such as { utm_source = \"newsletter\", ref = \"*\" }, not a string"}},
		{"query empty", map[string]string{"redirectd.toml": rule1 + "query = {}\n"},
			[]string{"redirectd.toml:4: [[rule]] #1: query: the table is empty; leave query out to match any query"}},
		{"query value not a string", map[string]string{"redirectd.toml": rule1 + "query = { ref = 1 }\n"},
			[]string{"redirectd.toml:4: [[rule]] #1: query: parameter \"ref\" must be a string"}},
		{"same conditions twice", map[string]string{"redirectd.toml": rule1 + "query = { a = \"1\", b = \"*\" }\n[[rule]]\nfrom = \"/a\"\nto = \"/c\"\nquery = { b = \"*\", a = \"1\" }\n"},
			[]string{"redirectd.toml:6: [[rule]] #2: from: duplicate exact rule for \"/a\" with the same query conditions (first defined at "}},
		{"missing to", map[string]string{"redirectd.toml": "[[rule]]\nfrom = \"/c\"\n"},
			[]string{"redirectd.toml:1: [[rule]] #1: to: missing"}},
		{"bad match", map[string]string{"redirectd.toml": "[[rule]]\nmatch = \"glob\"\nfrom = \"/c\"\nto = \"/d\"\n"},
			[]string{"redirectd.toml:2: [[rule]] #1: match: \"glob\" is not a match kind"}},
		{"bad regex", map[string]string{"redirectd.toml": rule1 + "\n[[rule]]\nmatch = \"regex\"\nto = \"/d\"\nfrom = '^/(x'\n"},
			[]string{"redirectd.toml:8: [[rule]] #2: from: cannot compile regex"}},
		{"duplicate exact", map[string]string{"redirectd.toml": rule1 + "\n[[rule]]\nto = \"/d\"\nfrom = \"/a\"\n"},
			[]string{"redirectd.toml:7: [[rule]] #2: from: duplicate exact rule for \"/a\" (first defined at "}},
		{"every error at once", map[string]string{"redirectd.toml": "[[rule]]\nfrom = \"/c\"\nto = \"/d\"\nstatus = 1\n[[rule]]\nfrom = \"/e\"\nto = \"/f\"\nstatus = 2\n"},
			[]string{"redirectd.toml:4: ", "redirectd.toml:8: "}},
		{"missing map file", map[string]string{"redirectd.toml": "[[map]]\nfile = \"nope.map\"\n"},
			[]string{"redirectd.toml:2: [[map]] #1: file: cannot read map file"}},
		{"map line with three words", map[string]string{"redirectd.toml": "[[map]]\nfile = \"r.map\"\n", "r.map": "/a /b;\n\n/c /d /e;\n"},
			[]string{"r.map:3: an entry is `from to;`, this one has 3 words"}},
		{"map line without semicolon", map[string]string{"redirectd.toml": "[[map]]\nfile = \"r.map\"\n", "r.map": "/a /b;\n/c /d\n"},
			[]string{"r.map:2: entry does not end with ';'"}},
		{"map default", map[string]string{"redirectd.toml": "[[map]]\nfile = \"r.map\"\n", "r.map": "default /x;\n"},
			[]string{"r.map:1: nginx's \"default\" has no place"}},
		{"map bad regex", map[string]string{"redirectd.toml": "[[map]]\nfile = \"r.map\"\n", "r.map": "/ok /x;\n~^/(a /y;\n"},
			[]string{"r.map:2: from: cannot compile regex"}},
		{"map unclosed quote", map[string]string{"redirectd.toml": "[[map]]\nfile = \"r.map\"\n", "r.map": "\"/a /b;\n"},
			[]string{"r.map:1: quoted word not closed"}},
		{"host with port", map[string]string{"redirectd.toml": "[[rule]]\nfrom = \"/c\"\nto = \"/d\"\nhost = \"a.com:80\"\n"},
			[]string{"redirectd.toml:4: [[rule]] #1: host: \"a.com:80\" is not a host name"}},
		{"negative event loops", map[string]string{"redirectd.toml": "[server]\nevent_loops = -1\n"},
			[]string{"redirectd.toml:2: [server]: event_loops: -1 is negative"}},
		{"duration without quotes", map[string]string{"redirectd.toml": "[server]\nidle_timeout = 10\n"},
			[]string{"redirectd.toml:2: server.idle_timeout: must be a duration in quotes"}},
		{"bad duration", map[string]string{"redirectd.toml": "[server]\nheader_timeout = \"ten\"\n"},
			[]string{"redirectd.toml:2: server.header_timeout: \"ten\" is not a duration"}},
		{"wrong type in server", map[string]string{"redirectd.toml": "[server]\n\nmax_path_bytes = \"a\"\n"},
			[]string{"redirectd.toml:3: server.max_path_bytes: wrong type: a string, where an integer is wanted"}},
		{"[[rules]] for [[rule]]", map[string]string{"redirectd.toml": "[[rules]]\nfrom = \"/a\"\nto = \"/b\"\n"},
			[]string{"redirectd.toml:1: rules: unknown table [[rules]]: [rules] is a table of settings, written once; for rules, write [[rule]]"}},
		{"[rule] for [[rule]]", map[string]string{"redirectd.toml": "[rule]\nfrom = \"/a\"\nto = \"/b\"\n"},
			[]string{"redirectd.toml:1: rule: [rule] must be written [[rule]], once for each entry"}},
		{"upstream without servers", map[string]string{"redirectd.toml": "[upstream]\nbalance = \"round_robin\"\n"},
			[]string{"redirectd.toml:1: [upstream]: servers: empty"}},
		{"upstream server without port", map[string]string{"redirectd.toml": "[upstream]\nservers = [\"127.0.0.1\"]\n"},
			[]string{"redirectd.toml:2: [upstream]: servers: \"127.0.0.1\" is not host:port"}},
		{"upstream balance", map[string]string{"redirectd.toml": "[upstream]\nservers = [\"a:1\"]\nbalance = \"random\"\n"},
			[]string{"redirectd.toml:3: [upstream]: balance: \"random\" is not a balancing method"}},
		{"upstream host_header", map[string]string{"redirectd.toml": "[upstream]\nservers = [\"a:1\"]\nhost_header = \"x y\"\n"},
			[]string{"redirectd.toml:3: [upstream]: host_header: \"x y\" is not a host name"}},
		{"upstream send_timeout", map[string]string{"redirectd.toml": "[upstream]\nservers = [\"a:1\"]\n\nsend_timeout = \"5ms\"\n"},
			[]string{"redirectd.toml:4: [upstream]: send_timeout: 5ms is shorter than the deadline sweep's 100ms"}},
		{"upstream tunnel_idle_timeout", map[string]string{"redirectd.toml": "[upstream]\nservers = [\"a:1\"]\ntunnel_idle_timeout = \"1ms\"\n"},
			[]string{"redirectd.toml:3: [upstream]: tunnel_idle_timeout: 1ms is shorter"}},
		{"upstream request_buffer_bytes too large", map[string]string{"redirectd.toml": "[upstream]\nservers = [\"a:1\"]\nrequest_buffer_bytes = 1000000000\n"},
			[]string{"redirectd.toml:3: [upstream]: request_buffer_bytes: 1000000000 is more than 67108864"}},
		{"upstream body_min_rate negative", map[string]string{"redirectd.toml": "[upstream]\nservers = [\"a:1\"]\nbody_min_rate = -1\n"},
			[]string{"redirectd.toml:3: [upstream]: body_min_rate: negative values are not allowed; leave the key out for its default (4096 bytes a second)"}},
		{"upstream max_conns_per_client negative", map[string]string{"redirectd.toml": "[upstream]\nservers = [\"a:1\"]\n\nmax_conns_per_client = -2\n"},
			[]string{"redirectd.toml:4: [upstream]: max_conns_per_client: negative values are not allowed; leave the key out for its default (64)"}},
		{"upstream request_buffer_bytes negative", map[string]string{"redirectd.toml": "[upstream]\nservers = [\"a:1\"]\nrequest_buffer_bytes = -1\n"},
			[]string{"redirectd.toml:3: [upstream]: request_buffer_bytes: negative values are not allowed; leave the key out for its default (65536)"}},
		{"upstream unknown key", map[string]string{"redirectd.toml": "[upstream]\nservers = [\"a:1\"]\nretries = 3\n"},
			[]string{"redirectd.toml:3: [upstream]: retries: unknown key"}},
		{"health check unknown key", map[string]string{"redirectd.toml": "[upstream]\nservers = [\"a:1\"]\nhealth_check = { path = \"/h\", every = \"1s\" }\n"},
			[]string{"[upstream.health_check]: every: unknown key"}},
		{"health check path", map[string]string{"redirectd.toml": "[upstream]\nservers = [\"a:1\"]\nhealth_check = { path = \"h\" }\n"},
			[]string{"redirectd.toml:3: [upstream]: path: health_check path \"h\" must start with '/'"}},
		{"negative limit", map[string]string{"redirectd.toml": "[server]\nmax_connections_per_ip = -5\n"},
			[]string{"redirectd.toml:2: [server]: max_connections_per_ip: -5 is negative"}},
		{"ipv6 prefix over 128", map[string]string{"redirectd.toml": "[server]\nlisten = \":80\"\nipv6_prefix = 129\n"},
			[]string{"redirectd.toml:3: [server]: ipv6_prefix: 129 is more than 128"}},
		{"negative ipv6 prefix", map[string]string{"redirectd.toml": "[server]\nipv6_prefix = -64\n"},
			[]string{"redirectd.toml:2: [server]: ipv6_prefix: -64 is negative"}},
		{"redirect_port not a choice", map[string]string{"redirectd.toml": "[server]\nabsolute_redirect = true\nredirect_port = \"client\"\n"},
			[]string{"redirectd.toml:3: [server]: redirect_port: \"client\" is not a choice"}},
		{"redirect_port without absolute_redirect", map[string]string{"redirectd.toml": "[server]\nredirect_port = \"host\"\n"},
			[]string{"redirectd.toml:2: [server]: redirect_port: is the port of an absolute Location: it needs absolute_redirect = true"}},
		{"ipv6 prefix as text", map[string]string{"redirectd.toml": "[server]\n\nipv6_prefix = \"/64\"\n"},
			[]string{"redirectd.toml:3: server.ipv6_prefix: wrong type: a string, where an integer is wanted"}},
		{"ipv6 prefix misspelt", map[string]string{"redirectd.toml": "[server]\nipv6_prefixlen = 64\n"},
			[]string{"redirectd.toml:2: [server]: ipv6_prefixlen: unknown key"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := writeFiles(t, tt.files)
			_, err := config.Load(file)
			if err == nil {
				t.Fatal("Load succeeded, want an error")
			}
			// Errors name files by the path given to Load; compare by base name.
			msg := strings.ReplaceAll(err.Error(), filepath.Dir(file)+string(filepath.Separator), "")
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q\ndoes not contain %q", msg, w)
				}
			}
		})
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := config.Load(filepath.Join(t.TempDir(), "nope.toml"))
	if err == nil || !strings.Contains(err.Error(), "cannot read config") {
		t.Fatalf("error = %v", err)
	}
}

// TestShippedConfigs keeps the configs in the repository loadable.
func TestShippedConfigs(t *testing.T) {
	for _, file := range []string{"../deploy/redirectd.toml", "../cmd/redirectd/example/redirectd.toml"} {
		if _, err := config.Load(file); err != nil {
			t.Errorf("%s: %v", file, err)
		}
	}
}

func TestLoadUpstream(t *testing.T) {
	cfg, err := config.Load(writeFiles(t, map[string]string{"redirectd.toml": `
[upstream]
servers = ["127.0.0.1:8081", "127.0.0.1:8082"]
balance = "least_conn"
read_timeout = "5s"
host_header = "upstream"
max_request_body_bytes = 1048576
max_conns_per_client = 8
health_check = { path = "/healthz", interval = "2s" }
`}))
	if err != nil {
		t.Fatal(err)
	}
	want := &config.Upstream{
		Name: "default", Servers: []string{"127.0.0.1:8081", "127.0.0.1:8082"},
		Targets: []config.Target{{Addr: "127.0.0.1:8081", Host: "127.0.0.1"}, {Addr: "127.0.0.1:8082", Host: "127.0.0.1"}}, Balance: "least_conn", MaxConnsPerServer: 512,
		ConnectTimeout: config.Duration(2 * time.Second), ReadTimeout: config.Duration(5 * time.Second),
		WriteTimeout: config.Duration(30 * time.Second), PoolWaitTimeout: config.Duration(2 * time.Second),
		SendTimeout: config.Duration(30 * time.Second), BodyTimeout: config.Duration(10 * time.Second),
		TunnelIdleTimeout: config.Duration(5 * time.Minute), HostHeader: "upstream", MaxRequestBodyBytes: 1 << 20,
		RequestBufferBytes: 64 << 10, BodyMinRate: 4096, MaxConnsPerClient: 8,
		HealthCheck: &config.HealthCheck{Path: "/healthz", Interval: config.Duration(2 * time.Second)},
	}
	if diff := cmp.Diff(want, cfg.Upstream, cmpopts.IgnoreUnexported(config.UpstreamTLS{})); diff != "" {
		t.Errorf("upstream (-want +got):\n%s", diff)
	}
	cfg, err = config.Load(writeFiles(t, map[string]string{"redirectd.toml": "[[rule]]\nfrom = \"/a\"\nto = \"/b\"\n"}))
	if err != nil || cfg.Upstream != nil {
		t.Fatalf("no [upstream]: %v %+v", err, cfg.Upstream)
	}
}

// TestQueryConditions checks that `query` tables reach the matcher and
// that a rule with conditions is tried before the one without.
func TestQueryConditions(t *testing.T) {
	cfg, err := config.Load(writeFiles(t, map[string]string{
		"redirectd.toml": `
[[rule]]
from = "/promo"
to = "/plain"

[[rule]]
from = "/promo"
to = "/news"
query = { utm_source = "newsletter", ref = "*" }
query_string = "drop"
`}))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]matcher.QueryCond{{Name: "ref", Value: "*"}, {Name: "utm_source", Value: "newsletter"}}, cfg.Set.Rules()[1].Query); diff != "" {
		t.Errorf("conditions (-want +got):\n%s", diff)
	}
	for query, want := range map[string]string{
		"":                              "/plain",
		"utm_source=newsletter":         "/plain?utm_source=newsletter",
		"utm_source=newsletter&ref=abc": "/news",
	} {
		var m matcher.Match
		got := ""
		if cfg.Set.Lookup(nil, []byte("/promo"), []byte(query), &m) {
			got = string(m.AppendLocation(nil, []byte(query)))
		}
		if got != want {
			t.Errorf("/promo?%s: Location %q, want %q", query, got, want)
		}
	}
}

// TestRuleOptions checks the rule language's options, host lists and
// [rules.defaults].
func TestRuleOptions(t *testing.T) {
	cfg, err := config.Load(writeFiles(t, map[string]string{
		"redirectd.toml": `
[rules.defaults]
status = 302
query_string = "drop"
case_insensitive = true

[[rule]]
from = "/a"
to = "/b"
host = ["Example.com", "*.example.org", "Bücher.example", "*.ÜBER.example"]
trailing_slash = "ignore"

[[rule]]
from = "/c"
to = "/d"
status = 308
query_string = "keep"
case_insensitive = false

[[map]]
file = "r.map"
trailing_slash = "strict"
`,
		"r.map": "/m /n;\n",
	}))
	if err != nil {
		t.Fatal(err)
	}
	type opts struct {
		From, Host      string
		Status          int
		CaseInsensitive bool
		TrailingSlash   bool
		QueryString     matcher.QueryMode
	}
	var got []opts
	for _, r := range cfg.Set.Rules() {
		got = append(got, opts{r.From, r.Host, r.Status, r.CaseInsensitive, r.TrailingSlash, r.QueryString})
	}
	want := []opts{
		{"/a", "example.com", 302, true, true, matcher.QueryDrop},
		{"/a", "*.example.org", 302, true, true, matcher.QueryDrop},
		{"/a", "xn--bcher-kva.example", 302, true, true, matcher.QueryDrop},
		{"/a", "*.xn--ber-goa.example", 302, true, true, matcher.QueryDrop},
		{"/c", "", 308, false, false, matcher.QueryKeep},
		{"/m", "", 302, true, false, matcher.QueryDrop},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}
	// Browsers send an internationalised host in its punycode form.
	for _, host := range []string{"XN--BCHER-KVA.example:8080", "a.b.xn--ber-goa.example"} {
		var m matcher.Match
		if !cfg.Set.Lookup([]byte(host), []byte("/A"), nil, &m) || m.Rule().To != "/b" {
			t.Errorf("host %q does not match its internationalised rule", host)
		}
	}
}

func TestRuleOptionErrors(t *testing.T) {
	for _, tt := range []struct{ text, want string }{
		{"[[rule]]\nfrom = \"/a\"\nto = \"/b\"\ntrailing_slash = \"yes\"\n", "redirectd.toml:4: [[rule]] #1: trailing_slash: \"yes\" is not a choice; use \"ignore\" or \"strict\""},
		{"[[rule]]\nfrom = \"/a\"\nto = \"/b\"\ntrailing_slash = true\n", "redirectd.toml:4: [[rule]] #1: trailing_slash: must be a string, not a boolean"},
		{"[[rule]]\nfrom = \"/a\"\nto = \"/b\"\npath = \"raw\"\n", "redirectd.toml:4: [[rule]] #1: path: \"raw\" is not a choice; use \"normalized\" (escapes of unreserved characters decoded, the rest as sent) or \"decoded\" (every escape decoded, as nginx's $uri)"},
		{"[[rule]]\nfrom = \"/a\"\nto = \"/b\"\nquery_string = \"merge\"\n", "redirectd.toml:4: [[rule]] #1: query_string: \"merge\" is not a choice"},
		{"[[rule]]\nfrom = \"/a\"\nto = \"/b\"\ncase_insensitive = \"yes\"\n", "redirectd.toml:4: [[rule]] #1: case_insensitive: must be true or false"},
		{"[[rule]]\nfrom = \"/a\"\nto = \"/b\"\nhost = [\"a.com\", 3]\n", "redirectd.toml:4: [[rule]] #1: host: must be a string or a list of strings"},
		{"[[rule]]\nfrom = \"/a\"\nto = \"/b\"\nhost = \"a.*.com\"\n", "has a '*' other than a leading"},
		{"[[rule]]\nfrom = \"/a\"\nto = \"/b\"\nhost = \"bü_cher.de\"\n", "redirectd.toml:4: [[rule]] #1: host: \"bü_cher.de\" is not a valid internationalised host name: idna: disallowed rune U+005F"},
		{"[rules.defaults]\nstatus = 200\n", "redirectd.toml:2: [rules.defaults]: status: 200 is not a redirect status"},
		{"[rules.defaults]\nhost = \"a\"\n", "[rules.defaults]: host: unknown key"},
	} {
		_, err := config.Load(writeFiles(t, map[string]string{"redirectd.toml": tt.text}))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: error %v, want %q", tt.text, err, tt.want)
		}
	}
}

// TestRedirectPort: redirect_port = "host" is read with absolute_redirect.
func TestRedirectPort(t *testing.T) {
	cfg, err := config.Load(writeFiles(t, map[string]string{"redirectd.toml": "[server]\nabsolute_redirect = true\nredirect_port = \"host\"\n"}))
	if err != nil || cfg.Server.RedirectPort != "host" || !cfg.Server.AbsoluteRedirect {
		t.Fatalf("redirect_port = \"host\": %v %+v", err, cfg)
	}
}
