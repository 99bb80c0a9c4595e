package matcher

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/engine/testport"
	"github.com/redirectd/redirectd/internal/testutil"
)

// nginxURICase is a path and nginx's $uri for it ("400": nginx refuses
// it), with merge_slashes on and off, as nginx 1.22.1 answered them
// (TestNginxURIAsNginx checks the table against a real nginx).
type nginxURICase struct {
	path, merged, unmerged string
	flags                  uriFlags
}

var nginxURICases = []nginxURICase{
	{"/", "/", "/", 0},
	{"/a/b", "/a/b", "/a/b", 0},
	{"//js/x", "/js/x", "//js/x", 0},
	{"/js//x", "/js/x", "/js//x", 0},
	{"/./js/x", "/js/x", "/js/x", 0},
	{"/x/../js/x", "/js/x", "/js/x", 0},
	{"/js%2Fx", "/js/x", "/js/x", uriQuoted},
	{"/js%2f%2fx", "/js/x", "/js//x", uriQuoted},
	{"/a/%2e%2e/b", "/b", "/b", uriQuoted},
	{"/a/%2E/b", "/a/b", "/a/b", uriQuoted},
	{"/a%2F..%2Fb", "/b", "/b", uriQuoted},
	{"/a/b/..", "/a/", "/a/", 0},
	{"/a/b/.", "/a/b/", "/a/b/", 0},
	{"/a/b/...", "/a/b/...", "/a/b/...", 0},
	{"/a/.b/..c", "/a/.b/..c", "/a/.b/..c", 0},
	{"/a./b", "/a./b", "/a./b", 0},
	{"/..", "400", "400", 0},
	{"/../a", "400", "400", 0},
	{"/a/../..", "400", "400", 0},
	{"/%2e%2e/x", "400", "400", uriQuoted},
	{"//..", "400", "/", 0},
	{"/a//../b", "/b", "/a/b", 0},
	{"/a%00b", "400", "400", uriQuoted},
	{"/a%zz", "400", "400", uriQuoted},
	{"/a%2", "400", "400", uriQuoted},
	{"/a%", "400", "400", 0},
	{"/a%25", "/a%", "/a%", uriQuoted},
	{"/a%252F", "/a%2F", "/a%2F", uriQuoted},
	{"/a%25/..", "/", "/", uriQuoted},
	{"/a/.%25", "/a/.%", "/a/.%", uriQuoted},
	{"/a/.%23", "/a/.#", "/a/.#", uriQuoted},
	{"/a%23b", "/a#b", "/a#b", uriQuoted},
	{"/a/.%3F", "/a/.?", "/a/.?", uriQuoted},
	{"/a%3fb/../c", "/c", "/c", uriQuoted},
	{"/a+b", "/a+b", "/a+b", uriPlus},
	{"/a%2Bb", "/a+b", "/a+b", uriQuoted | uriPlus},
	{"/a%20b", "/a b", "/a b", uriQuoted},
	{"/caf%C3%A9", "/caf\xc3\xa9", "/caf\xc3\xa9", uriQuoted},
	{"/a%FFb", "/a\xffb", "/a\xffb", uriQuoted},
	{"/a%5Cb", "/a\\b", "/a\\b", uriQuoted},
	{"/a%0Ab", "/a\nb", "/a\nb", uriQuoted},
	{"/%2F%2F", "/", "///", uriQuoted},
	{"/a/%2E%2E", "/", "/", uriQuoted},
	{"/a/.%2E/b", "/b", "/b", uriQuoted},
	{"/a/%2E./b", "/b", "/b", uriQuoted},
}

func TestNginxURI(t *testing.T) {
	for _, c := range nginxURICases {
		for _, merge := range []bool{true, false} {
			want := c.merged
			if !merge {
				want = c.unmerged
			}
			out, flags, ok := appendNginxURI([]byte("x"), []byte(c.path), merge)
			got := "400"
			if ok {
				got = string(out[1:])
			}
			if got != want || flags != c.flags {
				t.Errorf("appendNginxURI(%q, merge %v) = %q flags %b, want %q flags %b", c.path, merge, got, flags, want, c.flags)
			}
			if string(out[:1]) != "x" {
				t.Errorf("appendNginxURI(%q) changed dst's bytes: %q", c.path, out)
			}
		}
	}
}

