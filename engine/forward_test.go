package engine_test

import (
	"bufio"
	"crypto/sha256"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/engine/testport"
	"github.com/redirectd/redirectd/engine/upstream"
	"github.com/redirectd/redirectd/internal/testutil"
)

// echoUpstream answers with what it received: method, target, Host, the
// headers (sorted, one per line) and the body's length and SHA-256.
func echoUpstream(name string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var hs []string
		for k, v := range r.Header {
			hs = append(hs, k+": "+strings.Join(v, " | "))
		}
		sort.Strings(hs)
		w.Header().Set("X-Upstream", name)
		w.Header().Set("X-Answer-Header", "kept")
		fmt.Fprintf(w, "%s %s\nHost: %s\n%s\nbody %d %x\n", r.Method, r.RequestURI, r.Host, strings.Join(hs, "\n"), len(body), sha256.Sum256(body))
	})
}

// startUpstream runs a real net/http server on loopback.
func startUpstream(t *testing.T, h http.Handler) string {
	t.Helper()
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts.Listener.Addr().String()
}

// startProxy runs the server with testRules and the given upstreams.
func startProxy(t *testing.T, cfg upstream.Config, up engine.UpstreamOptions) *engine.Server {
	t.Helper()
	return plainTCP.startProxy(t, cfg, up)
}

// startProxy is startProxy for a test reached over tr.
func (tr transport) startProxy(t *testing.T, cfg upstream.Config, up engine.UpstreamOptions) *engine.Server {
	t.Helper()
	up.Pool = testPool(t, cfg, nil)
	return tr.start(t, engine.Options{Upstream: &up})
}

// testPool makes the pool of cfg, closed when the test ends, with the
// tests' timeouts (1 s to connect, 5 s to read and write) and 64
// connections a server where cfg leaves them 0; it logs to log.
func testPool(t *testing.T, cfg upstream.Config, log *slog.Logger) *upstream.Pool {
	t.Helper()
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = time.Second
	}
	if cfg.ReadTimeout == 0 {
		cfg.ReadTimeout = 5 * time.Second
	}
	if cfg.WriteTimeout == 0 {
		cfg.WriteTimeout = 5 * time.Second
	}
	if cfg.MaxConnsPerServer == 0 {
		cfg.MaxConnsPerServer = 64
	}
	pool := upstream.New(cfg, log)
	t.Cleanup(pool.Close)
	return pool
}

// readFull reads one answer with its whole body.
func readFull(t *testing.T, br *bufio.Reader, method string) (*http.Response, string) {
	t.Helper()
	resp, err := http.ReadResponse(br, &http.Request{Method: method})
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the body: %v", err)
	}
	return resp, string(body)
}

func TestForwardRequest(t *testing.T) {
	t.Parallel()
	testForwardRequest(t, plainTCP)
}

