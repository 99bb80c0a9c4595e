package main

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redirectd/redirectd/config/apache"
	"github.com/redirectd/redirectd/config/importer"
	"github.com/redirectd/redirectd/engine/testport"
	"github.com/redirectd/redirectd/internal/testutil"
)

// findApache returns Debian's apache2 binary, or ends the test saying
// how to install it.
func findApache(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"apache2", "/usr/sbin/apache2"} {
		if bin, err := exec.LookPath(p); err == nil {
			if _, err := os.Stat("/usr/lib/apache2/modules/mod_rewrite.so"); err == nil {
				return bin
			}
		}
	}
	testutil.Missing(t, "apache2 is not installed (apt-get install apache2); the comparison with a real Apache is skipped")
	return ""
}

// apacheConf is the main file of a test Apache serving dir/www on addr,
// with mod_rewrite and mod_alias, .htaccess files read (AllowOverride
// All), and server the fixture's server-context directives.
func apacheConf(dir, addr, server string) string {
	return fmt.Sprintf(`ServerRoot %[1]s
PidFile %[1]s/httpd.pid
Listen %[2]s
LoadModule mpm_event_module /usr/lib/apache2/modules/mod_mpm_event.so
LoadModule authz_core_module /usr/lib/apache2/modules/mod_authz_core.so
LoadModule rewrite_module /usr/lib/apache2/modules/mod_rewrite.so
LoadModule alias_module /usr/lib/apache2/modules/mod_alias.so
LoadModule proxy_module /usr/lib/apache2/modules/mod_proxy.so
LoadModule proxy_http_module /usr/lib/apache2/modules/mod_proxy_http.so
ErrorLog %[1]s/error.log
ServerName example.test
DocumentRoot %[1]s/www
<Directory %[1]s/www>
    AllowOverride All
    Require all granted
</Directory>
%[3]s
`, dir, addr, server)
}

// runApache runs apache2 on conf in the foreground until the test ends.
func runApache(t *testing.T, bin, dir, conf string, addrs ...string) {
	t.Helper()
	for d := dir; d != filepath.Dir(d) && strings.HasPrefix(d, os.TempDir()+string(filepath.Separator)); d = filepath.Dir(d) {
		os.Chmod(d, 0o755)
	}
	// Apache forks its workers: killing the parent alone leaves them
	// running. It runs in a process group of its own, stopped whole.
	cmd := exec.Command(bin, "-f", conf, "-DFOREGROUND")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stderr testutil.LockedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		// SIGTERM: the parent stops its workers, then exits; the
		// group's SIGKILL after it takes any left.
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
		}
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
	})
	for _, a := range addrs {
		if !testutil.Eventually(testutil.Patience, func() bool {
			c, err := net.Dial("tcp", a)
			if err == nil {
				c.Close()
			}
			return err == nil
		}) {
			t.Fatalf("apache2 does not listen on %s: %s", a, stderr.String())
		}
	}
}

var portInURL = regexp.MustCompile(`^(https?://[^/:]+):\d+`)
var hexEscape = regexp.MustCompile(`%[0-9a-fA-F]{2}`)

// sameAsClient reads a Location as a client compares it: the port
// aside (each server names its own), escapes' hex without case
// (Apache writes %c3, redirectd %C3) and a space as the %20 a client
// sends for it (Apache's RedirectMatch puts a group's decoded space in
// the query as it is; redirectd's Locations are made safe).
func sameAsClient(loc string) string {
	loc = strings.ReplaceAll(portInURL.ReplaceAllString(loc, "$1"), " ", "%20")
	return hexEscape.ReplaceAllStringFunc(loc, strings.ToUpper)
}

