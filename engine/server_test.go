package engine_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"
	"weak"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/internal/testutil"
	"github.com/redirectd/redirectd/matcher"
)

var testRules = []matcher.Rule{
	{Kind: matcher.Exact, From: "/old", To: "https://example.com/new", Status: 301},
	{Kind: matcher.Prefix, From: "/docs/", To: "https://docs.example.com/", Status: 302},
	{Kind: matcher.Regex, From: `^/blog/(\d+)/(.*)$`, To: "https://example.com/posts/$1/$2", Status: 308},
	{Kind: matcher.Exact, From: "/only-here", Host: "shop.example.com", To: "https://shop.example.com/moved", Status: 307},
	{Kind: matcher.Exact, From: "/old", To: "https://example.com/newsletter", Status: 302, QueryString: matcher.QueryDrop,
		Query: []matcher.QueryCond{{Name: "utm_source", Value: "newsletter"}, {Name: "ref", Value: "*"}}},
}

// startServer runs a server with testRules on a free loopback port and
// stops it when the test ends.
func startServer(t *testing.T) *engine.Server {
	t.Helper()
	return startServerWith(t, engine.Options{})
}

// startServerWith is startServer with options; Listen and EventLoops are
// filled in when empty.
func startServerWith(t *testing.T, opts engine.Options) *engine.Server {
	t.Helper()
	return plainTCP.start(t, opts)
}

// start is startServerWith for a test reached over tr: over TLS, a TLS
// listener is added when opts has none.
func (tr transport) start(t *testing.T, opts engine.Options) *engine.Server {
	t.Helper()
	set, err := matcher.Compile(testRules)
	if err != nil {
		t.Fatal(err)
	}
	return tr.startSet(t, opts, set)
}

// startSet is start with the rules set.
func (tr transport) startSet(t *testing.T, opts engine.Options, set *matcher.Set) *engine.Server {
	t.Helper()
	if opts.Listen == "" {
		opts.Listen = "127.0.0.1:0"
	}
	if opts.EventLoops == 0 {
		opts.EventLoops = 2
	}
	if tr == overTLS && opts.TLS == nil {
		opts.TLS = testTLSOptions(t)
	}
	srv := engine.New(opts, set)
	runServer(t, srv)
	return srv
}

// runServer runs srv until the test ends, and fails the test when srv
// does not start.
func runServer(tb testing.TB, srv *engine.Server) {
	tb.Helper()
	done := make(chan error, 1)
	go func() { done <- srv.Run() }()
	select {
	case <-srv.Ready():
	case err := <-done:
		tb.Fatalf("server did not start: %v", err)
	case <-time.After(testutil.Patience):
		tb.Fatalf("server did not start within %v", testutil.Patience)
	}
	tb.Cleanup(func() { stopServer(tb, srv, done) })
}

// stopServer stops srv, whose Run reports on done, and fails the test
// when Stop or Run fails or Run has not returned within 5 s. gnet's
// Stop looks every half second whether the engine is down, and it is
// down once Run has returned (gnet marks it so before its Run returns):
// Stop's context is ended then, which Server.Stop takes as stopped, so
// that each test does not wait out the rest of that half second.
func stopServer(tb testing.TB, srv *engine.Server, done <-chan error) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	stopped := make(chan error, 1)
	go func() { stopped <- srv.Stop(ctx) }()
	select {
	case err := <-done:
		if err != nil {
			tb.Errorf("run: %v", err)
		}
	case <-ctx.Done():
		tb.Errorf("run has not returned 5s after Stop")
	}
	cancel()
	if err := <-stopped; err != nil {
		tb.Errorf("stop: %v", err)
	}
}

// runBenchServer runs a server with the test rules for a benchmark, one
// event loop, until the benchmark's run ends.
func runBenchServer(b *testing.B, opts engine.Options) *engine.Server {
	set, err := matcher.Compile(testRules)
	if err != nil {
		b.Fatal(err)
	}
	opts.Listen, opts.EventLoops = "127.0.0.1:0", 1
	srv := engine.New(opts, set)
	runServer(b, srv)
	return srv
}

// answer is what a test compares of a response.
type answer struct {
	Status   int
	Location string
	Body     string
	Close    bool
}

