package engine_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/engine/accesslog"
	"github.com/redirectd/redirectd/engine/upstream"
	"github.com/redirectd/redirectd/internal/testutil"
	"github.com/redirectd/redirectd/matcher"
)

// fallbackRules are fallback rules of every kind, and a plain rule beside
// them.
var fallbackRules = []matcher.Rule{
	{From: "/page", To: "/elsewhere", Status: 301, Fallback: true},
	{From: "/big", To: "/elsewhere", Status: 301, Fallback: true},
	{From: "/missing", To: "/new", Status: 301, Fallback: true},
	{From: "/missing-huge", To: "/new-huge", Status: 302, Fallback: true},
	{Kind: matcher.Prefix, From: "/docs/", To: "/d/", Status: 302, Fallback: true},
	{Kind: matcher.Regex, From: `^/r/(\w+)$`, To: "/n/$1", Status: 308, Fallback: true, FallbackStatus: []int{404, 410}},
	{From: "/gone-page", To: "/g", Status: 301, Fallback: true}, // 404 only: the upstream's 410 is relayed
	{From: "/removed", Status: 410, Fallback: true},
	{From: "/plain", To: "/p", Status: 301},
}

// fallbackUpstream serves every path starting with /page, /big or
// /docs/real (a 200 whose body names the path and the request body's
// length, /big's 256 KiB), answers 410 for paths holding "gone", a 1 MiB
// 404 for /missing-huge and a small 404 for anything else. It counts the
// requests it gets.
func fallbackUpstream(asked *atomic.Int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		body, _ := io.ReadAll(r.Body)
		switch p := r.URL.Path; {
		case p == "/big":
			w.Write([]byte(strings.Repeat("0123456789abcdef", 16<<10)))
		case strings.HasPrefix(p, "/page") || strings.HasPrefix(p, "/docs/real"):
			fmt.Fprintf(w, "page %s body %d", p, len(body))
		case strings.Contains(p, "gone"):
			w.WriteHeader(410)
			io.WriteString(w, "gone here")
		case p == "/missing-huge":
			w.WriteHeader(404)
			w.Write(make([]byte, 1<<20))
		default:
			w.WriteHeader(404)
			io.WriteString(w, "no such page")
		}
	})
}

func startFallbackProxy(t *testing.T, addr string, rules []matcher.Rule) *engine.Server {
	t.Helper()
	srv := startProxy(t, upstream.Config{Servers: []string{addr}}, engine.UpstreamOptions{})
	set, err := matcher.Compile(rules)
	if err != nil {
		t.Fatal(err)
	}
	srv.Swap(set)
	return srv
}

// fbAnswer is what TestFallback compares of an answer.
type fbAnswer struct {
	Status   int
	Location string
	Body     string
	Close    bool
	Conn     string // the Connection field
}

func readFallback(t *testing.T, br *bufio.Reader, method string) fbAnswer {
	t.Helper()
	resp, body := readFull(t, br, method)
	if resp.Header.Get("Date") == "" {
		t.Errorf("answer has no Date")
	}
	return fbAnswer{resp.StatusCode, resp.Header.Get("Location"), body, resp.Close, resp.Header.Get("Connection")}
}

