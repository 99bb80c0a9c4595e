package config_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/matcher/rewrite"
)

// TestServerNamesLoad: the location tables' hosts name servers as
// nginx's server_name does, and default_server picks the one for the
// hosts that none names.
func TestServerNamesLoad(t *testing.T) {
	cfg, err := loadText(`
[[server_rewrite]]
host = "*.example.com"
steps = 'return 200 wild;'

[[server_rewrite]]
host = "www.example.*"
steps = 'return 200 tail;'

[[server_rewrite]]
host = '~^(?<shop>[a-z]+)\.shop\.test$'
steps = 'return 200 "shop $shop";'

[[server_rewrite]]
host = "main.example.org"
default_server = true
steps = 'return 200 main;'

[[server_rewrite]]
host = "tls.example.org"
default_server_ports = [8443]
steps = 'return 200 tls;'

[[location]]
path = "/"
steps = 'return 200 other;'
`, "")
	if err != nil {
		t.Fatal(err)
	}
	hosts := cfg.Set.Locations().(*rewrite.Hosts)
	for host, want := range map[string]string{
		"a.b.example.com": "wild", "www.example.co.uk": "tail", "toys.shop.test": "shop toys",
		"main.example.org": "main", "nowhere.test": "main",
	} {
		var s rewrite.Scratch
		var res rewrite.Result
		req := testRequest(host, "/")
		hosts.Choose(&s, req.Host).Run(&s, req, &res)
		if string(res.Body) != want {
			t.Errorf("%s: %q, want %q", host, res.Body, want)
		}
	}
	var s rewrite.Scratch
	var res rewrite.Result
	req := testRequest("nowhere.test", "/")
	if hosts.ChooseOn(&s, req.Host, []byte("8443"), false).Run(&s, req, &res); string(res.Body) != "tls" {
		t.Errorf("nowhere.test on port 8443: %q, want the port's default server", res.Body)
	}
}

// TestServerSchemesLoad: tables with a scheme make a name two servers,
// one per scheme, as nginx's servers of a plain and an ssl port; each
// holds its scheme's tables and those of none, and each scheme has its
// own default server.
func TestServerSchemesLoad(t *testing.T) {
	cfg, err := loadText(`
[[server_rewrite]]
host = "example.com"
scheme = "http"
default_server = true
steps = 'return 301 https://$host$request_uri;'

[[server_rewrite]]
host = "www.example.com"
steps = 'return 308 https://example.com$request_uri;'

[[location]]
host = "example.com"
scheme = "https"
path = "/old/"
steps = 'rewrite ^/old/(.*)$ /new/$1 permanent;'

[[location]]
host = "example.com"
path = "/both"
steps = 'return 200 both;'

[[location]]
scheme = "https"
path = "/"
steps = 'return 200 "tls default";'
`, "")
	if err != nil {
		t.Fatal(err)
	}
	hosts := cfg.Set.Locations().(*rewrite.Hosts)
	var got []string
	for _, host := range []string{"example.com", "www.example.com", "other.test"} {
		for _, path := range []string{"/old/a", "/both"} {
			for _, https := range []bool{false, true} {
				var s rewrite.Scratch
				var res rewrite.Result
				req := testRequest(host, path)
				req.HTTPS = https
				hosts.ChooseOn(&s, req.Host, []byte("443"), https).Run(&s, req, &res)
				got = append(got, fmt.Sprintf("%v %s%s: %d %s%s", https, host, path, res.Status, res.Location, res.Body))
			}
		}
	}
	want := []string{
		"false example.com/old/a: 301 https://example.com/old/a", "true example.com/old/a: 301 /new/a",
		"false example.com/both: 301 https://example.com/both", "true example.com/both: 200 both",
		"false www.example.com/old/a: 308 https://example.com/old/a", "true www.example.com/old/a: 308 https://example.com/old/a",
		"false www.example.com/both: 308 https://example.com/both", "true www.example.com/both: 308 https://example.com/both",
		// The plain default is example.com's server; the TLS one the
		// host-less tables.
		"false other.test/old/a: 301 https://other.test/old/a", "true other.test/old/a: 200 tls default",
		"false other.test/both: 301 https://other.test/both", "true other.test/both: 200 tls default",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
	for _, tt := range []struct{ text, want string }{
		{"[[location]]\nscheme = \"ftp\"\npath = \"/\"\n", `c.toml:2: [[location]] #1: scheme: "ftp" is no scheme`},
		{"[[location]]\npath = \"/\"\n  [[location.location]]\n  scheme = \"http\"\n  path = \"/a\"\n", "scheme: unknown key"},
	} {
		_, err := loadText(tt.text, "")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("load(%q) = %v, want %q", tt.text, err, tt.want)
		}
	}
}