// waitHeld waits until one of the server's connections holds n bytes
// of input it has not used up: the server has read what the test sent
// so far, and no more.
func waitHeld(t *testing.T, srv *engine.Server, n int) {
	t.Helper()
	testutil.WaitFor(t, 30*time.Second, fmt.Sprintf("the server to hold %d bytes", n), func() bool {
		for _, c := range engine.Conns(srv) {
			if c.Held == n {
				return true
			}
		}
		return false
	})
}

// dial connects to the server's plain port.
func dial(t *testing.T, srv *engine.Server) net.Conn {
	t.Helper()
	return plainTCP.dial(t, srv)
}

// dial connects to the server's plain port, or over TLS to its TLS port.
func (tr transport) dial(t *testing.T, srv *engine.Server) net.Conn {
	t.Helper()
	if tr == overTLS {
		return dialTLS(t, srv)
	}
	c, err := net.DialTimeout("tcp", srv.Addr(), 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(testutil.Patience))
	t.Cleanup(func() { c.Close() })
	return c
}

// readAnswer reads one response to a request with the given method.
func readAnswer(t *testing.T, br *bufio.Reader, method string) answer {
	t.Helper()
	resp, err := http.ReadResponse(br, &http.Request{Method: method})
	if err != nil {
		t.Fatalf("reading response: %v", err)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading body: %v", err)
	}
	if resp.Header.Get("Date") == "" {
		t.Errorf("answer has no Date header")
	}
	if resp.ContentLength < 0 {
		t.Errorf("answer has no Content-Length")
	}
	return answer{resp.StatusCode, resp.Header.Get("Location"), string(body), resp.Close}
}

// expectClosed checks that the server closed the connection.
func expectClosed(t *testing.T, br *bufio.Reader) {
	t.Helper()
	if b, err := br.ReadByte(); err != io.EOF {
		t.Errorf("connection still open: read %q, %v", b, err)
	}
}

func TestAnswers(t *testing.T) {
	t.Parallel()
	testAnswers(t, plainTCP)
}

func testAnswers(t *testing.T, tr transport) {
	srv := tr.start(t, engine.Options{})
	tests := []struct {
		name, request, method string
		want                  answer
	}{
		{"exact", "GET /old HTTP/1.1\r\nHost: a\r\n\r\n", "GET", answer{301, "https://example.com/new", "", false}},
		{"exact with query", "GET /old?x=1&y=2 HTTP/1.1\r\nHost: a\r\n\r\n", "GET", answer{301, "https://example.com/new?x=1&y=2", "", false}},
		{"query conditions", "GET /old?ref=&utm_source=newsletter HTTP/1.1\r\nHost: a\r\n\r\n", "GET", answer{302, "https://example.com/newsletter", "", false}},
		{"query conditions unmet", "GET /old?utm_source=newsletter HTTP/1.1\r\nHost: a\r\n\r\n", "GET", answer{301, "https://example.com/new?utm_source=newsletter", "", false}},
		{"prefix", "GET /docs/a/b?q HTTP/1.1\r\nHost: a\r\n\r\n", "GET", answer{302, "https://docs.example.com/a/b?q", "", false}},
		{"regex", "GET /blog/12/hello HTTP/1.1\r\nHost: a\r\n\r\n", "GET", answer{308, "https://example.com/posts/12/hello", "", false}},
		{"host rule", "GET /only-here HTTP/1.1\r\nHost: Shop.Example.com:8080\r\n\r\n", "GET", answer{307, "https://shop.example.com/moved", "", false}},
		{"host rule, other host", "GET /only-here HTTP/1.1\r\nHost: example.com\r\n\r\n", "GET", answer{404, "", "not found\n", false}},
		{"miss", "GET /nothing HTTP/1.1\r\nHost: a\r\n\r\n", "GET", answer{404, "", "not found\n", false}},
		{"HEAD miss has no body", "HEAD /nothing HTTP/1.1\r\nHost: a\r\n\r\n", "HEAD", answer{404, "", "", false}},
		{"HEAD redirect", "HEAD /old HTTP/1.1\r\nHost: a\r\n\r\n", "HEAD", answer{301, "https://example.com/new", "", false}},
		{"POST redirect", "POST /old HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello", "POST", answer{301, "https://example.com/new", "", false}},
		{"absolute form", "GET http://shop.example.com/only-here HTTP/1.1\r\nHost: x\r\n\r\n", "GET", answer{307, "https://shop.example.com/moved", "", false}},
		{"connection close", "GET /old HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", "GET", answer{301, "https://example.com/new", "", true}},
		{"HTTP/1.0 closes", "GET /old HTTP/1.0\r\n\r\n", "GET", answer{301, "https://example.com/new", "", true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tr.dial(t, srv)
			if _, err := io.WriteString(c, tt.request); err != nil {
				t.Fatal(err)
			}
			br := bufio.NewReader(c)
			got := readAnswer(t, br, tt.method)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Fatalf("answer mismatch (-want +got):\n%s", diff)
			}
			if tt.want.Close {
				expectClosed(t, br)
			}
		})
	}
}