// apacheFixture is every construct the import translates: server
// context mod_rewrite and mod_alias, a DocumentRoot .htaccess and one in
// a sub-directory.
var apacheFixture = struct {
	server, root, sub string
	hosts, paths      []string
}{
	server: `RewriteEngine On
RewriteRule ^/old/(.*)$ /new/$1 [R=301,L]
RewriteRule ^/shout/(\w+)$ https://shout.example/$1 [R=302,NC]
RewriteCond %{HTTP_HOST} ^www\.(.+)$ [NC]
RewriteRule ^/www/(.*)$ http://%1/$1 [R=301,L]
RewriteCond %{QUERY_STRING} (^|&)id=(\d+)(&|$)
RewriteRule ^/article\.php$ /articles/%2? [R=301,L]
RewriteCond %{REQUEST_METHOD} =POST [OR]
RewriteCond %{HTTP_HOST} ^www\. [NC]
RewriteRule ^/either$ /either-target [R=302]
RewriteCond %{HTTP_HOST} !^www\.
RewriteRule ^/notwww$ /notwww-target [R=301]
RewriteRule ^/gone$ - [G]
RewriteRule ^/forbid - [F]
RewriteRule ^/qsd/(.*)$ /q/$1 [R=301,QSD]
RewriteRule ^/qsa/(.*)$ /q/$1?a=1 [R=301,QSA]
RewriteRule ^/see$ /seen [R=303]
RewriteRule ^/t307/(.*)$ /t/$1 [R=307,L]
RewriteRule ^/skip$ - [S=1]
RewriteRule ^/skip$ /skipped [R,L]
RewriteRule ^/chain$ - [C]
RewriteRule ^(.*)$ /chained [R=301,L]
RewriteRule ^/alpha/(.*)$ /beta/$1
RewriteRule ^/beta/(.*)$ /gamma/$1 [R=301,L]
RewriteRule ^/pt/(.*)$ /red/$1 [PT]
RewriteRule ^/pt/(.*)$ /never/$1 [R=301]
RewriteRule ^/co/(.*)$ /cookie/$1 [R=302,CO=seen:1:example.test]
RewriteRule ^/env$ - [E=moved:yes]
RewriteCond %{ENV:moved} =yes
RewriteRule ^/env$ /env-target [R=301,L]
RewriteMap moved txt:moved.txt
RewriteMap pick rnd:pick.txt
RewriteRule ^/moved/(.*)$ ${moved:$1|/not-found} [R=301,L]
RewriteCond %{QUERY_STRING} ^k=(.+)$
RewriteRule ^/pick$ /p/${pick:%1}/${moved:old-a} [R=302,L]
Redirect 301 /red http://ex.test/target
Redirect /tmp302 /elsewhere
RedirectMatch 302 ^/rm/(.*)\.html$ http://ex.test/rm/$1
RedirectPermanent /perm /permanent-target
RedirectTemp /temp http://ex.test/temp
Redirect gone /dead
Redirect seeother /other /other-target
`,
	root: `RewriteEngine On
RewriteBase /
RewriteRule ^ht/(.*)$ dest/$1 [R=301,L]
RewriteCond %{HTTPS} off
RewriteRule ^secure/(.*)$ https://%{HTTP_HOST}/secure/$1 [R=301,L]
RewriteRule ^Case/(.*)$ /case-target/$1 [NC,R=302,L]
Redirect 301 /hr http://ex.test/hr
Redirect 301 /sub2/parent /from-parent
RewriteRule ^sub2/rw$ /root-rw [R=301,L]
RewriteRule ^sub3/rw$ /root-rw [R=301,L]
`,
	sub: `RewriteEngine On
RewriteRule ^(.*)\.php$ /sub/$1.html [R=301,L]
Redirect 302 /sub/away http://ex.test/away
`,
	hosts: []string{"example.test", "www.example.test"},
	paths: []string{"/old/a", "/old/a/b.html", "/old/", "/OLD/a", "/old//x", "/old/a%20b", "/old/caf%C3%A9", "/old/a+b", "/old/a?x=1",
		"/shout/abc", "/SHOUT/Abc?z=1", "/shout/a/b", "/www/p?q=1", "/www/",
		"/article.php?id=12", "/article.php?a=b&id=7&c=d", "/article.php?id=x", "/article.php",
		"/either", "/notwww", "/notwww?x", "/gone", "/gone/", "/forbid", "/forbidden/x",
		"/qsd/a?x=1", "/qsd/a", "/qsa/a?x=1", "/qsa/a", "/see", "/see?x=1", "/t307/a?b=c",
		"/skip", "/chain", "/chain?x", "/alpha/z", "/alpha/z?q=1", "/beta/z", "/env",
		"/red", "/red/", "/red/a/b?x=1", "/redx", "/red//y", "/RED/a", "/red/a%20b",
		"/tmp302", "/tmp302/x", "/rm/a.html", "/rm/a/b.html?q=1", "/rm/a.htm", "/perm/x", "/temp?x=1", "/dead", "/dead/x",
		"/other", "/other/y",
		"/ht/x", "/ht/x?q=1", "/HT/x", "/secure/a", "/case/A", "/CASE/b?x=1", "/hr", "/hr/x?q",
		"/sub/page.php", "/sub/a/b.php?x=1", "/sub/page.html", "/sub/away", "/sub/away/x", "/sub/PAGE.PHP",
		"/nothing", "/", "/a%2Fb",
		"/old/a%3Fb", "/old/a%25b", "/old/a%23b", "/old/%7Euser", "/old/a%2fb", "/old/./x", "/old/y/../x", "/old/a;b", "/old/a[1]",
		"/red/a%3Fb", "/red/a%25b", "/red/caf%C3%A9", "/rm/caf%C3%A9.html", "/rm/a%25b.html", "/ht/a%20b", "/ht/a%25b",
		"/moved/old-a", "/moved/OLD-A", "/moved/Old-B", "/moved/old-b", "/moved/none", "/moved/page-7.html", "/moved/page-29.html?x=1",
		"/pt/a", "/pt/a/b?x=1", "/co/c", "/co/c?d=e",
		"/sub", "/sub2", "/sub3", "/sub3?x=1", "/sub3/", "/sub3/?x=1",
		"/sub2/x", "/sub2/x/y", "/sub2/parent", "/sub2/rw", "/sub3/y", "/sub3/rw", "/sub3/parent",
		"/pick?k=k1", "/pick?k=K1", "/pick?k=K2", "/pick?k=zz",
		"/qsa/a?x=%20", "/qsd/a%20b?x=1", "/see?a=%20", "/t307/a%20b", "/old/a?x=%20&y=%2F"},
}

