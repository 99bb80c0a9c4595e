package engine_test

import (
	"bufio"
	"crypto/sha256"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/engine/upstream"
	"github.com/redirectd/redirectd/internal/testutil"
)

// metricValue returns the value of the metric line named name (labels
// included) in text, or "" when there is none.
func metricValue(text, name string) string {
	if v, ok := testutil.Metric(text, name); ok {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return ""
}

// dialFrom connects to the server's plain port from the loopback address
// local (127.0.0.2, ...): another client, as the per-client limits see it.
func dialFrom(t *testing.T, srv *engine.Server, local string) net.Conn {
	t.Helper()
	d := net.Dialer{Timeout: testutil.Patience, LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}}
	c, err := d.Dial("tcp", srv.Addr())
	if err != nil {
		t.Fatalf("dialing from %s: %v", local, err)
	}
	c.SetDeadline(time.Now().Add(testutil.Patience))
	t.Cleanup(func() { c.Close() })
	return c
}

// TestForwardTrickledBodies: two clients trickling their bodies used to
// hold both connections of a max_conns_per_server = 2 pool (the exchange
// started at the head, and body_timeout counts only time without a
// byte), so every other request got 503 after pool_wait_timeout for as
// long as they kept it up. A body of up to request_buffer_bytes is now
// read whole before the exchange starts: the others are answered by the
// upstream while the slow bodies are partly in, and the slow bodies
// reach it whole in the end. The clock is a fake one, so that no
// body_timeout runs out meanwhile.
func TestForwardTrickledBodies(t *testing.T) {
	addr := startUpstream(t, echoUpstream("a"))
	srv := plainTCP.startClockedProxy(t, upstream.Config{Servers: []string{addr}, MaxConnsPerServer: 2, PoolWaitTimeout: 200 * time.Millisecond},
		engine.UpstreamOptions{})
	const body = "abc"
	var slow []net.Conn
	for i := range 2 {
		c := dialFrom(t, srv.Server, fmt.Sprintf("127.0.0.%d", 2+i))
		fmt.Fprintf(c, "POST /slow HTTP/1.1\r\nHost: a\r\nContent-Length: %d\r\n\r\n", len(body))
		slow = append(slow, c)
		srv.waitConns(t, "the slow requests to be forwarded", func(cs []engine.ConnState) bool {
			return countConns(cs, func(c engine.ConnState) bool { return c.Forwarding }) == i+1
		})
	}
	// Each sends its body's first byte; once the server took them (their
	// bytes moved at the clock's new reading), the others come.
	srv.advance(time.Millisecond)
	for _, c := range slow {
		io.WriteString(c, body[:1])
	}
	srv.waitConns(t, "the server to take the slow bodies' first bytes", func(cs []engine.ConnState) bool {
		return countConns(cs, func(c engine.ConnState) bool { return c.Forwarding && c.Moved == srv.now() }) == 2
	})
	var got []int
	// The other requests, while the slow bodies are partly in: a GET, and
	// a POST whose body comes at once.
	for i := range 4 {
		c := dial(t, srv.Server)
		if i%2 == 0 {
			io.WriteString(c, "GET /other HTTP/1.1\r\nHost: a\r\n\r\n")
		} else {
			io.WriteString(c, "POST /other HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\nok")
		}
		resp, _ := readFull(t, bufio.NewReader(c), "GET")
		got = append(got, resp.StatusCode)
	}
	if diff := cmp.Diff([]int{200, 200, 200, 200}, got); diff != "" {
		t.Errorf("the other requests' statuses (-want +got):\n%s", diff)
	}
	for _, c := range slow {
		io.WriteString(c, body[1:])
		resp, echoed := readFull(t, bufio.NewReader(c), "POST")
		if resp.StatusCode != 200 || !strings.Contains(echoed, "body 3 ") {
			t.Errorf("a slow body: got %d %q, want 200 and the body whole upstream", resp.StatusCode, tail(echoed))
		}
	}
	m := metricsOf(srv.Server)
	for name, want := range map[string]string{
		`redirectd_upstream_request_bodies_total{result="buffered"}`:                                  "4",
		`redirectd_upstream_request_bodies_total{result="streamed"}`:                                  "0",
		`redirectd_upstream_requests_total{group="default",server="` + addr + `",result="pool_full"}`: "0",
	} {
		if got := metricValue(m, name); got != want {
			t.Errorf("%s = %q, want %s", name, got, want)
		}
	}
}