func testForwardRequest(t *testing.T, tr transport) {
	addr := startUpstream(t, echoUpstream("a"))
	srv := tr.startProxy(t, upstream.Config{Servers: []string{addr}}, engine.UpstreamOptions{})
	c := tr.dial(t, srv)
	io.WriteString(c, "GET /miss/x?b=2&a=1 HTTP/1.1\r\nHost: site.example\r\nx-lower: kept as sent\r\n"+
		"Connection: keep-alive, X-Hop\r\nX-Hop: dropped\r\nKeep-Alive: timeout=5\r\nTE: trailers\r\nUpgrade-Insecure-Requests: 1\r\n"+
		"X-Forwarded-For: 203.0.113.7\r\nX-Forwarded-Proto: https\r\nUser-Agent: test\r\n\r\n")
	br := bufio.NewReader(c)
	resp, body := readFull(t, br, "GET")
	want := "GET /miss/x?b=2&a=1\nHost: site.example\n" +
		"Accept-Encoding: gzip\n" + // added by net/http's server? no: see below
		""
	_ = want
	lines := strings.Split(body, "\n")
	got := map[string]bool{}
	for _, l := range lines {
		got[l] = true
	}
	// The client's own X-Forwarded-Proto is not trusted; over TLS the
	// request came over https.
	proto := "X-Forwarded-Proto: http"
	if tr == overTLS {
		proto = "X-Forwarded-Proto: https"
	}
	for _, must := range []string{
		"GET /miss/x?b=2&a=1",
		"Host: site.example",
		"X-Lower: kept as sent",
		"Upgrade-Insecure-Requests: 1",
		"User-Agent: test",
		"X-Forwarded-For: 203.0.113.7, 127.0.0.1",
		proto,
		"X-Forwarded-Host: site.example",
		"body 0 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
	} {
		if !got[must] {
			t.Errorf("upstream did not get %q; it got:\n%s", must, body)
		}
	}
	for _, l := range lines {
		for _, banned := range []string{"Keep-Alive", "Te:", "X-Hop", "Connection"} {
			if strings.HasPrefix(l, banned) {
				t.Errorf("hop-by-hop header forwarded: %q", l)
			}
		}
	}
	if resp.StatusCode != 200 || resp.Header.Get("X-Answer-Header") != "kept" || resp.Close {
		t.Errorf("answer: %d %v close=%v", resp.StatusCode, resp.Header, resp.Close)
	}
	if resp.Header.Get("Via") != "" || resp.Header.Get("Server") != "" {
		t.Errorf("headers invented: %v", resp.Header)
	}
	// The connection stays open for the next request.
	io.WriteString(c, followUp)
	if a := readAnswer(t, br, "GET"); a.Status != 301 {
		t.Fatalf("after a forwarded request: %+v", a)
	}
}

func TestForwardBodies(t *testing.T) { testForwardBodies(t, plainTCP) }

