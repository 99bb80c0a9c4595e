package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// shapeSite reads testdata/nginx-shapes/NAME, a site in a shape real
// configs have, and makes it the format importAgainstNginx takes: its own
// `%` doubled, NGINX_ADDR and ORIGIN its two arguments.
func shapeSite(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "nginx-shapes", name))
	if err != nil {
		t.Fatal(err)
	}
	s := strings.ReplaceAll(string(b), "%", "%%")
	return strings.NewReplacer("NGINX_ADDR", "%[1]s", "ORIGIN", "%[2]s").Replace(s)
}

// shapePaths adds to each path the variants a client sends that the
// harness does not: upper case, a trailing slash added or taken off, a
// query, a space and an escaped non-ASCII letter (a raw one is 400 to
// redirectd's HTTP parser, by design, where nginx takes it).
func shapePaths(paths ...string) []string {
	var all []string
	for _, p := range paths {
		all = append(all, p, strings.ToUpper(p), p+"?a=1&b=%20")
		if q := strings.IndexByte(p, '?'); q < 0 {
			if strings.HasSuffix(p, "/") && len(p) > 1 {
				all = append(all, strings.TrimSuffix(p, "/"))
			} else {
				all = append(all, p+"/")
			}
			all = append(all, p+"%20x", p+"/caf%C3%A9")
		}
	}
	return all
}

// TestImportNginxShapeWordPress: a WordPress site (a default server
// answering 444, the www host folded by an if on $http_host, permalinks
// by try_files to index.php, PHP proxied, cached static files, an exact
// favicon) answers as nginx does.
func TestImportNginxShapeWordPress(t *testing.T) {
	t.Parallel()
	paths := shapePaths("/", "/wp-admin", "/wp-admin/", "/feed", "/feed/", "/favicon.ico", "/robots.txt", "/.htaccess",
		"/2024/05/hello-world/", "/index.php", "/wp-login.php", "/wp-content/themes/a/style.css", "/img/logo.PNG",
		"/wp-content/uploads/2024/x.jpg", "/wp-content/uploads/evil.php", "/?p=12", "/page.php/x", "/404.html", "/xmlrpc.php",
		"/files/a.php", "/old-blog", "/old-blog/x?y=1", "/shop/index.php", "/index.php/x", "/config.php", "/api/users?page=2")
	importAgainstNginx(t, shapeSite(t, "wordpress.conf"), []string{"blog.example", "www.blog.example", "WWW.Blog.Example", "app.example", "other.test"}, paths)
}

// TestImportNginxShapeTenants: a redirect host for tenants (a regex
// server name with a named capture, a hostnames map of retired domains,
// a map on $request_uri with named captures, $arg_lang conditions, a
// ^~ static location and a 404 from upstream sent to a named location)
// answers as nginx does.
func TestImportNginxShapeTenants(t *testing.T) {
	t.Parallel()
	paths := shapePaths("/", "/?lang=de", "/?lang=FR", "/x?lang=es", "/blog/hello", "/blog/hello/", "/blog/hello?ref=rss",
		"/blog", "/blog/a/b", "/news/2023/04/launch", "/news/2023/4/launch", "/static/app.css", "/static/x.php",
		"/products/1", "/search?q=x", "/a%2Fb?lang=de", "/node/12", "/about.html", "/sites/default/files/styles/a.jpg",
		"/.well-known/acme-challenge/tok", "/.git/config", "/index.php?q=x", "/p/12-blue-shirt", "/p/12", "/p/x", "/a//", "/a/?x=1")
	importAgainstNginx(t, shapeSite(t, "tenants.conf"), []string{"brand.example", "acme.tenants.example", "a.b.tenants.example",
		"old-brand.example", "www.old-brand.example", "legacy.example", "x.partners.example", "shop.brand.example", "go.brand.example", "cms.brand.example", "cms-old.brand.example", "www.brand.example", "www.x.tenants.example", "WWW.Acme.Example", "shop2.brand.example", "unknown.test"}, paths)
}

// TestImportNginxShapeDocs: a versioned docs site (rewrite ... last
// passing between locations, nested locations, rewrite ... break with a
// proxy_pass URI part, a rewrite loop nginx ends with 500,
// absolute_redirect off, port_in_redirect off and merge_slashes off)
// answers as nginx does.
func TestImportNginxShapeDocs(t *testing.T) {
	t.Parallel()
	paths := shapePaths("/", "/v1", "/v2", "/v3", "/docs/intro", "/latest/guide/", "/latest/guide", "/v1/install", "/v1/install.html",
		"/v1/guide/", "/v2/guide.html", "/v2/api/Client", "/v3/guide/index.html", "/v3/reference/client", "/v3/a//b",
		"/loop/a", "/assets/app.js", "/other/page", "/v2/intro.pdf", "/v3/guide/a.pdf", "/api", "/api/users?id=1", "/apix",
		"/search/hello%20world", "/search/a/b?x=1", "/home", "/v3/img/a.png", "/download/a%20b.zip", "/DOWNLOAD/x/y",
		"/guide/index.html", "/api/index.html", "/blog/2024/05/post%20one", "/blog/other")
	importAgainstNginx(t, shapeSite(t, "docs.conf"), []string{"docs.example", "other.test"}, paths)
}
