package config_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/internal/testutil"
)

// TestLoadGroupsAndRoutes reads named groups with every server form and
// the routes that use them.
func TestLoadGroupsAndRoutes(t *testing.T) {
	ca := testutil.NewCA(t)
	cert, key := ca.Issue(t, "client.example")
	cfg, err := config.Load(writeFiles(t, map[string]string{
		"ca.pem": string(ca.CertPEM), "client.crt": string(cert), "client.key": string(key),
		"redirectd.toml": `
[upstream]
servers = ["127.0.0.1:8081"]

[upstreams.blog]
servers = ["https://blog.example.net", "http://10.0.0.5", "https://[::1]:8443", "10.0.0.6:8080"]
host_header = "blog.example.net"
tls_server_name = "blog.example.net"
ca_file = "ca.pem"
client_cert_file = "client.crt"
client_key_file = "client.key"
pool_wait_timeout = "1s"

[upstreams.shop-2]
servers = ["127.0.0.1:9000"]
health_check = { path = "/h" }

[[route]]
host = "WWW.Example.com"
prefix = "/blog/"
upstream = "blog"

[[route]]
host = "*.example.com"
upstream = "shop-2"

[[route]]
prefix = "/api/"
upstream = "default"

[[route]]
prefix = "/%7euser/"
upstream = "default"
`}))
	if err != nil {
		t.Fatal(err)
	}
	blog := cfg.Upstreams["blog"]
	wantTargets := []config.Target{{Addr: "blog.example.net:443", TLS: true, Host: "blog.example.net"},
		{Addr: "10.0.0.5:80", Host: "10.0.0.5"}, {Addr: "[::1]:8443", TLS: true, Host: "::1"}, {Addr: "10.0.0.6:8080", Host: "10.0.0.6"}}
	if diff := cmp.Diff(wantTargets, blog.Targets); diff != "" {
		t.Errorf("blog targets (-want +got):\n%s", diff)
	}
	if blog.Name != "blog" || blog.HostHeader != "blog.example.net" || blog.PoolWaitTimeout.Std().String() != "1s" || blog.MaxConnsPerServer != 512 {
		t.Errorf("blog = %+v, want its keys and the defaults of the rest", blog)
	}
	if cfg.Upstreams["shop-2"].HealthCheck.Interval.Std().String() != "5s" {
		t.Errorf("shop-2's health check has no default interval: %+v", cfg.Upstreams["shop-2"].HealthCheck)
	}
	tc, err := blog.ClientTLS("blog.example.net")
	if err != nil || tc.ServerName != "blog.example.net" || tc.RootCAs == nil || len(tc.Certificates) != 1 || tc.InsecureSkipVerify {
		t.Errorf("ClientTLS = %+v, %v; want the server name, the CA and the client certificate", tc, err)
	}
	want := []config.Route{{Host: "www.example.com", Prefix: "/blog/", Upstream: "blog", Line: 18},
		{Host: "*.example.com", Prefix: "/", Upstream: "shop-2", Line: 23}, {Prefix: "/api/", Upstream: "default", Line: 27},
		{Prefix: "/~user/", Upstream: "default", Line: 31}}
	if diff := cmp.Diff(want, cfg.Routes); diff != "" {
		t.Errorf("routes (-want +got):\n%s", diff)
	}
}