// TestPipelined sends three requests in one write and expects three answers
// in order, then checks the connection stays open for a fourth.
func TestPipelined(t *testing.T) {
	t.Parallel()
	testPipelined(t, plainTCP)
}

func testPipelined(t *testing.T, tr transport) {
	srv := tr.start(t, engine.Options{})
	c := tr.dial(t, srv)
	io.WriteString(c, "GET /old HTTP/1.1\r\nHost: a\r\n\r\n"+
		"GET /nothing HTTP/1.1\r\nHost: a\r\n\r\n"+
		"GET /docs/x HTTP/1.1\r\nHost: a\r\n\r\n")
	br := bufio.NewReader(c)
	var got []answer
	for range 3 {
		got = append(got, readAnswer(t, br, "GET"))
	}
	want := []answer{
		{301, "https://example.com/new", "", false},
		{404, "", "not found\n", false},
		{302, "https://docs.example.com/x", "", false},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("pipelined answers (-want +got):\n%s", diff)
	}
	io.WriteString(c, "GET /blog/1/x HTTP/1.1\r\nHost: a\r\n\r\n")
	if a := readAnswer(t, br, "GET"); a.Status != 308 {
		t.Fatalf("keep-alive request after the pipeline: %+v", a)
	}
}

// TestSplitRequest sends a request one byte per write.
func TestSplitRequest(t *testing.T) {
	t.Parallel()
	testSplitRequest(t, plainTCP)
}

func testSplitRequest(t *testing.T, tr transport) {
	srv := tr.start(t, engine.Options{})
	c := tr.dial(t, srv)
	req := "GET /old HTTP/1.1\r\nHost: a\r\nUser-Agent: test\r\n\r\n"
	for i := range len(req) {
		if _, err := c.Write([]byte{req[i]}); err != nil {
			t.Fatal(err)
		}
		if i < len(req)-1 {
			waitHeld(t, srv, i+1) // each byte a read of its own
		}
	}
	if a := readAnswer(t, bufio.NewReader(c), "GET"); a.Status != 301 {
		t.Fatalf("split request: %+v", a)
	}
}

// TestBodyIsSkipped checks that a body received with its request is
// skipped and the next request on the connection answered, and that a body
// still on its way gets the answer and a close instead of being waited for.
func TestBodyIsSkipped(t *testing.T) {
	t.Parallel()
	testBodyIsSkipped(t, plainTCP)
}

func testBodyIsSkipped(t *testing.T, tr transport) {
	srv := tr.start(t, engine.Options{})
	c := tr.dial(t, srv)
	br := bufio.NewReader(c)
	io.WriteString(c, "POST /old HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\n0123456789GET /docs/y HTTP/1.1\r\nHost: a\r\n\r\n")
	if a := readAnswer(t, br, "POST"); a.Status != 301 || a.Close {
		t.Fatalf("first: %+v", a)
	}
	if a := readAnswer(t, br, "GET"); a.Status != 302 || a.Location != "https://docs.example.com/y" {
		t.Fatalf("request after the body: %+v", a)
	}

	c = tr.dial(t, srv)
	br = bufio.NewReader(c)
	io.WriteString(c, "POST /old HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\n01234")
	if a := readAnswer(t, br, "POST"); a.Status != 301 || !a.Close {
		t.Fatalf("answer to a request whose body is still coming: %+v", a)
	}
	io.WriteString(c, "56789")
	expectClosed(t, br)
}