// TestFallback checks fallback rules through the real server and a real
// upstream over loopback: the upstream's page is relayed where it has one,
// the rule answers where it answers 404 (or a status of the rule's own),
// answers keep request order when pipelined, HEAD and bodies work, and
// the connection serves on after each.
func TestFallback(t *testing.T) {
	var asked atomic.Int64
	srv := startFallbackProxy(t, startUpstream(t, fallbackUpstream(&asked)), fallbackRules)
	big := strings.Repeat("0123456789abcdef", 16<<10)
	tests := []struct {
		name   string
		req    string
		method []string // of each answer; GET when empty
		want   []fbAnswer
		asked  int64 // requests the upstream got
	}{
		{"served by the upstream", "GET /page HTTP/1.1\r\nHost: a\r\n\r\n", nil,
			[]fbAnswer{{Status: 200, Body: "page /page body 0"}}, 1},
		{"large page relayed whole", "GET /big HTTP/1.1\r\nHost: a\r\n\r\n", nil,
			[]fbAnswer{{Status: 200, Body: big}}, 1},
		{"404: the rule answers", "GET /missing HTTP/1.1\r\nHost: a\r\n\r\n", nil,
			[]fbAnswer{{Status: 301, Location: "/new"}}, 1},
		{"query kept", "GET /missing?x=1 HTTP/1.1\r\nHost: a\r\n\r\n", nil,
			[]fbAnswer{{Status: 301, Location: "/new?x=1"}}, 1},
		{"1 MiB 404 dropped", "GET /missing-huge HTTP/1.1\r\nHost: a\r\n\r\n", nil,
			[]fbAnswer{{Status: 302, Location: "/new-huge"}}, 1},
		{"prefix, served", "GET /docs/real/x HTTP/1.1\r\nHost: a\r\n\r\n", nil,
			[]fbAnswer{{Status: 200, Body: "page /docs/real/x body 0"}}, 1},
		{"prefix, 404", "GET /docs/old/x HTTP/1.1\r\nHost: a\r\n\r\n", nil,
			[]fbAnswer{{Status: 302, Location: "/d/old/x"}}, 1},
		{"regex, 410 listed", "GET /r/7gone HTTP/1.1\r\nHost: a\r\n\r\nGET /r/7 HTTP/1.1\r\nHost: a\r\n\r\n", nil,
			[]fbAnswer{{Status: 308, Location: "/n/7gone"}, {Status: 308, Location: "/n/7"}}, 2},
		{"410 not listed: relayed", "GET /gone-page HTTP/1.1\r\nHost: a\r\n\r\n", nil,
			[]fbAnswer{{Status: 410, Body: "gone here"}}, 1},
		{"a 410 rule", "GET /removed HTTP/1.1\r\nHost: a\r\n\r\n", nil,
			[]fbAnswer{{Status: 410, Body: "gone\n"}}, 1},
		{"plain rule: not asked", "GET /plain HTTP/1.1\r\nHost: a\r\n\r\n", nil,
			[]fbAnswer{{Status: 301, Location: "/p"}}, 0},
		{"pipelined, order kept",
			"GET /missing HTTP/1.1\r\nHost: a\r\n\r\nGET /page HTTP/1.1\r\nHost: a\r\n\r\nGET /plain HTTP/1.1\r\nHost: a\r\n\r\n" +
				"GET /docs/x HTTP/1.1\r\nHost: a\r\n\r\nGET /page2 HTTP/1.1\r\nHost: a\r\n\r\nGET /big HTTP/1.1\r\nHost: a\r\n\r\nGET /missing HTTP/1.1\r\nHost: a\r\n\r\n", nil,
			[]fbAnswer{{Status: 301, Location: "/new"}, {Status: 200, Body: "page /page body 0"}, {Status: 301, Location: "/p"},
				{Status: 302, Location: "/d/x"}, {Status: 200, Body: "page /page2 body 0"}, {Status: 200, Body: big}, {Status: 301, Location: "/new"}}, 6},
		{"HEAD", "HEAD /missing HTTP/1.1\r\nHost: a\r\n\r\nHEAD /page HTTP/1.1\r\nHost: a\r\n\r\nHEAD /removed HTTP/1.1\r\nHost: a\r\n\r\n",
			[]string{"HEAD", "HEAD", "HEAD"},
			[]fbAnswer{{Status: 301, Location: "/new"}, {Status: 200}, {Status: 410}}, 3},
		{"bodies go to the upstream",
			"POST /missing HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhelloPOST /page HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabc" +
				"POST /missing HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n", nil,
			[]fbAnswer{{Status: 301, Location: "/new"}, {Status: 200, Body: "page /page body 3"}, {Status: 301, Location: "/new"}}, 3},
		{"HTTP/1.0 keep-alive", "GET /missing HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET /missing HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", nil,
			[]fbAnswer{{Status: 301, Location: "/new", Conn: "keep-alive"}, {Status: 301, Location: "/new", Close: true}}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := asked.Load()
			c := dial(t, srv)
			io.WriteString(c, tt.req)
			br := bufio.NewReader(c)
			var got []fbAnswer
			for i := range tt.want {
				method := "GET"
				if tt.method != nil {
					method = tt.method[i]
				}
				got = append(got, readFallback(t, br, method))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("answers (-want +got):\n%s", diff)
			}
			if n := asked.Load() - before; n != tt.asked {
				t.Errorf("the upstream was asked %d times, want %d", n, tt.asked)
			}
			if tt.want[len(tt.want)-1].Close {
				return
			}
			io.WriteString(c, "GET /missing HTTP/1.1\r\nHost: a\r\n\r\n")
			if a := readFallback(t, br, "GET"); a.Status != 301 || a.Location != "/new" {
				t.Errorf("the connection does not serve on: %+v", a)
			}
		})
	}
	var b strings.Builder
	srv.WriteMetrics(&b)
	// Relayed: the upstream's pages of the fallback rules (/page2 is no
	// rule's: a plain miss). Answered: the rest, and each subtest's
	// follow-up but the one after Connection: close.
	for _, line := range []string{`redirectd_fallback_total{result="answered"} 30`, `redirectd_fallback_total{result="relayed"} 8`} {
		if !strings.Contains(b.String(), line+"\n") {
			t.Errorf("metrics lack %s:\n%s", line, grepLines(b.String(), "fallback_total{"))
		}
	}
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestFallbackUpstreamDown checks what a fallback rule answers when the
// upstream cannot be reached: the server's own 502, as nginx's
// `error_page 404 = @x` leaves it, unless the rule lists 502, as
// `error_page 404 502 = @x` would catch it.
func TestFallbackUpstreamDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	srv := startFallbackProxy(t, addr, []matcher.Rule{
		{From: "/missing", To: "/new", Status: 301, Fallback: true},
		{From: "/listed", To: "/new", Status: 302, Fallback: true, FallbackStatus: []int{404, 502}},
	})
	c := dial(t, srv)
	io.WriteString(c, "GET /missing HTTP/1.1\r\nHost: a\r\n\r\nGET /listed HTTP/1.1\r\nHost: a\r\n\r\n")
	br := bufio.NewReader(c)
	got := []fbAnswer{readFallback(t, br, "GET"), readFallback(t, br, "GET")}
	want := []fbAnswer{{Status: 502, Body: "the upstream server could not be reached\n"}, {Status: 302, Location: "/new"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
}

// TestFallbackWithoutUpstream checks that without an upstream a fallback
// rule answers as any rule does.
func TestFallbackWithoutUpstream(t *testing.T) {
	srv := startServer(t)
	set, err := matcher.Compile(fallbackRules)
	if err != nil {
		t.Fatal(err)
	}
	srv.Swap(set)
	c := dial(t, srv)
	io.WriteString(c, "GET /page HTTP/1.1\r\nHost: a\r\n\r\nGET /docs/x HTTP/1.1\r\nHost: a\r\n\r\n")
	br := bufio.NewReader(c)
	got := []fbAnswer{readFallback(t, br, "GET"), readFallback(t, br, "GET")}
	want := []fbAnswer{{Status: 301, Location: "/elsewhere"}, {Status: 302, Location: "/d/x"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
}

// TestFallbackAccessLog checks the access log line of a fallback rule's
// forward: when the rule answers, its status, Location and rule beside the
// upstream asked; when the upstream's page is relayed, its status alone.
func TestFallbackAccessLog(t *testing.T) {
	var asked atomic.Int64
	pool := upstream.New(upstream.Config{Servers: []string{startUpstream(t, fallbackUpstream(&asked))},
		ConnectTimeout: time.Second, ReadTimeout: 5 * time.Second, WriteTimeout: 5 * time.Second, MaxConnsPerServer: 8}, nil)
	t.Cleanup(pool.Close)
	logFile := filepath.Join(t.TempDir(), "access.log")
	alog, err := accesslog.Open(logFile, accesslog.JSON)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { alog.Close() })
	srv := startServerWith(t, engine.Options{Upstream: &engine.UpstreamOptions{Pool: pool}, AccessLog: alog})
	rules := append([]matcher.Rule(nil), fallbackRules...)
	for i := range rules {
		rules[i].File, rules[i].Line = "r.toml", i+1
	}
	set, err := matcher.Compile(rules)
	if err != nil {
		t.Fatal(err)
	}
	srv.Swap(set)
	c := dial(t, srv)
	io.WriteString(c, "GET /missing?x=1 HTTP/1.1\r\nHost: a\r\n\r\nGET /page HTTP/1.1\r\nHost: a\r\n\r\n")
	br := bufio.NewReader(c)
	readFallback(t, br, "GET")
	readFallback(t, br, "GET")
	type line struct {
		Target, Location, Rule string
		Status                 int
		Upstream               bool
	}
	var got []line
	// The loops hand their lines to the log every tick; what the log
	// holds after 30 s is compared below.
	testutil.Eventually(30*time.Second, func() bool {
		got = got[:0]
		data, _ := os.ReadFile(logFile)
		for _, l := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
			var e struct {
				Target, Location, Rule, Upstream string
				Status                           int
			}
			if len(l) > 0 && json.Unmarshal(l, &e) == nil {
				got = append(got, line{e.Target, e.Location, e.Rule, e.Status, e.Upstream != ""})
			}
		}
		return len(got) >= 2
	})
	want := []line{{"/missing?x=1", "/new?x=1", "r.toml:3", 301, true}, {"/page", "", "", 200, true}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("access log (-want +got):\n%s", diff)
	}
}
