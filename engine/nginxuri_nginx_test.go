package engine_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/engine/testport"
	"github.com/redirectd/redirectd/internal/testutil"
	"github.com/redirectd/redirectd/matcher"
)

const uriNginx = `worker_processes 1;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log;
events { worker_connections 64; }
http {
    access_log off;
    client_body_temp_path %[1]s/body;
    proxy_temp_path %[1]s/proxy;
    fastcgi_temp_path %[1]s/fastcgi;
    uwsgi_temp_path %[1]s/uwsgi;
    scgi_temp_path %[1]s/scgi;
    absolute_redirect off;
    server {
        listen 127.0.0.1:%[2]d;
        %[3]s
        location = /old { return 302 /new; }
        location / {
            rewrite ^/js/(.*)$ /assets/js/$1 redirect;
            rewrite ^/docs/(.*)$ /d/$1 redirect;
            return 404;
        }
    }
}
`

// uriAnswer is what the differential test compares of an answer: its
// status, its Location (nginx's with the bytes a Location cannot hold
// percent-encoded: the one intended difference) and whether the server
// closed the connection after it.
type uriAnswer struct {
	Status   int
	Location string
	Closed   bool
}

// TestNginxURIAsNginx serves the same rules from a real nginx (an exact
// location, a rewrite that stands for a prefix rule, a regex rewrite)
// and from redirectd with uri = "nginx", and sends both the same raw
// requests: each rule's own example with "//", "/./", "/x/../", %2F,
// %2E, escapes, '+', spaces, UTF-8 and invalid escapes, with
// merge_slashes on and off. Every difference fails.
func TestNginxURIAsNginx(t *testing.T) {
	t.Parallel()
	bin := testutil.FindNginx(t)
	for _, keep := range []bool{false, true} {
		directive := ""
		if keep {
			directive = "merge_slashes off;"
		}
		dir := t.TempDir()
		addr, port := testport.Addr(t)
		runNginx(t, bin, dir, fmt.Sprintf(uriNginx, dir, port, directive), addr)

		srv := startServer(t)
		b := matcher.NewBuilder(matcher.DefaultLimits)
		b.SetURI(matcher.URI{Nginx: true, KeepSlashes: keep})
		for i, r := range []matcher.Rule{
			{Kind: matcher.Exact, From: "/old", To: "/new", Status: 302},
			{Kind: matcher.Prefix, From: "/js/", To: "/assets/js/", Status: 302},
			{Kind: matcher.Regex, From: `^/docs/(.*)$`, To: "/d/$1", Status: 302},
		} {
			r.File, r.Line = "uri.toml", i+1
			if err := b.Add(&r); err != nil {
				t.Fatal(err)
			}
		}
		set, err := b.Set()
		if err != nil {
			t.Fatal(err)
		}
		srv.Swap(set)

		var diffs []string
		for _, target := range uriVariants("/old", "/js/a/b.js", "/docs/x/y") {
			theirs, ours := uriAsk(t, addr, target), uriAsk(t, srv.Addr(), target)
			theirs.Location = encodeLocation(theirs.Location)
			if ours != theirs {
				diffs = append(diffs, fmt.Sprintf("merge_slashes off %v: %s: redirectd %+v, nginx %+v", keep, target, ours, theirs))
			}
		}
		if diff := cmp.Diff([]string(nil), diffs); diff != "" {
			t.Errorf("answers differ from nginx's:\n%s", diff)
		}
	}
}

// uriVariants returns each path with the changes nginx's $uri undoes,
// and some it refuses.
func uriVariants(paths ...string) []string {
	var out []string
	for _, p := range paths {
		out = append(out, p, "/"+p, "/."+p, "/x/.."+p, "/%2E"+p, "/x/%2e%2e"+p, "/..."+p, p+"/.", p+"/..", "/../.."+p, p+"%00", p+"%zz", p+"%", "/%2F"+p[1:])
		i := strings.LastIndexByte(p, '/')
		out = append(out, p[:i]+"//"+p[i+1:], p[:i]+"/./"+p[i+1:], p[:i]+"%2F"+p[i+1:], p[:i]+"%2f%2F"+p[i+1:],
			p+"%20z", p+"+z", p+"%2Bz", p+"%C3%A9", p+"%3Fq&r", p+"%25", p+"%23", p+"|^{", p+"%7C%5E%7B%3C%3E%22%5C%60",
			p+";a=b&c", p+"%26%3B", p[:1]+"%"+fmt.Sprintf("%02X", p[1])+p[2:])
	}
	return out
}

// uriAsk sends GET target to addr and returns the answer, and whether
// the server closed the connection after it (a second request on it
// then gets no answer).
func uriAsk(t *testing.T, addr, target string) uriAnswer {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, testutil.Patience)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(testutil.Patience))
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: example.com\r\n\r\n", target)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("%s %s: %v", addr, target, err)
	}
	io.Copy(io.Discard, resp.Body)
	fmt.Fprintf(c, "GET /other HTTP/1.1\r\nHost: example.com\r\n\r\n")
	_, err = http.ReadResponse(br, nil)
	return uriAnswer{resp.StatusCode, resp.Header.Get("Location"), err != nil}
}

// encodeLocation percent-encodes the bytes of a Location that a URI
// reference cannot hold, as redirectd does.
func encodeLocation(loc string) string {
	var b strings.Builder
	for i := 0; i < len(loc); i++ {
		if c := loc[i]; c <= ' ' || c >= 0x7f || strings.IndexByte("\"<>\\^`{|}", c) >= 0 {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}