func testForwardBodies(t *testing.T, tr transport) {
	addr := startUpstream(t, echoUpstream("a"))
	srv := tr.startProxy(t, upstream.Config{Servers: []string{addr}}, engine.UpstreamOptions{})
	sum := func(b string) string { return fmt.Sprintf("body %d %x", len(b), sha256.Sum256([]byte(b))) }
	t.Run("content-length", func(t *testing.T) {
		for _, size := range []int{1, 1 << 10, 64 << 10, 5 << 20} {
			payload := strings.Repeat("p", size)
			c := tr.dial(t, srv)
			c.SetDeadline(time.Now().Add(20 * time.Second))
			go fmt.Fprintf(c, "POST /upload HTTP/1.1\r\nHost: a\r\nContent-Length: %d\r\n\r\n%s", size, payload)
			_, body := readFull(t, bufio.NewReader(c), "POST")
			if !strings.Contains(body, sum(payload)) {
				t.Fatalf("%d bytes: upstream saw %q", size, tail(body))
			}
		}
	})
	t.Run("chunked", func(t *testing.T) {
		c := tr.dial(t, srv)
		var sent strings.Builder
		io.WriteString(c, "POST /upload HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n")
		for i := range 50 {
			part := strings.Repeat(string(rune('a'+i%26)), 1000+i)
			sent.WriteString(part)
			fmt.Fprintf(c, "%x;ext=1\r\n%s\r\n", len(part), part)
		}
		io.WriteString(c, "0\r\nX-Trailer: t\r\n\r\n")
		br := bufio.NewReader(c)
		_, body := readFull(t, br, "POST")
		if !strings.Contains(body, sum(sent.String())) {
			t.Fatalf("upstream saw %q", tail(body))
		}
		io.WriteString(c, followUp)
		if a := readAnswer(t, br, "GET"); a.Status != 301 {
			t.Fatalf("after a chunked body: %+v", a)
		}
	})
	t.Run("expect 100-continue", func(t *testing.T) {
		c := tr.dial(t, srv)
		io.WriteString(c, "PUT /x HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
		br := bufio.NewReader(c)
		line, _ := br.ReadString('\n')
		if line != "HTTP/1.1 100 Continue\r\n" {
			t.Fatalf("want 100 Continue first, got %q", line)
		}
		br.ReadString('\n')
		io.WriteString(c, "hello")
		if _, body := readFull(t, br, "PUT"); !strings.Contains(body, sum("hello")) {
			t.Fatalf("upstream saw %q", body)
		}
	})
}

func TestForwardAnswers(t *testing.T) {
	t.Parallel() // nothing in it is timed: its events wait on each other
	testForwardAnswers(t, plainTCP)
}

// bigAnswer is the largest answer testForwardAnswers forwards: 16 times
// what the server holds of a connection's pending bytes (1 MiB), so it
// passes in many pieces. It was 100 MiB, which over TLS under the race
// detector on a loaded machine took 32 s, past the test's 30 s deadline.
const bigAnswer = 16 << 20

func testForwardAnswers(t *testing.T, tr transport) {
	big := strings.Repeat("0123456789abcdef", bigAnswer/16)
	// The upstream sends the second event only once the client has
	// the first: a proxy that held the stream back would never pass it.
	firstSeen := make(chan struct{})
	var firstOnce sync.Once
	seen := func() { firstOnce.Do(func() { close(firstSeen) }) }
	t.Cleanup(seen)
	mux := http.NewServeMux()
	mux.HandleFunc("/size/", func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscanf(r.URL.Path, "/size/%d", &n)
		w.Header().Set("Content-Length", fmt.Sprint(n))
		io.WriteString(w, big[:n])
	})
	mux.HandleFunc("/chunked/", func(w http.ResponseWriter, r *http.Request) {
		for i := range 100 {
			fmt.Fprintf(w, "part %d;", i)
			w.(http.Flusher).Flush()
		}
	})
	mux.HandleFunc("/events", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range 3 {
			fmt.Fprintf(w, "data: %d\n\n", i)
			w.(http.Flusher).Flush()
			if i == 0 {
				<-firstSeen
			}
		}
	})
	mux.HandleFunc("/nocontent", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) })
	addr := startUpstream(t, mux)
	srv := tr.startProxy(t, upstream.Config{Servers: []string{addr}}, engine.UpstreamOptions{})

	for _, n := range []int{0, 1 << 10, 64 << 10, bigAnswer} {
		c := tr.dial(t, srv)
		c.SetDeadline(time.Now().Add(30 * time.Second))
		fmt.Fprintf(c, "GET /size/%d HTTP/1.1\r\nHost: a\r\n\r\n", n)
		resp, body := readFull(t, bufio.NewReader(c), "GET")
		if resp.ContentLength != int64(n) || body != big[:n] {
			t.Fatalf("size %d: length %d, body of %d bytes, same %v", n, resp.ContentLength, len(body), body == big[:n])
		}
	}

	c := tr.dial(t, srv)
	br := bufio.NewReader(c)
	io.WriteString(c, "GET /chunked/ HTTP/1.1\r\nHost: a\r\n\r\nHEAD /size/10 HTTP/1.1\r\nHost: a\r\n\r\nGET /nocontent HTTP/1.1\r\nHost: a\r\n\r\n")
	resp, body := readFull(t, br, "GET")
	if len(resp.TransferEncoding) == 0 || !strings.HasPrefix(body, "part 0;part 1;") || !strings.HasSuffix(body, "part 99;") {
		t.Fatalf("chunked answer: %v %q", resp.TransferEncoding, body)
	}
	if resp, body = readFull(t, br, "HEAD"); resp.StatusCode != 200 || body != "" {
		t.Fatalf("HEAD: %d %q", resp.StatusCode, body)
	}
	if resp, _ = readFull(t, br, "GET"); resp.StatusCode != 204 {
		t.Fatalf("204: %d", resp.StatusCode)
	}

	t.Run("HTTP/1.0 client gets a close-delimited body", func(t *testing.T) {
		c := tr.dial(t, srv)
		io.WriteString(c, "GET /chunked/ HTTP/1.0\r\n\r\n")
		resp, body := readFull(t, bufio.NewReader(c), "GET")
		if !resp.Close || len(resp.TransferEncoding) != 0 || !strings.HasSuffix(body, "part 99;") {
			t.Fatalf("HTTP/1.0: close %v, %v, %q", resp.Close, resp.TransferEncoding, body)
		}
	})

	t.Run("server-sent events arrive as produced", func(t *testing.T) {
		c := tr.dial(t, srv)
		// Only a hang guard: the first event cannot come late, only never.
		c.SetDeadline(time.Now().Add(30 * time.Second))
		io.WriteString(c, "GET /events HTTP/1.1\r\nHost: a\r\n\r\n")
		br := bufio.NewReader(c)
		resp, err := http.ReadResponse(br, &http.Request{Method: "GET"})
		if err != nil {
			t.Fatalf("the head, before the upstream's second event: %v (the stream was held back)", err)
		}
		events := bufio.NewReader(resp.Body)
		line, err := events.ReadString('\n')
		if err != nil || line != "data: 0\n" {
			t.Fatalf("first event, before the upstream's second: %q %v (the stream was held back)", line, err)
		}
		seen()
		rest, err := io.ReadAll(events)
		if want := "\ndata: 1\n\ndata: 2\n\n"; err != nil || string(rest) != want {
			t.Fatalf("the other events: %q %v, want %q", rest, err, want)
		}
	})
}