// apacheKnownDiffs are the fixture's requests answered differently, each
// for a reason config/apache/README.md gives; the test fails when one is
// answered alike, so that the list stays true.
var apacheKnownDiffs = map[string]string{}

// movedMap is a txt: RewriteMap long enough to be written to a file.
func movedMap() string {
	var b strings.Builder
	b.WriteString("# moved pages\nold-a /new-a\nOld-B http://ex.test/b\n\n")
	for i := range 30 {
		fmt.Fprintf(&b, "page-%d.html /pages/%d   # trailing words are ignored\n", i, i)
	}
	return b.String()
}

// TestImportApacheRoundTrip serves the fixture with a real Apache and
// its import with redirectd, and asks both every path on both hosts:
// status and Location (port aside) must agree.
func TestImportApacheRoundTrip(t *testing.T) {
	t.Parallel()
	f := apacheFixture
	apacheRoundTrip(t, func(dir, addr string) map[string]string {
		return map[string]string{
			"httpd.conf":        apacheConf(dir, addr, f.server),
			"www/.htaccess":     f.root,
			"www/sub/.htaccess": f.sub,
			// A sub-directory's Redirects come before its parent's;
			// its rules replace the parent's, RewriteEngine inherited.
			"www/sub2/.htaccess": "Redirect 301 /sub2/x /sub2-x\n",
			"www/sub3/.htaccess": "RewriteRule ^y$ /sub3-y [R=301,L]\nRewriteRule ^$ /sub3-index [R=302,L]\n",
			"moved.txt":          movedMap(),
			"pick.txt":           "# rnd: with one value each\nk1 one\nK2 two\n",
		}
	}, []string{"/=www/.htaccess", "/sub=www/sub/.htaccess", "/sub2=www/sub2/.htaccess", "/sub3=www/sub3/.htaccess"}, f.hosts, f.paths, apacheKnownDiffs)
}

