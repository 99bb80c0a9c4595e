package engine_test

import (
	"bufio"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/engine/upstream"
)

// TestForwardTargetAndHost checks that the upstream gets the request
// target redirectd matched, byte for byte, and the Host host_header says:
// fasthttp's URI parser used to read
// //internal.example/x:// as an absolute URI and send its host, to send /
// with no Host for a Host it refused, and to drop a fragment.
func TestForwardTargetAndHost(t *testing.T) {
	t.Parallel()
	testForwardTargetAndHost(t, plainTCP)
}

func testForwardTargetAndHost(t *testing.T, tr transport) {
	up := startRawUpstream(t, answerOK)
	for _, hostFromUpstream := range []bool{false, true} {
		srv := tr.startProxy(t, upstream.Config{Servers: []string{up.addr}}, engine.UpstreamOptions{HostFromUpstream: hostFromUpstream})
		for _, tc := range []struct {
			name, req string
			// line is the request line the upstream must get; host its
			// Host with host_header = "preserve" ("" for the server's
			// address); xfh its X-Forwarded-Host ("" for none).
			line, host, xfh string
			// refusable: redirectd may answer 400 instead (a fragment
			// is not part of origin-form).
			refusable bool
		}{
			{name: "path that looks like an authority",
				req:  "GET //internal.example/x:// HTTP/1.1\r\nHost: public.example\r\n\r\n",
				line: "GET //internal.example/x:// HTTP/1.1", host: "public.example", xfh: "public.example"},
			{name: "host fasthttp's URI parser refuses",
				req:  "GET /p HTTP/1.1\r\nHost: a%41\r\n\r\n",
				line: "GET /p HTTP/1.1", host: "a%41", xfh: "a%41"},
			{name: "fragment", refusable: true,
				req:  "GET /a#b HTTP/1.1\r\nHost: h.example\r\n\r\n",
				line: "GET /a#b HTTP/1.1", host: "h.example", xfh: "h.example"},
			{name: "dot segments, doubled slashes, escapes",
				req:  "GET /a/../b//c/%2e%2E/%7e%41?q=%41&&x=a+b HTTP/1.1\r\nHost: h.example\r\n\r\n",
				line: "GET /a/../b//c/%2e%2E/%7e%41?q=%41&&x=a+b HTTP/1.1", host: "h.example", xfh: "h.example"},
			{name: "empty query",
				req:  "GET /a? HTTP/1.1\r\nHost: h.example\r\n\r\n",
				line: "GET /a? HTTP/1.1", host: "h.example", xfh: "h.example"},
			{name: "scheme inside the path",
				req:  "GET /go/https://evil.example/ HTTP/1.1\r\nHost: h.example\r\n\r\n",
				line: "GET /go/https://evil.example/ HTTP/1.1", host: "h.example", xfh: "h.example"},
			{name: "host case and port as sent",
				req:  "GET /p HTTP/1.1\r\nHost: Public.Example:8080\r\n\r\n",
				line: "GET /p HTTP/1.1", host: "Public.Example:8080", xfh: "Public.Example:8080"},
			{name: "absolute form: origin form of its path, its authority as Host",
				req:  "GET http://abs.example/p//q?x HTTP/1.1\r\nHost: other.example\r\n\r\n",
				line: "GET /p//q?x HTTP/1.1", host: "abs.example", xfh: "abs.example"},
			{name: "asterisk form",
				req:  "OPTIONS * HTTP/1.1\r\nHost: h.example\r\n\r\n",
				line: "OPTIONS * HTTP/1.1", host: "h.example", xfh: "h.example"},
			{name: "HTTP/1.0 without Host",
				req:  "GET /p HTTP/1.0\r\n\r\n",
				line: "GET /p HTTP/1.1", host: ""},
		} {
			t.Run(tc.name+map[bool]string{false: "", true: "/host_header=upstream"}[hostFromUpstream], func(t *testing.T) {
				c := tr.dial(t, srv)
				io.WriteString(c, tc.req)
				resp, body := readFull(t, bufio.NewReader(c), "GET")
				if tc.refusable && resp.StatusCode == 400 {
					select {
					case h := <-up.heads:
						t.Fatalf("answered 400 but forwarded:\n%s", h)
					case <-time.After(50 * time.Millisecond):
					}
					return
				}
				if resp.StatusCode != 200 || body != "ok" {
					t.Fatalf("answer: %d %q", resp.StatusCode, body)
				}
				head := up.nextHead(t)
				host := tc.host
				if host == "" || hostFromUpstream {
					host = up.addr
				}
				var xfh []string
				if tc.xfh != "" {
					xfh = []string{tc.xfh}
				}
				got := []any{requestLine(head), headerValues(head, "Host"), headerValues(head, "X-Forwarded-Host")}
				want := []any{tc.line, []string{host}, xfh}
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("request line, Host, X-Forwarded-Host (-want +got):\n%s\nthe upstream received:\n%s", d, strings.TrimSpace(head))
				}
			})
		}
	}
}