// TestLoadGroupErrors: each mistake in a group or route is refused with
// its file, line and key.
func TestLoadGroupErrors(t *testing.T) {
	const grp = "[upstreams.blog]\nservers = [\"a:1\"]\n"
	ca := testutil.NewCA(t)
	cert, key := ca.Issue(t, "client.example")
	_, otherKey := ca.Issue(t, "other.example")
	tests := []struct {
		name string
		conf string
		want string
	}{
		{"unknown group", grp + "[[route]]\nprefix = \"/a/\"\nupstream = \"blgo\"\n",
			"redirectd.toml:5: [[route]] #1: upstream: \"blgo\" is no group; known: blog"},
		{"default without [upstream]", grp + "[[route]]\nupstream = \"default\"\n",
			"redirectd.toml:4: [[route]] #1: upstream: \"default\" is the [upstream] table's group, and there is none"},
		{"no upstream key", grp + "[[route]]\nprefix = \"/a/\"\n",
			"redirectd.toml:3: [[route]] #1: upstream: missing"},
		{"route without groups", "[[route]]\nupstream = \"x\"\n",
			"redirectd.toml:2: [[route]] #1: upstream: \"x\" is no group; there are no groups"},
		{"duplicate route", grp + "[[route]]\nhost = \"a.com\"\nprefix = \"/b/\"\nupstream = \"blog\"\n[[route]]\nhost = \"A.com\"\nprefix = \"/b/\"\nupstream = \"blog\"\n",
			"redirectd.toml:9: [[route]] #2: prefix: a.com \"/b/\" is routed already by the [[route]] on line 3"},
		{"duplicate any-host route", grp + "[[route]]\nupstream = \"blog\"\n[[route]]\nprefix = \"/\"\nupstream = \"blog\"\n",
			"[[route]] #2: prefix: every host \"/\" is routed already"},
		{"duplicate once normalised", grp + "[[route]]\nprefix = \"/%62/\"\nupstream = \"blog\"\n[[route]]\nprefix = \"/b/\"\nupstream = \"blog\"\n",
			"[[route]] #2: prefix: every host \"/b/\" is routed already by the [[route]] on line 3"},
		{"prefix without slash", grp + "[[route]]\nprefix = \"blog/\"\nupstream = \"blog\"\n",
			"redirectd.toml:4: [[route]] #1: prefix: \"blog/\" must start with '/'"},
		{"prefix with query", grp + "[[route]]\nprefix = \"/a?b\"\nupstream = \"blog\"\n",
			"redirectd.toml:4: [[route]] #1: prefix: \"/a?b\" is not a path prefix"},
		{"route host with port", grp + "[[route]]\nhost = \"a.com:80\"\nupstream = \"blog\"\n",
			"redirectd.toml:4: [[route]] #1: host: \"a.com:80\" is not a host name"},
		{"route unknown key", grp + "[[route]]\nupstream = \"blog\"\npath = \"/x\"\n",
			"redirectd.toml:5: [[route]] #1: path: unknown key; known keys here: host, prefix, upstream"},
		{"group unknown key", grp + "retries = 2\n",
			"redirectd.toml:3: [upstreams.blog]: retries: unknown key"},
		{"group health check unknown key", grp + "health_check = { path = \"/h\", every = \"1s\" }\n",
			"[upstreams.blog.health_check]: every: unknown key"},
		{"group named default", "[upstreams.default]\nservers = [\"a:1\"]\n",
			"redirectd.toml:1: [upstreams.default]: \"default\" is the name of the [upstream] table's group"},
		{"group name with a dot", "[upstreams.\"a.b\"]\nservers = [\"a:1\"]\n",
			"[upstreams.a.b]: the name \"a.b\" has a '.'"},
		{"group without servers", "[upstreams.blog]\nbalance = \"least_conn\"\n",
			"redirectd.toml:1: [upstreams.blog]: servers: empty"},
		{"group bad balance", grp + "balance = \"random\"\n",
			"redirectd.toml:3: [upstreams.blog]: balance: \"random\" is not a balancing method"},
		{"https port 0", "[upstreams.blog]\nservers = [\"https://a.example:0\"]\n",
			"redirectd.toml:2: [upstreams.blog]: servers: \"https://a.example:0\" has no port from 1 to 65535"},
		{"https with a path", "[upstreams.blog]\nservers = [\"https://a.example/x\"]\n",
			"servers: \"https://a.example/x\" is not a server address; give host:port, http://host[:port] or https://host[:port] without a path"},
		{"other scheme", "[upstreams.blog]\nservers = [\"ftp://a.example\"]\n",
			"servers: \"ftp://a.example\" has a scheme other than http:// or https://"},
		{"plain without port", "[upstreams.blog]\nservers = [\"a.example\"]\n",
			"servers: \"a.example\" is not host:port"},
		{"bad literal host_header", grp + "host_header = \"a/b\"\n",
			"redirectd.toml:3: [upstreams.blog]: host_header: \"a/b\" is not a host name"},
		{"tls key without https server", grp + "tls_server_name = \"a.example\"\n",
			"redirectd.toml:3: [upstreams.blog]: tls_server_name: applies to https:// servers only"},
		{"missing ca_file", "[upstreams.blog]\nservers = [\"https://a.example\"]\nca_file = \"nope.pem\"\n",
			"redirectd.toml:3: [upstreams.blog]: ca_file: cannot read "},
		{"ca_file without certificate", "[upstreams.blog]\nservers = [\"https://a.example\"]\nca_file = \"client.key\"\n",
			"redirectd.toml:3: [upstreams.blog]: ca_file: "},
		{"cert without key", "[upstreams.blog]\nservers = [\"https://a.example\"]\nclient_cert_file = \"client.crt\"\n",
			"[upstreams.blog]: client_key_file: missing: give client_cert_file and client_key_file together"},
		{"cert and key that differ", "[upstreams.blog]\nservers = [\"https://a.example\"]\nclient_cert_file = \"client.crt\"\nclient_key_file = \"other.key\"\n",
			"redirectd.toml:3: [upstreams.blog]: client_cert_file: cannot use "},
		{"tls_server_name not a name", "[upstreams.blog]\nservers = [\"https://a.example\"]\ntls_server_name = \"a b\"\n",
			"redirectd.toml:3: [upstreams.blog]: tls_server_name: \"a b\" is not a host name"},
		{"default group tls key", "[upstream]\nservers = [\"a:1\"]\nca_file = \"client.crt\"\n",
			"redirectd.toml:3: [upstream]: ca_file: applies to https:// servers only"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := writeFiles(t, map[string]string{"redirectd.toml": tt.conf, "client.crt": string(cert), "client.key": string(key), "other.key": string(otherKey)})
			_, err := config.Load(file)
			if err == nil {
				t.Fatal("Load succeeded, want an error")
			}
			msg := strings.ReplaceAll(err.Error(), filepath.Dir(file)+string(filepath.Separator), "")
			if !strings.Contains(msg, tt.want) {
				t.Errorf("error %q\ndoes not contain %q", msg, tt.want)
			}
		})
	}
}

