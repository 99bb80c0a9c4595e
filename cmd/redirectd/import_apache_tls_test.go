package main

import (
	"fmt"
	"strings"
	"testing"
)

// apacheVhostPair is a plain and a TLS virtual host, each with body
// (a format with the TLS lines at %[1]s for the TLS one).
func apacheVhostPair(e apacheEnv, plain, secure string) string {
	_, pp, _ := strings.Cut(e.addr, ":")
	_, tp, _ := strings.Cut(e.tlsAddr, ":")
	tlsLines := fmt.Sprintf("  SSLEngine on\n  SSLCertificateFile %s\n  SSLCertificateKeyFile %s\n", e.cert, e.key)
	return apacheTLSConf(e) + "<VirtualHost *:" + pp + ">\n" + plain + "</VirtualHost>\n<VirtualHost *:" + tp + ">\n" + tlsLines + secure + "</VirtualHost>\n"
}

// TestImportApacheTLS: certbot's layout, a plain virtual host sending
// every path to https and a TLS one of the same names with the site's
// rules and %{HTTPS}: each answers its own port's requests (redirectd
// by $scheme), asked over both of Apache's ports and both of
// redirectd's.
func TestImportApacheTLS(t *testing.T) {
	t.Parallel()
	names := "  ServerName site.test\n  ServerAlias www.site.test\n  RewriteEngine On\n"
	apacheRoundTripEnv(t, func(e apacheEnv) map[string]string {
		return map[string]string{
			"www/index.html": "home\n",
			"httpd.conf": apacheConf(e.dir, e.addr, apacheVhostPair(e,
				names+"  RewriteRule ^/(.*)$ https://site.test/$1 [R=301,L]\n",
				names+"  RewriteCond %{HTTP_HOST} ^www\\. [NC]\n  RewriteRule ^/(.*)$ https://site.test/$1 [R=301,L]\n"+
					"  RewriteCond %{HTTPS} on\n  RewriteRule ^/secure-only$ /yes [R=302]\n  RewriteCond %{HTTPS} off\n  RewriteRule ^/plain-only$ /no [R=302]\n"+
					"  RewriteCond %{REQUEST_SCHEME} =https\n  RewriteRule ^/scheme$ /%{REQUEST_SCHEME} [R=302]\n  Redirect 301 /old /new\n")),
		}
	}, nil, []string{"site.test", "www.site.test", "other.test"},
		[]string{"/", "/x?y=1", "/old", "/old/a", "/secure-only", "/plain-only", "/scheme", "/nothing"}, nil, false, 3, true)
}