// TestImportApacheVirtualHosts: virtual hosts read through an Include
// glob, chosen by ServerName and ServerAlias (wildcards), the first
// answering unknown hosts; the main server's Redirects inherited, its
// RewriteRules not; the DocumentRoot's .htaccess for every host.
func TestImportApacheVirtualHosts(t *testing.T) {
	t.Parallel()
	hosts := []string{"main.test", "www.main.test", "a.wild.test", "a.b.wild.test", "other.test", "w1.other.test", "wxy.other.test", "unknown.test"}
	paths := []string{"/", "/a-old", "/a-old/x?q=1", "/b-old", "/b-old/y", "/everywhere", "/everywhere/z", "/ht-all", "/main-only", "/x"}
	apacheRoundTrip(t, func(dir, addr string) map[string]string {
		_, port, _ := strings.Cut(addr, ":")
		return map[string]string{
			"httpd.conf": apacheConf(dir, addr, "Redirect 301 /everywhere /here\nRewriteEngine On\nRewriteRule ^/main-only$ /not-inherited [R=301]\nInclude sites/*.conf\n"),
			"sites/a.conf": "<VirtualHost *:" + port + ">\n  ServerName main.test\n  ServerAlias www.main.test *.wild.test\n  RewriteEngine On\n" +
				"  RewriteCond %{HTTP_HOST} ^www\\.main\\.test$ [NC]\n  RewriteRule ^/(.*)$ http://main.test/$1 [R=301,L]\n  Redirect 301 /a-old /a-new\n</VirtualHost>\n",
			"sites/b.conf":  "<VirtualHost *:" + port + ">\n  ServerName other.test\n  ServerAlias w?.other.test\n  Redirect 302 /b-old http://other.test/b-new\n</VirtualHost>\n",
			"www/.htaccess": "Redirect 301 /ht-all /from-htaccess\n",
		}
	}, []string{"/=www/.htaccess"}, hosts, paths, nil)
}

// apacheRoundTrip writes the files files gives for a test folder and
// address, runs apache2 on its httpd.conf, imports it with the
// .htaccess files named (URLDIR=FILE, FILE in the folder; tree=DIR for
// -htaccess-tree), serves the
// import, and compares every host and path; known are the paths
// answered differently, each with its reason.
func apacheRoundTrip(t *testing.T, files func(dir, addr string) map[string]string, htaccess, hosts, paths []string, known map[string]string) {
	t.Helper()
	apacheRoundTripReport(t, files, htaccess, hosts, paths, known, false, 3)
}

// apacheRoundTripReport is apacheRoundTrip; with leftOut, an import that
// leaves directives out (exit 1, each listed) is compared too: their
// requests are answered by what redirectd has, and must still agree
// where Apache's answer is no redirect.
//
// At least 1/share of the requests must be redirects in Apache's
// answers, so that a fixture exercises the import.
func apacheRoundTripReport(t *testing.T, files func(dir, addr string) map[string]string, htaccess, hosts, paths []string, known map[string]string, leftOut bool, share int) {
	t.Helper()
	apacheRoundTripEnv(t, func(e apacheEnv) map[string]string { return files(e.dir, e.addr) }, htaccess, hosts, paths, known, leftOut, share, false)
}

// apacheEnv is where a test Apache runs: its folder, its plain address
// and, for a TLS test, its TLS address and a certificate for the test's
// hosts.
type apacheEnv struct {
	dir, addr, tlsAddr, cert, key string
}

// apacheTLSConf is the TLS listener of a test Apache: mod_ssl loaded,
// its port listening for https.
func apacheTLSConf(e apacheEnv) string {
	return fmt.Sprintf("LoadModule ssl_module /usr/lib/apache2/modules/mod_ssl.so\nListen %s https\n", e.tlsAddr)
}

