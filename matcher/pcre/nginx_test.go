package pcre

import (
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/redirectd/redirectd/engine/testport"
	"github.com/redirectd/redirectd/internal/testutil"
)

// TestNginxAgrees checks every construct's want against a real nginx
// (PCRE2 without UTF, as Debian's nginx links it): one server per case,
// `if ($uri ~ PATTERN) { return 200 "m|$1|$2|$3"; }`, the path sent
// percent-encoded so that any byte reaches $uri as it is. nginx has no
// $0 there, so the whole match is asked of a second server with the
// pattern wrapped in a group, where that changes nothing else (no
// backreference or \K).
func TestNginxAgrees(t *testing.T) {
	bin := testutil.FindNginx(t)
	dir := t.TempDir()
	addr, _ := testport.Addr(t)
	var conf strings.Builder
	fmt.Fprintf(&conf, "error_log %s/error.log;\npid %s/nginx.pid;\nevents {}\nhttp {\naccess_log off;\n", dir, dir)
	for i, c := range constructs {
		op := "~"
		if c.ci {
			op = "~*"
		}
		q := strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(c.re)
		fmt.Fprintf(&conf, "server { listen %s; server_name c%d;\n location / { if ($uri %s \"%s\") { return 200 \"|$1|$2|$3\"; } return 200 \"n\"; } }\n", addr, i, op, q)
		if wrappable.MatchString(c.re) {
			fmt.Fprintf(&conf, "server { listen %s; server_name w%d;\n location / { if ($uri %s \"(%s)\") { return 200 \"m|$1\"; } return 200 \"n\"; } }\n", addr, i, op, q)
		}
	}
	conf.WriteString("}\n")
	path := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(path, []byte(conf.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	testutil.RunNginx(t, bin, dir, path, addr)
	for i, c := range constructs {
		got := nginxAnswer(t, addr, fmt.Sprintf("c%d", i), c.in)
		if got != "n" {
			var whole string
			if wrappable.MatchString(c.re) {
				whole = nginxAnswer(t, addr, fmt.Sprintf("w%d", i), c.in)
			} else {
				whole, _, _ = strings.Cut(c.want[min(len(c.want), 2):], "|")
				whole = "m|" + whole
			}
			got = whole + got
		}
		if got != c.want {
			t.Errorf("nginx: %q (ci %v) on %q: %q, want %q", c.re, c.ci, c.in, got, c.want)
		}
	}
}

// nginxAnswer sends a GET of path, every byte but letters, digits and /
// percent-encoded, and returns the body.
func nginxAnswer(t *testing.T, addr, host, path string) string {
	t.Helper()
	var target strings.Builder
	for i := 0; i < len(path); i++ {
		c := path[i]
		if c == '/' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			target.WriteByte(c)
		} else {
			fmt.Fprintf(&target, "%%%02X", c)
		}
	}
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET %s HTTP/1.0\r\nHost: %s\r\n\r\n", target.String(), host)
	b, err := io.ReadAll(conn)
	if err != nil {
		t.Fatal(err)
	}
	_, body, ok := strings.Cut(string(b), "\r\n\r\n")
	if !ok || !strings.HasPrefix(string(b), "HTTP/1.1 200") {
		return "answer: " + string(b)
	}
	return body
}

// wrappable matches the patterns whose whole match cannot be asked as
// group 1 of (PATTERN): those with backreferences or \K.
var wrappable = regexp.MustCompile(`^(?:[^\\(]|\\[^1-9gkK]|\((?:[^?]|\?[^P]))*$`)

// TestNginxRefuses checks that nginx (`nginx -t`) refuses the patterns
// Compile refuses as PCRE2 does, so that an import refuses what nginx
// would not have loaded, and loads what it would (TestNginxAgrees).
func TestNginxRefuses(t *testing.T) {
	bin := testutil.FindNginx(t)
	dir := t.TempDir()
	for _, c := range refusals {
		if !c.pcre2 {
			continue
		}
		q := strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(c.re)
		conf := fmt.Sprintf("error_log %s/error.log;\npid %s/nginx.pid;\nevents {}\nhttp { server { listen 127.0.0.1:1; location ~ \"%s\" { return 200; } } }\n", dir, dir, q)
		path := filepath.Join(dir, "nginx.conf")
		if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(bin, "-t", "-p", dir, "-c", path).CombinedOutput()
		if err == nil {
			t.Errorf("nginx accepts %.40q, which Compile refuses: %s", c.re, c.want)
		} else if !strings.Contains(string(out), "pcre2_compile() failed") {
			t.Errorf("nginx -t on %.40q: %s", c.re, out)
		}
	}
}