// TestForwardBodyMinRate: a body larger than request_buffer_bytes starts
// its exchange with its first byte past the buffer, and must then come at
// body_min_rate: within body_timeout plus a second per body_min_rate
// bytes. On a fake clock, one trickled under the rate, though never idle
// for body_timeout, is open at that deadline and gets 408 just past it,
// giving its pooled connection back (the one of a max_conns_per_server =
// 1 pool serves the next request); one sent faster reaches the upstream
// whole.
func TestForwardBodyMinRate(t *testing.T) {
	const (
		timeout = 500 * time.Millisecond
		rate    = 20 // bytes a second: a byte is 50 ms of credit
		length  = 100
	)
	addr := startUpstream(t, echoUpstream("a"))
	srv := plainTCP.startClockedProxy(t, upstream.Config{Servers: []string{addr}, MaxConnsPerServer: 1, PoolWaitTimeout: time.Second},
		engine.UpstreamOptions{RequestBufferBytes: 16, BodyMinRate: rate, BodyTimeout: timeout})
	// start sends the head, then, a millisecond on, the buffer's 16 bytes
	// and one past it, which starts the exchange and its rate's clock.
	start := func(c net.Conn) int64 {
		io.WriteString(c, fmt.Sprintf("POST /upload HTTP/1.1\r\nHost: a\r\nContent-Length: %d\r\n\r\n", length))
		srv.waitForwarding(t)
		srv.advance(time.Millisecond)
		srv.sendBody(t, c, strings.Repeat("b", 17))
		return srv.now()
	}
	t.Run("too slow", func(t *testing.T) {
		c := dial(t, srv.Server)
		t0 := start(c)
		// A byte 400 ms on: never idle for body_timeout, but the body is
		// due at t0 + 500 ms + 50 ms.
		srv.advance(400 * time.Millisecond)
		srv.sendBody(t, c, "b")
		srv.advance(time.Duration(t0 + int64(timeout) + int64(time.Second)/rate - srv.now()))
		srv.wantTimedOut(t, "body_rate", 0)
		srv.advance(time.Nanosecond)
		srv.wantTimedOut(t, "body_rate", 1)
		resp, _ := readFull(t, bufio.NewReader(c), "POST")
		if resp.StatusCode != 408 || !resp.Close {
			t.Fatalf("got %d close=%v, want 408 and close", resp.StatusCode, resp.Close)
		}
		c2 := dial(t, srv.Server)
		io.WriteString(c2, "GET /next HTTP/1.1\r\nHost: a\r\n\r\n")
		if resp, _ := readFull(t, bufio.NewReader(c2), "GET"); resp.StatusCode != 200 {
			t.Fatalf("the next request: %d, want 200 (the pooled connection given back)", resp.StatusCode)
		}
	})
	t.Run("fast enough", func(t *testing.T) {
		c := dial(t, srv.Server)
		start(c)
		sent := 17
		for ; sent+10 < length; sent += 10 { // 100 bytes a second
			srv.advance(100 * time.Millisecond)
			srv.sendBody(t, c, strings.Repeat("b", 10))
		}
		// The end of the body, which ends the exchange: no waiting for
		// it to be taken, the answer says it was.
		srv.advance(100 * time.Millisecond)
		io.WriteString(c, strings.Repeat("b", length-sent))
		resp, body := readFull(t, bufio.NewReader(c), "POST")
		if resp.StatusCode != 200 || !strings.Contains(body, fmt.Sprintf("body %d ", length)) {
			t.Fatalf("got %d %q, want 200 and the whole body upstream", resp.StatusCode, tail(body))
		}
	})
	m := metricsOf(srv.Server)
	for name, want := range map[string]string{
		`redirectd_connections_timed_out_total{timeout="body_rate"}`: "1",
		`redirectd_connections_timed_out_total{timeout="body"}`:      "0",
		`redirectd_upstream_request_bodies_total{result="streamed"}`: "2",
	} {
		if got := metricValue(m, name); got != want {
			t.Errorf("%s = %q, want %s", name, got, want)
		}
	}
}