// apacheRoundTripEnv is apacheRoundTripReport; with tls, Apache and
// redirectd also listen on TLS (the certificate's files in e) and every
// request is asked over both.
func apacheRoundTripEnv(t *testing.T, files func(e apacheEnv) map[string]string, htaccess, hosts, paths []string, known map[string]string, leftOut bool, share int, tls bool) {
	t.Helper()
	bin := findApache(t)
	dir := t.TempDir()
	addr := testport.Free(t)
	e := apacheEnv{dir: dir, addr: addr}
	if tls {
		e.tlsAddr = testport.Free(t)
		e.cert, e.key = writeTestCert(t, dir, hosts...)
	}
	writeFiles(t, dir, files(e))
	conf := filepath.Join(dir, "httpd.conf")
	out := filepath.Join(dir, "out")
	args := []string{"import", "apache", "-o", out}
	for _, h := range htaccess {
		url, file, _ := strings.Cut(h, "=")
		if url == "tree" {
			args = append(args, "-htaccess-tree", filepath.Join(dir, file))
			continue
		}
		args = append(args, "-htaccess", url+"="+filepath.Join(dir, file))
	}
	code, _, stderr := runCmd(append(args, conf)...)
	t.Logf("import:\n%s", stderr)
	if code != 0 && !(leftOut && code == 1 && strings.Contains(stderr, "left out")) {
		t.Fatalf("import: exit %d", code)
	}
	if !strings.Contains(stderr, "self-check: ") || strings.Contains(stderr, importer.Differs) {
		t.Errorf("the import's self-check did not run, or found the written config answering otherwise than its model of Apache")
	}
	model := apacheModel(t, conf, args)
	if strings.Contains(stderr, "not load") {
		t.Errorf("the import wrote steps that do not load (a bug of the import):\n%s", stderr)
	}
	if tls {
		runApache(t, bin, dir, conf, addr, e.tlsAddr)
	} else {
		runApache(t, bin, dir, conf, addr)
	}
	srvAddr, srvTLS := serveImportTLS(t, out, e)
	type front struct{ scheme, apache, redirectd string }
	fronts := []front{{"http", addr, srvAddr}}
	if tls {
		fronts = append(fronts, front{"https", "tls://" + e.tlsAddr, "tls://" + srvTLS})
	}
	redirects, asked, modeled := 0, 0, 0
	// known["http:*"] (or "https:*"): the scheme's answers differ,
	// for the reason given (a real site's construct the import leaves
	// out, which its report lists); it must differ at least once.
	schemeDiffers := map[string]bool{}
	for _, f := range fronts {
		for _, host := range hosts {
			for _, p := range paths {
				asked++
				base := f.scheme + "://" + host + p
				as, al := answerAny(t, f.apache, host, p, base)
				rs, rl := answerAny(t, f.redirectd, host, p, base)
				if testing.Verbose() {
					t.Logf("%s %s: %d %s", host, p, as, al)
				}
				// A 403 or 410 is a rule's answer too ([F], [G],
				// Redirect gone): a real site's rules may only refuse.
				if as >= 300 && as < 400 || as == 403 || as == 410 {
					redirects++
				}
				differ := as != rs || sameAsClient(al) != sameAsClient(rl)
				// The self-check's model of Apache, where it can say,
				// must answer as the real one.
				want, ok := model.Expect(host, p, f.scheme == "https")
				if ok {
					modeled++
				}
				if ok && !strings.Contains(p, "|") && !apache.SameAnswer(want, apacheAnswerString(as, al)) {
					t.Errorf("%s Host %s, %s: apache %d %q, the self-check's model of it %s", f.scheme, host, p, as, al, want)
				}
				if _, ok := known[f.scheme+":*"]; ok {
					schemeDiffers[f.scheme] = schemeDiffers[f.scheme] || differ
					continue
				}
				if why, ok := known[p]; ok {
					if !differ {
						t.Errorf("Host %s, %s: the known difference (%s) is gone: take it out of the test's list and config/apache/README.md", host, p, why)
					}
					continue
				}
				if differ {
					t.Errorf("%s Host %s, %s: apache %d %q, redirectd %d %q", f.scheme, host, p, as, al, rs, rl)
				}
			}
		}
	}
	for _, f := range fronts {
		if why, ok := known[f.scheme+":*"]; ok && !schemeDiffers[f.scheme] {
			t.Errorf("%s: the known difference (%s) is gone: take it out of the list", f.scheme, why)
		}
	}
	t.Logf("%d requests compared, %d redirects; the self-check's model answered %d", asked, redirects, modeled)
	if redirects < asked/share {
		t.Errorf("apache redirected or refused only %d of %d requests: the fixture does not exercise the import", redirects, asked)
	}
}

// apacheModel translates the import's input again, in the test, for
// the self-check's model of Apache (Result.Expect); args are the
// import's, without the config.
func apacheModel(t *testing.T, conf string, args []string) *apache.Result {
	t.Helper()
	dirs, err := apache.ParseFile(conf)
	if err != nil {
		t.Fatal(err)
	}
	var hts []apache.HTAccess
	for i := 0; i+1 < len(args); i++ {
		switch args[i] {
		case "-htaccess":
			url, file, _ := strings.Cut(args[i+1], "=")
			hts = append(hts, apache.HTAccess{Dir: url, File: file})
		case "-htaccess-tree":
			found, err := apache.FindHTAccess(args[i+1])
			if err != nil {
				t.Fatal(err)
			}
			hts = append(hts, found...)
		}
	}
	for i, h := range hts {
		if hts[i].Dirs, err = apache.ParseFile(h.File, h.File); err != nil {
			t.Fatal(err)
		}
	}
	return apache.Translate(dirs, hts)
}