// TestForwardFieldsAsSent checks that the upstream gets the client's fields
// in their order, case and bytes, the four fasthttp keeps apart included:
// it sent Host, User-Agent and Content-Type first and Cookie last, in its
// own spelling, joined several Cookie fields and re-serialised each
// cookie's value, dropping quotes.
func TestForwardFieldsAsSent(t *testing.T) {
	up := startRawUpstream(t, answerOK)
	srv := startProxy(t, upstream.Config{Servers: []string{up.addr}}, engine.UpstreamOptions{})
	c := dial(t, srv)
	io.WriteString(c, "POST /p HTTP/1.1\r\nx-first: 1\r\ncookie: a=1;b=2\r\nhost: h.example\r\nuser-agent: ua/1\r\n"+
		"Cookie: e=\"x y\";  f\r\ncontent-type: text/plain\r\nContent-Length: 5\r\nx-last: 2\r\n\r\nhello")
	if resp, body := readFull(t, bufio.NewReader(c), "POST"); resp.StatusCode != 200 || body != "ok" {
		t.Fatalf("answer: %d %q", resp.StatusCode, body)
	}
	head := up.nextHead(t)
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(head), "\r\n")[1:] {
		if !strings.HasPrefix(strings.ToLower(l), "x-forwarded-") {
			got = append(got, l)
		}
	}
	// Host is the header policy's own (host_header), first.
	want := []string{"Host: h.example", "x-first: 1", "cookie: a=1;b=2", "user-agent: ua/1",
		"Cookie: e=\"x y\";  f", "content-type: text/plain", "x-last: 2", "Content-Length: 5"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("fields the upstream received (-want +got):\n%s\n%s", d, head)
	}
}

// TestForwardAnswerFieldsAsSent checks that the client gets the upstream's
// answer fields with their values byte for byte (a quoted cookie value and
// doubled spaces too), several fields of one name in their order, less
// the hop-by-hop ones and the framing that redirectd sets itself. (Field
// names are compared ignoring case: fasthttp's answer parser keeps
// Content-Type, Server and Set-Cookie apart and writes them first, in
// their usual spelling; it has no switch for answers as it has for
// requests.)
func TestForwardAnswerFieldsAsSent(t *testing.T) {
	up := startRawUpstream(t, func(u *rawUpstream, rc *rawConn) {
		for {
			if _, err := rc.readHead(5 * time.Second); err != nil {
				return
			}
			io.WriteString(rc.c, "HTTP/1.1 200 OK\r\nset-cookie: a=\"x y\";  Path=/; HttpOnly\r\nserver: origin/1\r\n"+
				"Set-Cookie: b=2\r\nKeep-Alive: timeout=5\r\ncontent-type: text/x\r\nx-last:  1\r\nContent-Length: 2\r\n\r\nok")
		}
	})
	srv := startProxy(t, upstream.Config{Servers: []string{up.addr}}, engine.UpstreamOptions{})
	c := dial(t, srv)
	io.WriteString(c, "GET /p HTTP/1.1\r\nHost: h.example\r\n\r\n")
	br := bufio.NewReader(c)
	got := map[string][]string{}
	for {
		l, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if l == "\r\n" {
			break
		}
		if name, value, ok := strings.Cut(strings.TrimSuffix(l, "\r\n"), ": "); ok {
			got[strings.ToLower(name)] = append(got[strings.ToLower(name)], value)
		}
	}
	want := map[string][]string{"set-cookie": {`a="x y";  Path=/; HttpOnly`, "b=2"}, "server": {"origin/1"},
		"content-type": {"text/x"}, "x-last": {"1"}, "content-length": {"2"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("answer fields by name (-want +got):\n%s", d)
	}
}
