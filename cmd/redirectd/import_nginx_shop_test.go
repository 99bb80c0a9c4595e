package main

import (
	"strings"
	"testing"
)

// shopSite is a typical shop's nginx: a www server that sends every
// request to the main host, a wildcard server for other subdomains, a
// regex one whose capture names a city, and
// the main server with a map of moved pages read in an if, a proxied
// location whose upstream 404s go to a named location, and a health
// check. The map is long enough to go to a file beside the config.
// The plain listener only: nginx's 80-to-443 server and the TLS
// one share the main host's name, which one port cannot hold.
// %[1]s is nginx's address, %[2]s the origin.
const shopSite = `
map $uri $new_uri {
	~*^/old-(.*)$ /new/$1;
	/a /b;
	/sale /offers/sale;
	/p1 /q1; /p2 /q2; /p3 /q3; /p4 /q4; /p5 /q5; /p6 /q6; /p7 /q7; /p8 /q8; /p9 /q9; /p10 /q10; /p11 /q11; /p12 /q12; /p13 /q13; /p14 /q14; /p15 /q15; /p16 /q16; /p17 /q17; /p18 /q18; /p19 /q19; /p20 /q20;
}
server {
	listen %[1]s;
	server_name www.shop.example;
	return 301 https://shop.example$request_uri;
}
server {
	listen %[1]s;
	server_name *.shop.example;
	return 302 https://shop.example/from-sub$request_uri;
}
server {
	listen %[1]s;
	server_name ~^(?<city>[a-z]+)\.shops\.example$;
	return 301 https://shop.example/city/$city$request_uri;
}
server {
	listen %[1]s;
	server_name shop.example;
	if ($new_uri) { return 301 $new_uri; }
	location / {
		proxy_pass http://%[2]s;
		proxy_intercept_errors on;
		error_page 404 = @notfound;
	}
	location @notfound { return 302 /search?q=$uri; }
	location = /healthz { return 200 "ok"; }
}
`

// TestImportNginxShop imports shopSite and asks a real nginx and
// redirectd the same requests: the moved pages, the health check, the
// proxied pages and the www and wildcard hosts.
func TestImportNginxShop(t *testing.T) {
	t.Parallel()
	paths := []string{"/", "/a", "/a/", "/old-page", "/OLD-thing/x?y=1", "/sale", "/healthz", "/healthz/", "/products/1?c=2", "/b", "/p20", "/P7"}
	report := importAgainstNginx(t, shopSite, []string{"shop.example", "www.shop.example", "m.shop.example", "paris.shops.example", "other.test"}, paths)
	if !strings.Contains(report, "new_uri.map") {
		t.Errorf("the map is not written to a file:\n%s", report)
	}
	if !strings.Contains(report, "server shop.example: [[server_rewrite]] and [[location]] tables") {
		t.Errorf("shop.example is not written as locations:\n%s", report)
	}
}