// apacheAnswerString is an answer of answerAny as Result.Expect says
// one.
func apacheAnswerString(status int, loc string) string {
	switch {
	case status >= 300 && status < 400:
		return fmt.Sprintf("%d %s", status, loc)
	case status == 403 || status == 410:
		return fmt.Sprint(status)
	}
	return "no redirect"
}

// serveImport serves DIR/redirectd.toml with the real binary and
// returns its address.
func serveImport(t *testing.T, out string) string {
	t.Helper()
	addr, _ := serveImportTLS(t, out, apacheEnv{})
	return addr
}

// serveImportTLS is serveImport; where e has a TLS address, redirectd
// also listens on TLS with e's certificate, and its address is the
// second result.
func serveImportTLS(t *testing.T, out string, e apacheEnv) (string, string) {
	t.Helper()
	body, err := os.ReadFile(filepath.Join(out, "redirectd.toml"))
	if err != nil {
		t.Fatal(err)
	}
	addr, admin := testport.Free(t), testport.Free(t)
	served := filepath.Join(out, "served.toml")
	body = []byte(strings.Replace(string(body), "[server]\n", fmt.Sprintf("[server]\nlisten = %q\n", addr), 1))
	head := fmt.Sprintf("[admin]\nlisten = %q\n[access_log]\nenabled = false\n", admin)
	tlsAddr := ""
	if e.tlsAddr != "" {
		tlsAddr = testport.Free(t)
		head += fmt.Sprintf("[tls]\nlisten = %q\n[[tls.certificate]]\ncert = %q\nkey = %q\n", tlsAddr, e.cert, e.key)
	}
	os.WriteFile(served, append([]byte(head), body...), 0o644)
	stderr := startNode(t, nodeConfig{File: served}).stderr
	if _, _, err := firstAnswer(addr, "/", time.Now().Add(10*time.Second)); err != nil {
		t.Fatalf("redirectd does not answer: %v\n%s", err, stderr.String())
	}
	if tlsAddr != "" {
		waitListening(t, "redirectd's TLS listener", stderr, tlsAddr)
	}
	return addr, tlsAddr
}

// answerAny is answer, keeping 403 and 410 (mod_rewrite's [F] and [G],
// mod_alias's gone); any other status that is not a redirect is 0.
func answerAny(t *testing.T, addr, host, target, base string) (int, string) {
	t.Helper()
	var c net.Conn
	var err error
	if a, ok := strings.CutPrefix(addr, "tls://"); ok {
		c, err = tls.DialWithDialer(&net.Dialer{Timeout: testutil.Patience}, "tcp", a, &tls.Config{ServerName: host, InsecureSkipVerify: true})
	} else {
		c, err = net.DialTimeout("tcp", addr, testutil.Patience)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(testutil.Patience))
	// A target may carry header fields after '|': "/a.jpg|Referer: x".
	target, fields, _ := strings.Cut(target, "|")
	if fields != "" {
		fields = strings.ReplaceAll(fields, "|", "\r\n") + "\r\n"
	}
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\n%sConnection: close\r\n\r\n", target, host, fields)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("%s %s: %v", host, target, err)
	}
	resp.Body.Close()
	base, _, _ = strings.Cut(base, "|")
	switch {
	case resp.StatusCode == 403 || resp.StatusCode == 410:
		return resp.StatusCode, ""
	case resp.StatusCode < 300 || resp.StatusCode > 399:
		return 0, ""
	}
	return resp.StatusCode, resolve(t, base, resp.Header.Get("Location"))
}

// TestImportApacheErrorDocument: ErrorDocument 404 with a URL is
// Apache's 302 to it for every path the site has no file for, written as
// a fallback rule (a redirectd without [upstream] answers every miss with
// it, as Apache with no files does); one with a local page is the
// site's.
func TestImportApacheErrorDocument(t *testing.T) {
	t.Parallel()
	paths := []string{"/a", "/a/b?x=1", "/nothing", "/x/y?q=1", "/A"}
	apacheRoundTrip(t, func(dir, addr string) map[string]string {
		return map[string]string{"www/index.html": "home\n", "httpd.conf": apacheConf(dir, addr, "Redirect 301 /a /b\nErrorDocument 404 http://ex.test/missing?from=apache\nErrorDocument 500 /oops.html\n")}
	}, nil, []string{"example.test", "other.test"}, paths, nil)
}