// TestForwardPipelined sends redirects and misses in one write and expects
// the answers in request order.
func TestForwardPipelined(t *testing.T) { testForwardPipelined(t, plainTCP) }

func testForwardPipelined(t *testing.T, tr transport) {
	// /slow is answered once the server holds the requests after it,
	// unanswered: its local redirects wait for the forward before them.
	const later = "GET /docs/x HTTP/1.1\r\nHost: a\r\n\r\n" +
		"GET /fast HTTP/1.1\r\nHost: a\r\n\r\n" +
		"GET /blog/1/y HTTP/1.1\r\nHost: a\r\n\r\n"
	var srv *engine.Server
	slow := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		held := func() bool {
			return slices.ContainsFunc(engine.Conns(srv), func(c engine.ConnState) bool { return c.Held == len(later) })
		}
		if r.URL.Path == "/slow" && !testutil.Eventually(30*time.Second, held) {
			t.Errorf("the server did not hold the %d bytes of the requests after /slow", len(later))
		}
		fmt.Fprint(w, "from upstream "+r.URL.Path)
	})
	srv = tr.startProxy(t, upstream.Config{Servers: []string{startUpstream(t, slow)}}, engine.UpstreamOptions{})
	c := tr.dial(t, srv)
	io.WriteString(c, "GET /old HTTP/1.1\r\nHost: a\r\n\r\n"+
		"GET /slow HTTP/1.1\r\nHost: a\r\n\r\n"+later)
	br := bufio.NewReader(c)
	var got []string
	for range 5 {
		resp, body := readFull(t, br, "GET")
		got = append(got, fmt.Sprintf("%d %s%s", resp.StatusCode, resp.Header.Get("Location"), body))
	}
	want := []string{
		"301 https://example.com/new",
		"200 from upstream /slow",
		"302 https://docs.example.com/x",
		"200 from upstream /fast",
		"308 https://example.com/posts/1/y",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("answers out of order (-want +got):\n%s", diff)
	}
}

func TestForwardFailures(t *testing.T) { testForwardFailures(t, plainTCP) }