// TestForwardClientLimit: with max_conns_per_client = 1, a client whose
// request holds the upstream gets 429 with Retry-After: 1 for a second
// one, on another connection, and its connection stays open; another
// client address is served meanwhile, and once the first answer is out
// the client is served again. Counted as
// redirectd_upstream_requests_total{result="client_limit"}.
func TestForwardClientLimit(t *testing.T) {
	release := make(chan struct{})
	u := startRawUpstream(t, func(u *rawUpstream, rc *rawConn) {
		for {
			head, err := rc.readHead(5 * time.Second)
			if err != nil {
				return
			}
			u.heads <- head
			if strings.HasPrefix(head, "GET /hold ") {
				select {
				case <-release:
				case <-time.After(5 * time.Second):
				}
			}
			io.WriteString(rc.c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
		}
	})
	srv := startProxy(t, upstream.Config{Servers: []string{u.addr}, MaxConnsPerServer: 8}, engine.UpstreamOptions{MaxConnsPerClient: 1})
	holder := dialFrom(t, srv, "127.0.0.2")
	io.WriteString(holder, "GET /hold HTTP/1.1\r\nHost: a\r\n\r\n")
	select {
	case <-u.heads:
	case <-time.After(3 * time.Second):
		t.Fatal("the held request did not reach the upstream")
	}
	second := dialFrom(t, srv, "127.0.0.2")
	br := bufio.NewReader(second)
	io.WriteString(second, "POST /second HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\nhi")
	resp, body := readFull(t, br, "POST")
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "1" || resp.Close {
		t.Fatalf("over the limit: %d Retry-After %q close=%v %q, want 429, Retry-After: 1, kept open", resp.StatusCode, resp.Header.Get("Retry-After"), resp.Close, body)
	}
	other := dialFrom(t, srv, "127.0.0.3")
	io.WriteString(other, "GET /other HTTP/1.1\r\nHost: a\r\n\r\n")
	if resp, _ := readFull(t, bufio.NewReader(other), "GET"); resp.StatusCode != 200 {
		t.Fatalf("another client: %d, want 200", resp.StatusCode)
	}
	close(release)
	if resp, _ := readFull(t, bufio.NewReader(holder), "GET"); resp.StatusCode != 200 {
		t.Fatalf("the held request: %d, want 200", resp.StatusCode)
	}
	io.WriteString(second, "GET /again HTTP/1.1\r\nHost: a\r\n\r\n")
	if resp, _ := readFull(t, br, "GET"); resp.StatusCode != 200 {
		t.Fatalf("after the held answer: %d, want 200", resp.StatusCode)
	}
	m := metricsOf(srv)
	if got := metricValue(m, `redirectd_upstream_requests_total{group="default",server="`+u.addr+`",result="client_limit"}`); got != "1" {
		t.Errorf("client_limit counted %q, want 1", got)
	}
	if got := metricValue(m, `redirectd_requests_total{outcome="forwarded",status="4xx"}`); got != "1" {
		t.Errorf("forwarded 4xx counted %q, want 1", got)
	}
}

// TestForwardBufferedBodies: bodies on either side of request_buffer_bytes,
// announced or chunked, arriving in one piece or two, reach the upstream
// whole; those that fit are read before the exchange (buffered), a
// chunked one of just the limit too, its end coming after the buffer is
// full; the others start it with their first byte past the buffer and
// pass the rest on (streamed), what did not fit of that read first.
func TestForwardBufferedBodies(t *testing.T) {
	addr := startUpstream(t, echoUpstream("a"))
	// On a fake clock, so that the test knows when the server has taken
	// the first of two pieces (sendBody).
	srv := plainTCP.startClockedProxy(t, upstream.Config{Servers: []string{addr}}, engine.UpstreamOptions{RequestBufferBytes: 1000})
	sum := func(b string) string { return fmt.Sprintf("body %d %x", len(b), sha256.Sum256([]byte(b))) }
	type body struct {
		size    int
		chunked bool
		split   int // the body goes in two writes, split after this many bytes of it on the wire (0: one; negative: from its end)
	}
	var bodies []body
	for _, size := range []int{1, 999, 1000, 1001, 5000} {
		for _, chunked := range []bool{false, true} {
			bodies = append(bodies, body{size, chunked, 0}, body{size, chunked, size / 2})
		}
	}
	// A chunked body of just the limit whose last chunk comes in a write
	// of its own.
	bodies = append(bodies, body{1000, true, -len("0\r\n\r\n")})
	want := map[string]int{}
	got := map[string]int{}
	for _, b := range bodies {
		payload := strings.Repeat(string(rune('a'+b.size%26)), b.size)
		var head, wire string
		if b.chunked {
			head = "POST /up HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
			wire = fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(payload), payload)
		} else {
			head = fmt.Sprintf("POST /up HTTP/1.1\r\nHost: a\r\nContent-Length: %d\r\n\r\n", b.size)
			wire = payload
		}
		if b.split < 0 {
			b.split += len(wire)
		}
		c := dial(t, srv.Server)
		if b.split == 0 {
			io.WriteString(c, head+wire)
		} else {
			srv.advance(time.Millisecond) // bytes that move now moved after the last body's
			srv.sendBody(t, c, head+wire[:b.split])
			io.WriteString(c, wire[b.split:])
		}
		resp, echoed := readFull(t, bufio.NewReader(c), "POST")
		if resp.StatusCode != 200 || !strings.Contains(echoed, sum(payload)) {
			t.Errorf("%+v: %d, upstream saw %q", b, resp.StatusCode, tail(echoed))
		}
		kind := "buffered"
		if b.size > 1000 {
			kind = "streamed"
		}
		want[kind]++
	}
	m := metricsOf(srv.Server)
	for kind := range want {
		var n int
		fmt.Sscan(metricValue(m, `redirectd_upstream_request_bodies_total{result="`+kind+`"}`), &n)
		got[kind] = n
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("bodies counted (-want +got):\n%s", diff)
	}
}