func TestNginxURIAllocs(t *testing.T) {
	buf := make([]byte, 0, 64)
	paths := [][]byte{[]byte("/a/b"), []byte("/x/..//js%2Fx/%2e/y"), []byte("/a%zz"), []byte("/caf%C3%A9")}
	n := testing.AllocsPerRun(100, func() {
		for _, p := range paths {
			buf, _, _ = appendNginxURI(buf[:0], p, true)
		}
	})
	if n != 0 {
		t.Errorf("appendNginxURI allocates %v times a run, want 0", n)
	}
}

// TestNginxURIAsNginx compares appendNginxURI with a real nginx's $uri,
// with merge_slashes on and off: the table's paths, then paths built at
// random from the pieces the state machine acts on.
func TestNginxURIAsNginx(t *testing.T) {
	bin := testutil.FindNginx(t)
	on, off := freeAddr(t), freeAddr(t)
	startNginx(t, bin, fmt.Sprintf(`
    server { listen %s; location / { return 200 "[$uri]"; } }
    server { listen %s; merge_slashes off; location / { return 200 "[$uri]"; } }`, on, off), on, off)
	paths := []string{}
	for _, c := range nginxURICases {
		paths = append(paths, c.path)
	}
	paths = append(paths, nginxURIRandomPaths(300)...)
	for _, p := range paths {
		for _, merge := range []bool{true, false} {
			addr := on
			if !merge {
				addr = off
			}
			st, body, _ := nginxGet(t, addr, p)
			want := "400"
			if st == 200 {
				want = strings.TrimSuffix(strings.TrimPrefix(body, "["), "]")
			} else if st != 400 {
				t.Fatalf("nginx answered %s with %d", p, st)
			}
			out, _, ok := appendNginxURI(nil, []byte(p), merge)
			got := "400"
			if ok {
				got = string(out)
			}
			if got != want {
				t.Errorf("appendNginxURI(%q, merge %v) = %q, nginx's $uri %q", p, merge, got, want)
			}
		}
	}
}

// nginxURIPieces are what paths are built from, at random, to compare
// with nginx and to seed the fuzz target.
var nginxURIPieces = []string{"a", "B", "/", "//", ".", "..", "%2F", "%2f", "%2E", "%2e%2E", "%25", "%41", "%3A", "%3F", "%23",
	"%20", "%c3%a9", "+", "%2B", "%7E", "~", ":", "%5C", "%00", "%z", "%", "%2", "..."}

func nginxURIRandomPaths(n int) []string {
	rng := rand.New(rand.NewPCG(3, 4))
	var out []string
	for range n {
		var b strings.Builder
		b.WriteString("/")
		for range 1 + rng.IntN(7) {
			b.WriteString(nginxURIPieces[rng.IntN(len(nginxURIPieces))])
		}
		out = append(out, b.String())
	}
	return out
}

// nginxURIModel is nginx's $uri written plainly, to check the state
// machine against: decode escapes one at a time, a decoded '%', '#' or
// '?' becoming an opaque byte that no slash or dot rule sees; split into
// segments at '/' (raw or decoded); drop empty segments when merging,
// drop "." and resolve ".." (400 above the root); a path that ends in a
// "." or ".." segment ends in '/'.
func nginxURIModel(p string, merge bool) (string, bool) {
	// Decode into tokens: a byte, and whether it is opaque.
	type tok struct {
		c      byte
		opaque bool
	}
	var toks []tok
	if i := strings.IndexAny(p, "?#"); i >= 0 {
		p = p[:i] // a '?' or '#' as sent ends the path
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c != '%' {
			toks = append(toks, tok{c, false})
			continue
		}
		if i+2 >= len(p) || unhexNginx(p[i+1]) < 0 || unhexNginx(p[i+2]) < 0 {
			return "", false
		}
		v := byte(unhexNginx(p[i+1])<<4 | unhexNginx(p[i+2]))
		if v == 0 {
			return "", false
		}
		toks = append(toks, tok{v, v == '%' || v == '#' || v == '?'})
		i += 2
	}
	// Segments: the bytes between separating slashes.
	var segs []seg
	var cur []byte
	opaque := false
	for _, t := range toks[1:] {
		if t.c == '/' && !t.opaque {
			segs, cur, opaque = append(segs, segOf(cur, opaque)), nil, false
			continue
		}
		cur = append(cur, t.c)
		opaque = opaque || t.opaque
	}
	segs = append(segs, segOf(cur, opaque))
	var out []string
	for i, s := range segs {
		last := i == len(segs)-1
		switch {
		case s.dots == 1:
			if last {
				out = append(out, "")
			}
		case s.dots == 2:
			if len(out) == 0 {
				return "", false
			}
			out = out[:len(out)-1]
			// Emptied segments left by merging off stay, as nginx backs
			// up to the previous slash only.
			if last {
				out = append(out, "")
			}
		case s.s == "":
			if !merge || last {
				out = append(out, "")
			}
		default:
			out = append(out, s.s)
		}
	}
	return "/" + strings.Join(out, "/"), true
}