func testForwardFailures(t *testing.T, tr transport) {
	t.Run("upstream down", func(t *testing.T) {
		addr := testport.Free(t) // held, so nothing listens there
		srv := tr.startProxy(t, upstream.Config{Servers: []string{addr}}, engine.UpstreamOptions{})
		for range 5 { // past the passive-health threshold too
			c := tr.dial(t, srv)
			start := time.Now()
			io.WriteString(c, "GET /miss HTTP/1.1\r\nHost: a\r\n\r\n")
			resp, _ := readFull(t, bufio.NewReader(c), "GET")
			if resp.StatusCode != 502 || time.Since(start) > time.Second {
				t.Fatalf("got %d after %v, want 502 at once", resp.StatusCode, time.Since(start))
			}
		}
	})
	t.Run("upstream answers 101 unasked", func(t *testing.T) {
		// A switch of protocols to a request that asked for none is no
		// answer this client can read: 502, not the upstream's 101.
		u := startRawUpstream(t, func(u *rawUpstream, rc *rawConn) {
			if _, err := rc.readHead(5 * time.Second); err == nil {
				rc.c.Write([]byte("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"))
				rc.unreadWithin(500 * time.Millisecond)
			}
		})
		srv := tr.startProxy(t, upstream.Config{Servers: []string{u.addr}}, engine.UpstreamOptions{})
		c := tr.dial(t, srv)
		io.WriteString(c, "GET /miss HTTP/1.1\r\nHost: a\r\n\r\n")
		resp, body := readFull(t, bufio.NewReader(c), "GET")
		if resp.StatusCode != 502 || !strings.Contains(body, "informational") {
			t.Fatalf("got %d %q, want 502 naming the informational answer", resp.StatusCode, body)
		}
	})
	t.Run("upstream cuts its answer short", func(t *testing.T) {
		// 7 bytes of 1,000, then close: nothing reached the client yet,
		// so it gets 502, not an empty reply; of 100,000 the head has
		// gone, so the connection closes before the announced length.
		// Either is a failed forward in the metrics.
		u := startRawUpstream(t, func(u *rawUpstream, rc *rawConn) {
			head, err := rc.readHead(5 * time.Second)
			if err != nil {
				return
			}
			n := 1000
			if strings.Contains(head, "/big") {
				n = 100_000
			}
			fmt.Fprintf(rc.c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n1234567", n)
		})
		srv := tr.startProxy(t, upstream.Config{Servers: []string{u.addr}}, engine.UpstreamOptions{})
		c := tr.dial(t, srv)
		io.WriteString(c, "GET /small HTTP/1.1\r\nHost: a\r\n\r\n")
		resp, body := readFull(t, bufio.NewReader(c), "GET")
		if resp.StatusCode != 502 || !strings.Contains(body, "cut short") {
			t.Fatalf("small answer cut short: %d %q, want 502", resp.StatusCode, body)
		}
		c = tr.dial(t, srv)
		io.WriteString(c, "GET /big HTTP/1.1\r\nHost: a\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("large answer: %v %v, want its head", resp, err)
		}
		if got, err := io.ReadAll(resp.Body); err == nil || len(got) != 7 {
			t.Fatalf("large answer cut short: read %d bytes, err %v; want 7 and an unexpected end", len(got), err)
		}
		m := metricsOf(srv)
		for name, want := range map[string]string{
			`redirectd_upstream_requests_total{group="default",server="` + u.addr + `",result="error"}`:    "2",
			`redirectd_upstream_requests_total{group="default",server="` + u.addr + `",result="answered"}`: "",
			`redirectd_requests_total{outcome="forwarded",status="5xx"}`:                                   "2",
			`redirectd_requests_total{outcome="forwarded",status="2xx"}`:                                   "0",
		} {
			if got := metricValue(m, name); got != want && !(want == "" && got == "0") {
				t.Errorf("%s = %q, want %q", name, got, want)
			}
		}
	})
	t.Run("upstream slow", func(t *testing.T) {
		// An upstream that never answers; read_timeout is a socket
		// deadline, on real time: the answer cannot come before it.
		addr := startUpstream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			<-r.Context().Done() // the server gave up and closed
		}))
		srv := tr.startProxy(t, upstream.Config{Servers: []string{addr}, ReadTimeout: 300 * time.Millisecond}, engine.UpstreamOptions{})
		c := tr.dial(t, srv)
		start := time.Now()
		io.WriteString(c, "GET /miss HTTP/1.1\r\nHost: a\r\n\r\n")
		resp, _ := readFull(t, bufio.NewReader(c), "GET")
		if took := time.Since(start); resp.StatusCode != 504 || took < 300*time.Millisecond {
			t.Fatalf("got %d after %v, want 504 after read_timeout (300ms)", resp.StatusCode, took)
		}
	})
	t.Run("idle connection closed by the upstream", func(t *testing.T) {
		// The upstream answers the first request on each connection and
		// closes the connection when a second one arrives on it, without
		// answering, as a server does whose keep-alive timeout just ran
		// out. An idempotent request is retried once on a new connection;
		// a POST is not (its body may have had effects) and gets 502.
		var conns atomic.Int32
		upAddr := testutil.Serve(t, func(uc net.Conn) {
			conns.Add(1)
			defer uc.Close()
			br := bufio.NewReader(uc)
			req, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			io.Copy(io.Discard, req.Body)
			io.WriteString(uc, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
			br.Peek(1) // the next request: close without an answer
		})
		srv := tr.startProxy(t, upstream.Config{Servers: []string{upAddr}}, engine.UpstreamOptions{})
		c := tr.dial(t, srv)
		br := bufio.NewReader(c)
		for i, want := range []struct {
			req    string
			status int
		}{
			{"GET /a HTTP/1.1\r\nHost: a\r\n\r\n", 200},
			{"GET /b HTTP/1.1\r\nHost: a\r\n\r\n", 200},
			{"POST /c HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\n\r\nx", 502},
		} {
			io.WriteString(c, want.req)
			resp, _ := readFull(t, br, "GET")
			if resp.StatusCode != want.status {
				t.Fatalf("request %d: %d, want %d", i+1, resp.StatusCode, want.status)
			}
			if resp.Close {
				c = tr.dial(t, srv)
				br = bufio.NewReader(c)
			}
		}
		if n := conns.Load(); n != 2 {
			t.Errorf("the upstream saw %d connections, want 2 (the first; the GET's retry, which the POST reuses)", n)
		}
	})
	t.Run("upstream dies mid-answer", func(t *testing.T) {
		// The upstream dies once the client has the answer's head: the
		// relay has begun.
		headRead := make(chan struct{})
		upAddr := testutil.Serve(t, func(uc net.Conn) {
			bufio.NewReader(uc).ReadString('\n')
			io.WriteString(uc, "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n"+strings.Repeat("x", 40000))
			select {
			case <-headRead:
			case <-t.Context().Done():
			}
			uc.Close()
		})
		srv := tr.startProxy(t, upstream.Config{Servers: []string{upAddr}}, engine.UpstreamOptions{})
		c := tr.dial(t, srv)
		io.WriteString(c, "GET /miss HTTP/1.1\r\nHost: a\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: "GET"})
		if err != nil {
			t.Fatal(err)
		}
		close(headRead)
		if _, err := io.ReadAll(resp.Body); err == nil {
			t.Fatal("a truncated answer was read as complete")
		}
	})
}

func TestForwardBalancing(t *testing.T) {
	a := startUpstream(t, echoUpstream("a"))
	b := startUpstream(t, echoUpstream("b"))
	for _, leastConn := range []bool{false, true} {
		srv := startProxy(t, upstream.Config{Servers: []string{a, b}, LeastConn: leastConn}, engine.UpstreamOptions{})
		seen := map[string]int{}
		for range 10 {
			c := dial(t, srv)
			io.WriteString(c, "GET /miss HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
			resp, _ := readFull(t, bufio.NewReader(c), "GET")
			seen[resp.Header.Get("X-Upstream")]++
		}
		if seen["a"] == 0 || seen["b"] == 0 {
			t.Errorf("least_conn %v: requests went to %v, want both servers", leastConn, seen)
		}
	}
	t.Run("a server that is down is skipped", func(t *testing.T) {
		down := testport.Free(t) // held, so nothing listens there
		srv := startProxy(t, upstream.Config{Servers: []string{down, a}}, engine.UpstreamOptions{})
		ok := 0
		for range 20 {
			c := dial(t, srv)
			io.WriteString(c, "GET /miss HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
			if resp, _ := readFull(t, bufio.NewReader(c), "GET"); resp.StatusCode == 200 {
				ok++
			}
		}
		if ok < 15 {
			t.Fatalf("%d of 20 requests answered; the dead server should be taken out", ok)
		}
	})
}

func TestForwardLimits(t *testing.T) {
	seen := make(chan string, 10)
	addr := startUpstream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen <- r.URL.Path
		io.Copy(io.Discard, r.Body)
	}))
	srv := startProxy(t, upstream.Config{Servers: []string{addr}}, engine.UpstreamOptions{MaxRequestBodyBytes: 1000})
	t.Run("413 before forwarding", func(t *testing.T) {
		c := dial(t, srv)
		io.WriteString(c, "POST /big HTTP/1.1\r\nHost: a\r\nContent-Length: 1001\r\n\r\n")
		resp, _ := readFull(t, bufio.NewReader(c), "POST")
		if resp.StatusCode != 413 || !resp.Close {
			t.Fatalf("got %d close=%v, want 413 and close", resp.StatusCode, resp.Close)
		}
		select {
		case p := <-seen:
			t.Fatalf("upstream got %s", p)
		case <-time.After(100 * time.Millisecond):
		}
	})
	t.Run("413 for a chunked body over the limit", func(t *testing.T) {
		c := dial(t, srv)
		io.WriteString(c, "POST /chunked-big HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n")
		fmt.Fprintf(c, "%x\r\n%s\r\n", 1500, strings.Repeat("z", 1500))
		resp, _ := readFull(t, bufio.NewReader(c), "POST")
		if resp.StatusCode != 413 || !resp.Close {
			t.Fatalf("got %d close=%v, want 413 and close", resp.StatusCode, resp.Close)
		}
	})
	t.Run("408 when the body stops", func(t *testing.T) {
		// On a fake clock: open a millisecond before body_timeout after
		// the last bytes came, answered 408 and closed at it.
		const timeout = 2 * time.Second
		srv := plainTCP.startClockedProxy(t, upstream.Config{Servers: []string{addr}},
			engine.UpstreamOptions{MaxRequestBodyBytes: 1000, BodyTimeout: timeout})
		c := dial(t, srv.Server)
		io.WriteString(c, "POST /stalled HTTP/1.1\r\nHost: a\r\nContent-Length: 500\r\n\r\n")
		srv.waitForwarding(t)
		srv.advance(timeout - time.Millisecond)
		srv.sendBody(t, c, "only part")
		srv.advance(timeout - time.Millisecond)
		srv.wantTimedOut(t, "body", 0)
		srv.advance(time.Millisecond)
		srv.wantTimedOut(t, "body", 1)
		resp, _ := readFull(t, bufio.NewReader(c), "POST")
		if resp.StatusCode != 408 || !resp.Close {
			t.Fatalf("got %d close=%v, want 408 and close", resp.StatusCode, resp.Close)
		}
	})
}

