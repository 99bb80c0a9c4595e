package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportApacheReport: every directive that decides a redirect or a
// forward and is not translated is listed with its file:line and why,
// and the import exits 1; a file test in a front controller's rules is
// the site's content, listed as such, and does not fail the import.
func TestImportApacheReport(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"httpd.conf": `RewriteEngine On
RewriteMap lc prg:/usr/local/bin/lower
RewriteRule ^/(.*[A-Z].*)$ /${lc:$1} [R=301,L]
RewriteRule ^/app/(.*) http://127.0.0.1:9000/$1? [P]
RewriteCond %{TIME_HOUR} <06
RewriteRule ^/night$ /closed [R=302]
ProxyPass /api http://127.0.0.1:9001/
<Location /old*>
Redirect /old /new
</Location>
Redirect 301 /kept /k
RewriteCond expr "-R '10.0.0.0/8'"
RewriteRule ^/expr$ /e [R]
`,
		"wp.htaccess": `RewriteEngine On
RewriteBase /
RewriteRule ^index\.php$ - [L]
RewriteCond %{REQUEST_FILENAME} !-f
RewriteCond %{REQUEST_FILENAME} !-d
RewriteRule . /index.php [L]
Redirect 301 /old-post /new-post
`,
	})
	code, _, stderr := runCmd("import", "apache", "-o", filepath.Join(dir, "out"), filepath.Join(dir, "httpd.conf"))
	if code != 1 {
		t.Fatalf("exit %d, want 1 (directives left out)\n%s", code, stderr)
	}
	for _, want := range []string{
		"httpd.conf:2: RewriteMap lc prg:/usr/local/bin/lower: a program answers this map at each lookup, which redirectd cannot run",
		"httpd.conf:3: ${lc:...}: no RewriteMap lc the import reads\n",
		"httpd.conf:4: [P]: forwarded through the location /__apache_forward/apache-1/",
		"httpd.conf:6: %{TIME_HOUR} is not translated\n",
		"httpd.conf:7: ProxyPass /api http://127.0.0.1:9001/: the path and the URL's path must both end in '/' or neither",
		"httpd.conf:8: <Location /old*> holds redirects or rewrites; left out: only server context",
		"1  Redirect",
		"httpd.conf:13: RewriteCond expr \"-R '10.0.0.0/8'\": only a variable compared with a string",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("the report lacks %q:\n%s", want, stderr)
		}
	}
	code, _, stderr = runCmd("import", "apache", "-o", filepath.Join(dir, "wp"), "-htaccess", "/="+filepath.Join(dir, "wp.htaccess"))
	if code != 0 {
		t.Fatalf("exit %d, want 0: a front controller's file tests are the site's content\n%s", code, stderr)
	}
	for _, want := range []string{"served by the original server itself", "wp.htaccess:6: RewriteCond %{REQUEST_FILENAME} !-d: a file test", "1  RewriteRule", "1  Redirect"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("the report lacks %q:\n%s", want, stderr)
		}
	}
}

// TestImportApacheUsage: the arguments the command refuses.
func TestImportApacheUsage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"import", "apache"}, 2, "give the Apache config file(s)"},
		{[]string{"import", "apache", "-htaccess", "x.htaccess"}, 2, "want URLDIR=FILE"},
		{[]string{"import", "apache", "-o", dir, filepath.Join(dir, "missing.conf")}, 1, "no such file"},
	} {
		code, _, stderr := runCmd(tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, %q; want %d and %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
}

// TestImportApacheRefusedStatus: an [R=n] that Apache refuses when it
// reads the config (no status line for n, or no number at all after a
// digit) is a RewriteRule left out, named with its file:line and
// Apache's reason, never read as another status.
func TestImportApacheRefusedStatus(t *testing.T) {
	t.Parallel()
	bin := findApache(t)
	for _, v := range []string{"299", "306", "418", "999", "3xx", "0"} {
		dir := t.TempDir()
		rule := "RewriteEngine On\nRewriteRule ^/x /y [R=" + v + ",L]\n"
		writeFiles(t, dir, map[string]string{"httpd.conf": apacheConf(dir, "127.0.0.1:1", rule), "www/.keep": ""})
		conf := filepath.Join(dir, "httpd.conf")
		out, err := exec.Command(bin, "-t", "-f", conf).CombinedOutput()
		apacheWhy := "invalid HTTP response code '" + v + "' for flag 'R'"
		if err == nil || !strings.Contains(string(out), apacheWhy) {
			t.Errorf("[R=%s]: apache2 -t: %v %s; want it refused: %s", v, err, out, apacheWhy)
		}
		code, _, stderr := runCmd("import", "apache", "-o", filepath.Join(dir, "out"), conf)
		line := strings.Count(apacheConf(dir, "127.0.0.1:1", ""), "\n") + 1
		want := fmt.Sprintf("httpd.conf:%d: RewriteRule: [R=%s]: %s: Apache refuses the rule", line, v, apacheWhy)
		if code != 1 || !strings.Contains(stderr, want) {
			t.Errorf("[R=%s]: import exit %d, want 1 with %q:\n%s", v, code, want, stderr)
		}
	}
}