// TestImportApacheDirectory: <Directory> sections under the
// DocumentRoot are per-directory configs, as a .htaccess is; where both
// exist for one folder, the .htaccess's RewriteRules replace the
// section's and its Redirects come first.
func TestImportApacheDirectory(t *testing.T) {
	t.Parallel()
	paths := []string{"/d/x", "/d/x?q=1", "/d/y", "/d/r", "/d/r/s", "/d2/x", "/d2/z", "/d2/r", "/d2/h", "/d3/x", "/x"}
	apacheRoundTrip(t, func(dir, addr string) map[string]string {
		return map[string]string{
			"httpd.conf": apacheConf(dir, addr, "<Directory "+dir+"/www/d>\n  RewriteEngine On\n  RewriteRule ^x$ /d-x [R=301,L]\n  Redirect 301 /d/r /d-r\n</Directory>\n"+
				"<Directory "+dir+"/www/d2>\n  RewriteEngine On\n  RewriteRule ^x$ /from-section [R=301,L]\n  Redirect 301 /d2/r /section-r\n  Redirect 301 /d2/h /section-h\n</Directory>\n"),
			"www/d/.keep":      "",
			"www/d2/.htaccess": "RewriteEngine On\nRewriteRule ^z$ /from-htaccess [R=302,L]\nRedirect 302 /d2/h /htaccess-h\n",
		}
	}, []string{"/d2=www/d2/.htaccess"}, []string{"example.test"}, paths, nil)
}

// TestImportApacheRedirectRun: a long run of Redirect lines is one map
// and a walk up the path's segments; the answers must be Apache's,
// whose first covering line wins: a later, deeper line under an earlier
// one never answers; a path with a trailing slash covers only below it.
func TestImportApacheRedirectRun(t *testing.T) {
	t.Parallel()
	var lines strings.Builder
	var paths []string
	codes := []string{"301", "302", "permanent", "temp", "seeother", "307", "308"}
	for i := range 30 {
		fmt.Fprintf(&lines, "Redirect %s /run/p%d /to/%d\n", codes[i%len(codes)], i, i)
		paths = append(paths, fmt.Sprintf("/run/p%d", i))
	}
	lines.WriteString("Redirect 301 /run/p3/deeper /never\nRedirect 301 /run/dir/ https://ex.test/dir-new/\nRedirect 301 /run/dir /dir-exact\n" +
		"Redirect 301 /run/a/b/c/d /deep\nRedirect 301 /run/sl/ /slash\nRedirect 301 /run/qq /qt?a=1\nRedirect 302 /run /catch-all\nRedirectPermanent /run2/x/ /x2/\nRedirectTemp /run2/y http://ex.test/y\n")
	paths = append(paths, "/run/sl/d", "/run/sl/", "/run/sl", "/run/p3/deeper", "/run/p3/deeper/x", "/run/dir/", "/run/dir/a?b=c", "/run/dir", "/run/dirx", "/run/a/b/c/d", "/run/a/b/c/d/e/f/g/h/i/j?k",
		"/run/a/b/c", "/run", "/run/", "/run/zzz", "/runx", "/run2/x", "/run2/x/", "/run2/x/y/z", "/run2/y/", "/run2/y?q=1", "//run//p1//x", "/RUN/p1",
		"/run/p1%20x/y", "/run/p2/caf%C3%A9", "/run/p4/a+b", "/run/./p5/../p6",
		"/run/qq?z=1", "/run/qq/x?z=1", "/run/p7/a%25b", "/run/p8/a%23b", "/run/p9/a%3Fb", "/run/zz/%5Bx%5D", "/run/a/b/c/d/%3F")
	var variants []string
	for _, p := range paths {
		variants = append(variants, p)
		if !strings.ContainsAny(p, "?%") {
			variants = append(variants, p+"/", p+"/x?q=1")
		}
	}
	apacheRoundTrip(t, func(dir, addr string) map[string]string {
		return map[string]string{"httpd.conf": apacheConf(dir, addr, lines.String()), "www/.htaccess": lines.String()}
	}, []string{"/=www/.htaccess"}, []string{"example.test"}, variants, nil)
}