// tail returns the end of an echoed answer, where the body summary is.
func tail(s string) string {
	return s[max(0, len(s)-200):]
}

// TestActiveHealthCheck checks that a server failing its health check is
// taken out (requests get 502 at once, none reaches it) and comes back when
// the check passes again.
func TestActiveHealthCheck(t *testing.T) {
	var healthy atomic.Bool
	var served, checks atomic.Int64
	addr := startUpstream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/healthz" {
			checks.Add(1)
			if !healthy.Load() {
				w.WriteHeader(503)
			}
			return
		}
		served.Add(1)
		io.WriteString(w, "app")
	}))
	srv := startProxy(t, upstream.Config{Servers: []string{addr}, HealthPath: "/healthz", HealthInterval: 50 * time.Millisecond}, engine.UpstreamOptions{})
	ask := func() int {
		c := dial(t, srv)
		io.WriteString(c, "GET /miss HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
		resp, _ := readFull(t, bufio.NewReader(c), "GET")
		return resp.StatusCode
	}
	// The checks run one after the other: at the second, the first's
	// failure has taken the server out.
	testutil.WaitFor(t, testutil.Patience, "two health checks", func() bool { return checks.Load() >= 2 })
	if code := ask(); code != 502 || served.Load() != 0 {
		t.Fatalf("with the check failing: %d, %d requests reached the server", code, served.Load())
	}
	healthy.Store(true)
	testutil.WaitFor(t, 30*time.Second, "the server back in service after its check passed", func() bool { return ask() == 200 })
}