// TestLoadGroupForms: a group written inline under [upstreams], and a
// health check as a table of its own, read as the [upstreams.NAME] form.
func TestLoadGroupForms(t *testing.T) {
	cfg, err := config.Load(writeFiles(t, map[string]string{"redirectd.toml": `
[upstreams]
api = { servers = ["127.0.0.1:9001"], balance = "least_conn" }

[upstreams.blog]
servers = ["https://blog.example.net:8443"]

[upstreams.blog.health_check]
path = "/healthz"
interval = "1s"

[[route]]
prefix = "/api/"
upstream = "api"
`}))
	if err != nil {
		t.Fatal(err)
	}
	if api := cfg.Upstreams["api"]; api == nil || api.Balance != "least_conn" || api.Targets[0].Addr != "127.0.0.1:9001" {
		t.Errorf("inline group: %+v", api)
	}
	if hc := cfg.Upstreams["blog"].HealthCheck; hc == nil || hc.Path != "/healthz" || hc.Interval.Std().String() != "1s" {
		t.Errorf("health check table: %+v", hc)
	}
	if cfg.Upstream != nil || len(cfg.Routes) != 1 {
		t.Errorf("default group %v, routes %v", cfg.Upstream, cfg.Routes)
	}
	_, err = config.Load(writeFiles(t, map[string]string{"redirectd.toml": "[upstreams.blog]\nservers = [\"a:1\"]\n\n[upstreams.blog.health_check]\npath = \"/h\"\nevery = \"1s\"\n"}))
	if err == nil || !strings.Contains(err.Error(), "redirectd.toml:6: [upstreams.blog.health_check]: every: unknown key") {
		t.Errorf("unknown key of a group's health check table: %v", err)
	}
}
