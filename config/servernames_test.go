package config_test

import (
	"testing"

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
	if hosts.ChooseOn(&s, req.Host, []byte("8443")).Run(&s, req, &res); string(res.Body) != "tls" {
		t.Errorf("nowhere.test on port 8443: %q, want the port's default server", res.Body)
	}
}