func TestHTTP10KeepAlive(t *testing.T) {
	t.Parallel()
	testHTTP10KeepAlive(t, plainTCP)
}

func testHTTP10KeepAlive(t *testing.T, tr transport) {
	srv := tr.start(t, engine.Options{})
	c := tr.dial(t, srv)
	br := bufio.NewReader(c)
	for range 2 {
		io.WriteString(c, "GET /old HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
		resp, err := http.ReadResponse(br, &http.Request{Method: "GET"})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 301 || resp.Header.Get("Connection") != "keep-alive" {
			t.Fatalf("HTTP/1.0 keep-alive: %d, Connection %q", resp.StatusCode, resp.Header.Get("Connection"))
		}
	}
}

// TestMalformed checks that garbage gets an error answer and a closed
// connection, after the answers to the good requests before it.
func TestMalformed(t *testing.T) {
	t.Parallel()
	testMalformed(t, plainTCP)
}

func testMalformed(t *testing.T, tr transport) {
	srv := tr.start(t, engine.Options{})
	tests := []struct {
		name, request string
		want          int
	}{
		{"garbage", "HELLO\r\n\r\n", 400},
		{"bad version", "GET /old HTTP/2.0\r\nHost: a\r\n\r\n", 505},
		{"relative target", "GET old HTTP/1.1\r\nHost: a\r\n\r\n", 400},
		{"no host", "GET /old HTTP/1.1\r\n\r\n", 400},
		{"space in target", "GET /a b HTTP/1.1\r\nHost: a\r\n\r\n", 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tr.dial(t, srv)
			io.WriteString(c, "GET /old HTTP/1.1\r\nHost: a\r\n\r\n"+tt.request)
			br := bufio.NewReader(c)
			if a := readAnswer(t, br, "GET"); a.Status != 301 {
				t.Fatalf("good request before the bad one: %+v", a)
			}
			a := readAnswer(t, br, "GET")
			if a.Status != tt.want || !a.Close {
				t.Fatalf("got %+v, want status %d and Connection: close", a, tt.want)
			}
			expectClosed(t, br)
		})
	}
}

// TestSwapReleasesOld checks that once Swap returns nothing of the engine
// keeps the old set, though the loop's last answer came from it and no
// request came since: a million-rule set stayed resident after a reload.
func TestSwapReleasesOld(t *testing.T) {
	old, err := matcher.Compile(testRules)
	if err != nil {
		t.Fatal(err)
	}
	srv := plainTCP.startSet(t, engine.Options{EventLoops: 1}, old)
	gone := weak.Make(old)
	old = nil
	c := dial(t, srv)
	io.WriteString(c, "GET /old HTTP/1.1\r\nHost: a\r\n\r\n")
	if a := readAnswer(t, bufio.NewReader(c), "GET"); a.Status != 301 {
		t.Fatalf("before the swap: %+v", a)
	}
	set, err := matcher.Compile([]matcher.Rule{{Kind: matcher.Exact, From: "/new-rule", To: "/there", Status: 302}})
	if err != nil {
		t.Fatal(err)
	}
	srv.Swap(set)
	runtime.GC()
	if gone.Value() != nil {
		t.Fatal("the old set is still in use after Swap")
	}
}

// TestSwap checks that a new rule set serves the next request.
func TestSwap(t *testing.T) {
	srv := startServer(t)
	set, err := matcher.Compile([]matcher.Rule{{Kind: matcher.Exact, From: "/new-rule", To: "/there", Status: 302}})
	if err != nil {
		t.Fatal(err)
	}
	c := dial(t, srv)
	br := bufio.NewReader(c)
	io.WriteString(c, "GET /new-rule HTTP/1.1\r\nHost: a\r\n\r\n")
	if a := readAnswer(t, br, "GET"); a.Status != 404 {
		t.Fatalf("before swap: %+v", a)
	}
	srv.Swap(set)
	io.WriteString(c, "GET /new-rule HTTP/1.1\r\nHost: a\r\n\r\n")
	if a := readAnswer(t, br, "GET"); a.Status != 302 || a.Location != "/there" {
		t.Fatalf("after swap: %+v", a)
	}
	if !strings.HasPrefix(srv.Addr(), "127.0.0.1:") {
		t.Errorf("Addr() = %q", srv.Addr())
	}
}