// seg is a segment of the model; dots is 1 or 2 for a "." or ".."
// segment made of dots that are not opaque.
type seg struct {
	s    string
	dots int
}

func segOf(b []byte, opaque bool) seg {
	if !opaque && (string(b) == "." || string(b) == "..") {
		return seg{string(b), len(b)}
	}
	return seg{s: string(b)}
}

// FuzzNginxURI compares the state machine with nginxURIModel, seeded
// with the nginx-verified table.
func FuzzNginxURI(f *testing.F) {
	for _, c := range nginxURICases {
		f.Add(c.path, true)
		f.Add(c.path, false)
	}
	for _, p := range nginxURIRandomPaths(50) {
		f.Add(p, true)
	}
	f.Fuzz(func(t *testing.T, p string, merge bool) {
		if !strings.HasPrefix(p, "/") {
			return
		}
		want, wantOK := nginxURIModel(p, merge)
		out, _, ok := appendNginxURI(nil, []byte(p), merge)
		if ok != wantOK || ok && string(out) != want {
			t.Errorf("appendNginxURI(%q, %v) = %q %v, model %q %v", p, merge, out, ok, want, wantOK)
		}
		if len(out) > len(p) {
			t.Errorf("appendNginxURI(%q) = %q, longer than the path", p, out)
		}
		// The exported form, which takes a shortcut for plain paths,
		// appends the same.
		if got, gotOK := AppendNginxURI([]byte("x"), []byte(p), !merge); gotOK != ok || ok && string(got) != "x"+string(out) {
			t.Errorf("AppendNginxURI(%q, %v) = %q %v, want %q %v", p, !merge, got, gotOK, "x"+string(out), ok)
		}
		quoted := strings.ContainsAny(p, "%+")
		if got, gotOK, gotQuoted := AppendNginxURIQuoted([]byte("x"), []byte(p), !merge); gotOK != ok || ok && string(got) != "x"+string(out) || gotQuoted != quoted {
			t.Errorf("AppendNginxURIQuoted(%q, %v) = %q %v %v, want %q %v %v", p, !merge, got, gotOK, gotQuoted, "x"+string(out), ok, quoted)
		}
		// The lookup's shortcut for a path that is its own $uri.
		if pflags, plain := plainNginxURI([]byte(p), merge); plain {
			if _, flags, _ := appendNginxURI(nil, []byte(p), merge); !ok || string(out) != p || flags != pflags {
				t.Errorf("plainNginxURI(%q, %v) says plain (flags %b), but $uri is %q %v (flags %b)", p, merge, pflags, out, ok, flags)
			}
		}
	})
}

func TestNginxURIModel(t *testing.T) {
	var diffs []string
	for _, c := range nginxURICases {
		for _, merge := range []bool{true, false} {
			want := c.merged
			if !merge {
				want = c.unmerged
			}
			got, ok := nginxURIModel(c.path, merge)
			if !ok {
				got = "400"
			}
			if got != want {
				diffs = append(diffs, fmt.Sprintf("%q merge %v: model %q, nginx %q", c.path, merge, got, want))
			}
		}
	}
	if diff := cmp.Diff([]string(nil), diffs); diff != "" {
		t.Errorf("the model differs from nginx's table:\n%s", diff)
	}
}

// freeAddr is a port for nginx to listen on, held for the test and
// drawn where the kernel hands out no port to another test's listener.
func freeAddr(t *testing.T) string { return testport.Free(t) }

// startNginx runs nginx with servers (text inside its http block),
// listening on addrs.
func startNginx(t *testing.T, bin, servers string, addrs ...string) {
	t.Helper()
	dir := t.TempDir()
	conf := filepath.Join(dir, "nginx.conf")
	err := os.WriteFile(conf, []byte(fmt.Sprintf(`worker_processes 1;
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
%[2]s
}
`, dir, servers)), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	testutil.RunNginx(t, bin, dir, conf, addrs...)
}

// nginxGet sends GET target and returns nginx's status, body and
// Location.
func nginxGet(t *testing.T, addr, target string) (int, string, string) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, testutil.Patience)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(testutil.Patience))
	fmt.Fprintf(c, "GET %s HTTP/1.0\r\nHost: example.com\r\n\r\n", target)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("%s: %v", target, err)
	}
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), resp.Header.Get("Location")
}
