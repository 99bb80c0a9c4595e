package main

import (
	"strings"
	"testing"
)

// shopSite is a typical shop's nginx: a www server that sends every
// request to the main host, a wildcard server for other subdomains, and
// the main server with a map of moved pages read in an if, a proxied
// location whose upstream 404s go to a named location, and a health
// check. The plain listener only: nginx's 80-to-443 server and the TLS
// one share the main host's name, which one port cannot hold.
// %[1]s is nginx's address, %[2]s the origin.
const shopSite = `
map $uri $new_uri {
	~*^/old-(.*)$ /new/$1;
	/a /b;
	/sale /offers/sale;
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
	paths := []string{"/", "/a", "/a/", "/old-page", "/OLD-thing/x?y=1", "/sale", "/healthz", "/healthz/", "/products/1?c=2", "/b"}
	report := importAgainstNginx(t, shopSite, []string{"shop.example", "www.shop.example", "m.shop.example", "other.test"}, paths)
	if !strings.Contains(report, "server shop.example: [[server_rewrite]] and [[location]] tables") {
		t.Errorf("shop.example is not written as locations:\n%s", report)
	}
}
