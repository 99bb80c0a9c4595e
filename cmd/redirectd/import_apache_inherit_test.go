package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestImportApacheInherit: RewriteOptions Inherit and InheritBefore in
// sub-directories' .htaccess files (the parent's rules after or before
// their own, matched from the sub-directory), and in a virtual host (the
// main server's rules after its own; a virtual host without
// RewriteEngine takes the main server's), against a real Apache.
func TestImportApacheInherit(t *testing.T) {
	t.Parallel()
	t.Run("directories", func(t *testing.T) {
		files := func(dir, addr string) map[string]string {
			return map[string]string{
				"httpd.conf":              apacheConf(dir, addr, ""),
				"www/.htaccess":           "RewriteEngine On\nRewriteRule ^root-only$ /r1 [R=302,L]\nRewriteRule ^(.*)/legacy$ /legacy-root/$1 [R=302,L]\n",
				"www/blog/.htaccess":      "RewriteOptions Inherit\nRewriteRule ^post/(.*)$ /articles/$1 [R=301,L]\nRewriteRule ^a/legacy$ /blog-own [R=302,L]\n",
				"www/shop/.htaccess":      "RewriteOptions InheritBefore\nRewriteRule ^(.*)/legacy$ /shop-legacy/$1 [R=302,L]\nRewriteRule ^root-only$ /shop-own [R=302,L]\n",
				"www/docs/.htaccess":      "RewriteEngine On\nRewriteRule ^root-only$ /docs-own [R=302,L]\n",
				"www/blog/deep/.htaccess": "RewriteRule ^x$ /deep-x [R=302,L]\n",
			}
		}
		paths := []string{"/root-only", "/blog/root-only", "/blog/post/x", "/blog/a/legacy", "/blog/b/legacy", "/shop/a/legacy", "/shop/root-only",
			"/docs/root-only", "/docs/a/legacy", "/a/legacy", "/blog/deep/x", "/blog/deep/root-only", "/blog/deep/post/y"}
		apacheRoundTripReport(t, files, []string{"tree=www"}, []string{"example.test"}, paths, nil, false, 3)
	})
	t.Run("virtual hosts", func(t *testing.T) {
		files := func(dir, addr string) map[string]string {
			_, port, _ := strings.Cut(addr, ":")
			server := fmt.Sprintf(`RewriteEngine On
RewriteRule ^/main-rule$ /from-main [R=302,L]
RewriteRule ^/vh$ /vh-main [R=302,L]
<VirtualHost *:%[1]s>
  ServerName inherit.test
  RewriteOptions Inherit
  RewriteRule ^/vh$ /vh-own [R=302,L]
</VirtualHost>
<VirtualHost *:%[1]s>
  ServerName before.test
  RewriteOptions InheritBefore
  RewriteRule ^/vh$ /vh-before [R=302,L]
</VirtualHost>
<VirtualHost *:%[1]s>
  ServerName plain.test
  RewriteRule ^/vh$ /vh-plain [R=302,L]
</VirtualHost>
`, port)
			return map[string]string{"httpd.conf": apacheConf(dir, addr, server), "www/index.html": "home\n"}
		}
		apacheRoundTripReport(t, files, nil, []string{"inherit.test", "before.test", "plain.test"}, []string{"/main-rule", "/vh", "/vh?q=1", "/other"}, nil, false, 3)
	})
}