// TestForwardBodyMinRateSlowUpstream: body_min_rate is the client's
// rate, the bytes received from it, not the upstream's. An upstream that
// takes a 900 KiB body at about 420 KiB/s (64 KiB, then nothing for
// 150 ms, under a body_timeout of 300 ms), under half of a body_min_rate
// of 1 MiB/s, gets it whole from a client that sent it at once. (The
// kernel's buffers take most of the body here, so this does not show the
// clock held back while the body channel is full: see rateDeadline.)
func TestForwardBodyMinRateSlowUpstream(t *testing.T) {
	upAddr := testutil.Serve(t, func(uc net.Conn) {
		defer uc.Close()
		br := bufio.NewReaderSize(uc, 4096)
		length := 0
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return
			}
			if v, ok := strings.CutPrefix(strings.ToLower(line), "content-length: "); ok {
				fmt.Sscan(v, &length)
			}
			if line == "\r\n" {
				break
			}
		}
		for got := 0; got < length; {
			n, err := io.CopyN(io.Discard, br, int64(min(64<<10, length-got)))
			got += int(n)
			if err != nil {
				return
			}
			time.Sleep(150 * time.Millisecond)
		}
		fmt.Fprintf(uc, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%d", len(fmt.Sprint(length)), length)
	})
	srv := startProxy(t, upstream.Config{Servers: []string{upAddr}},
		engine.UpstreamOptions{RequestBufferBytes: 16 << 10, BodyMinRate: 1 << 20, BodyTimeout: 300 * time.Millisecond})
	const size = 900 << 10
	c := dial(t, srv)
	c.SetDeadline(time.Now().Add(testutil.Patience))
	go fmt.Fprintf(c, "POST /upload HTTP/1.1\r\nHost: a\r\nContent-Length: %d\r\n\r\n%s", size, strings.Repeat("u", size))
	start := time.Now()
	resp, body := readFull(t, bufio.NewReader(c), "POST")
	if resp.StatusCode != 200 || body != fmt.Sprint(size) {
		t.Fatalf("got %d %q after %v, want 200 and the whole body upstream", resp.StatusCode, body, time.Since(start))
	}
	m := metricsOf(srv)
	if got := metricValue(m, `redirectd_connections_timed_out_total{timeout="body_rate"}`); got != "0" {
		t.Errorf("body_rate timeouts %q, want 0", got)
	}
}
