package engine_test

import (
	"bufio"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/engine/upstream"
)

// upgradeSeen is what a wsRawUpstream saw of one upgrade request.
type upgradeSeen struct {
	head string
	// before is what came after the head before the upstream answered;
	// after, what came in the 300 ms after a refusal.
	before, after string
}

// wsRawUpstream answers plain requests 200 "ok" and upgrade requests, after
// watching for 300 ms what follows their head, with 101 (then echoes the
// bytes it gets, prefixed "echo:") or with 403 "nope". Each upgrade is
// reported on seen once answered.
func wsRawUpstream(t *testing.T, accept bool, seen chan<- upgradeSeen) *rawUpstream {
	return startRawUpstream(t, func(u *rawUpstream, rc *rawConn) {
		for {
			head, err := rc.readHead(5 * time.Second)
			if err != nil {
				return
			}
			if len(headerValues(head, "Upgrade")) == 0 {
				u.heads <- head
				if _, err := rc.c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")); err != nil {
					return
				}
				continue
			}
			s := upgradeSeen{head: head, before: rc.unreadWithin(300 * time.Millisecond)}
			if !accept {
				rc.c.Write([]byte("HTTP/1.1 403 Forbidden\r\nContent-Length: 4\r\n\r\nnope"))
				s.after = rc.unreadWithin(300 * time.Millisecond)
				report(seen, s)
				return
			}
			rc.consumeAll()
			rc.c.Write([]byte("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"))
			report(seen, s)
			for {
				if err := rc.fill(time.Now().Add(5 * time.Second)); err != nil {
					return
				}
				if _, err := rc.c.Write([]byte("echo:" + rc.consumeAll())); err != nil {
					return
				}
			}
		}
	})
}

// report passes s on unless the test stopped listening.
func report(seen chan<- upgradeSeen, s upgradeSeen) {
	select {
	case seen <- s:
	default:
	}
}

const upgradeHead = "GET /chat HTTP/1.1\r\nHost: site.example\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
	"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"

// smuggled is a request sent right behind an upgrade, claiming an address.
const smuggled = "GET /second HTTP/1.1\r\nHost: site.example\r\nX-Forwarded-For: 6.6.6.6\r\n\r\n"

func waitSeen(t *testing.T, seen <-chan upgradeSeen) upgradeSeen {
	t.Helper()
	select {
	case s := <-seen:
		return s
	case <-time.After(5 * time.Second):
		t.Fatal("the upstream got no upgrade request within 5s")
		return upgradeSeen{}
	}
}

// TestWebSocketRefusedThenRequest: bytes behind an upgrade head are not
// the upstream's until it answers 101. A refusal is
// relayed, and a request sent behind the head is parsed and forwarded as
// any other, with redirectd's X-Forwarded-For.
func TestWebSocketRefusedThenRequest(t *testing.T) {
	t.Parallel()
	testWebSocketRefusedThenRequest(t, plainTCP)
}

func testWebSocketRefusedThenRequest(t *testing.T, tr transport) {
	seen := make(chan upgradeSeen, 1)
	up := wsRawUpstream(t, false, seen)
	srv := tr.startProxy(t, upstream.Config{Servers: []string{up.addr}}, engine.UpstreamOptions{})
	c := tr.dial(t, srv)
	io.WriteString(c, upgradeHead+smuggled)
	br := bufio.NewReader(c)
	resp, body := readFull(t, br, "GET")
	if resp.StatusCode != 403 || body != "nope" || resp.Close {
		t.Fatalf("refused upgrade: %d %q close=%v", resp.StatusCode, body, resp.Close)
	}
	resp, body = readFull(t, br, "GET")
	if resp.StatusCode != 200 || body != "ok" {
		t.Fatalf("request behind the refused upgrade: %d %q", resp.StatusCode, body)
	}
	s := waitSeen(t, seen)
	if s.before != "" || s.after != "" {
		t.Errorf("the upgrade's connection carried bytes after its head:\nbefore the answer %q\nafter it %q", s.before, s.after)
	}
	head := up.nextHead(t)
	if got, want := headerValues(head, "X-Forwarded-For"), []string{"6.6.6.6, 127.0.0.1"}; requestLine(head) != "GET /second HTTP/1.1" || !slices.Equal(got, want) {
		t.Errorf("the request behind the upgrade reached the upstream as:\n%s", head)
	}
}

// TestWebSocketBytesAfter101: what the client sends right behind its
// upgrade head reaches the upstream once it has answered 101, not before.
func TestWebSocketBytesAfter101(t *testing.T) {
	t.Parallel()
	testWebSocketBytesAfter101(t, plainTCP)
}

func testWebSocketBytesAfter101(t *testing.T, tr transport) {
	seen := make(chan upgradeSeen, 1)
	up := wsRawUpstream(t, true, seen)
	srv := tr.startProxy(t, upstream.Config{Servers: []string{up.addr}}, engine.UpstreamOptions{})
	c := tr.dial(t, srv)
	io.WriteString(c, upgradeHead+"frame-1")
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, &http.Request{Method: "GET"})
	if err != nil || resp.StatusCode != 101 {
		t.Fatalf("handshake: %v %v", resp, err)
	}
	if s := waitSeen(t, seen); s.before != "" {
		t.Errorf("bytes behind the head reached the upstream before its 101: %q", s.before)
	}
	got := make([]byte, len("echo:frame-1"))
	if _, err := io.ReadFull(br, got); err != nil || string(got) != "echo:frame-1" {
		t.Fatalf("tunnelled bytes: %q %v", got, err)
	}
	io.WriteString(c, "frame-2")
	got = got[:len("echo:frame-2")]
	if _, err := io.ReadFull(br, got); err != nil || string(got) != "echo:frame-2" {
		t.Fatalf("tunnelled bytes: %q %v", got, err)
	}
}

// TestWebSocketSeveralUpgrades: an upgrade naming its protocol twice is
// ambiguous, and answered 400 without reaching the upstream.
func TestWebSocketSeveralUpgrades(t *testing.T) { testWebSocketSeveralUpgrades(t, plainTCP) }

func testWebSocketSeveralUpgrades(t *testing.T, tr transport) {
	seen := make(chan upgradeSeen, 1)
	up := wsRawUpstream(t, true, seen)
	srv := tr.startProxy(t, upstream.Config{Servers: []string{up.addr}}, engine.UpstreamOptions{})
	for _, upgrades := range []string{"Upgrade: h2c\r\nUpgrade: websocket\r\n", "Upgrade: websocket\r\nUpgrade: websocket\r\n"} {
		c := tr.dial(t, srv)
		io.WriteString(c, "GET /chat HTTP/1.1\r\nHost: site.example\r\n"+upgrades+"Connection: Upgrade\r\n\r\n")
		br := bufio.NewReader(c)
		resp, _ := readFull(t, br, "GET")
		if resp.StatusCode != 400 || !resp.Close {
			t.Errorf("%q: %d close=%v, want 400 and close", upgrades, resp.StatusCode, resp.Close)
		}
		expectClosed(t, br)
	}
	// A plain request after them reaches the upstream, and is all that
	// does: the refused upgrades were answered before it was sent, on the
	// loop, without an exchange.
	c := tr.dial(t, srv)
	io.WriteString(c, "GET /after HTTP/1.1\r\nHost: site.example\r\n\r\n")
	if resp, _ := readFull(t, bufio.NewReader(c), "GET"); resp.StatusCode != 200 {
		t.Fatalf("the request after: %d, want 200", resp.StatusCode)
	}
	var got []string
	for _, rc := range up.connections() {
		got = append(got, requestLine(rc.received()))
	}
	if diff := cmp.Diff([]string{"GET /after HTTP/1.1"}, got); diff != "" {
		t.Errorf("request lines the upstream received, per connection (-want +got):\n%s", diff)
	}
}

// TestTunnelHeaderPolicy: an upgrade goes upstream with the headers a
// plain forward of the same request gets (hop-by-hop ones dropped,
// X-Forwarded-*, host_header), plus the upgrade itself.
func TestTunnelHeaderPolicy(t *testing.T) {
	t.Parallel()
	testTunnelHeaderPolicy(t, plainTCP)
}

func testTunnelHeaderPolicy(t *testing.T, tr transport) {
	seen := make(chan upgradeSeen, 1)
	up := wsRawUpstream(t, true, seen)
	pool := upstream.New(upstream.Config{Servers: []string{up.addr}, ConnectTimeout: time.Second,
		ReadTimeout: 5 * time.Second, WriteTimeout: 5 * time.Second, MaxConnsPerServer: 4}, nil)
	t.Cleanup(pool.Close)
	// https_redirect trusts X-Forwarded-Proto: https, which then goes on.
	srv := tr.start(t, engine.Options{HTTPSRedirect: true,
		Upstream: &engine.UpstreamOptions{Pool: pool, HostFromUpstream: true}})
	const headers = "Host: site.example\r\nX-Hop: dropped\r\nKeep-Alive: timeout=5\r\nTE: trailers\r\n" +
		"Proxy-Connection: keep-alive\r\nx-lower: Kept As Sent\r\nX-Forwarded-For: 192.0.2.1\r\n" +
		"X-Forwarded-Proto: https\r\nX-Forwarded-Host: spoofed.example\r\nForwarded: for=127.0.0.1;host=admin.internal\r\n" +
		"X-Real-IP: 127.0.0.1\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"

	c := tr.dial(t, srv)
	io.WriteString(c, "GET /plain HTTP/1.1\r\n"+headers+"Connection: X-Hop\r\n\r\n")
	if resp, body := readFull(t, bufio.NewReader(c), "GET"); resp.StatusCode != 200 || body != "ok" {
		t.Fatalf("plain forward: %d %q", resp.StatusCode, body)
	}
	plain := up.nextHead(t)

	c = tr.dial(t, srv)
	io.WriteString(c, "GET /plain HTTP/1.1\r\n"+headers+"Upgrade: websocket\r\nConnection: Upgrade, X-Hop\r\n\r\n")
	if resp, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: "GET"}); err != nil || resp.StatusCode != 101 {
		t.Fatalf("upgrade: %v %v", resp, err)
	}
	tunnel := waitSeen(t, seen).head

	fields := func(head string) []string {
		lines := strings.Split(strings.TrimSuffix(head, "\r\n\r\n"), "\r\n")
		slices.Sort(lines)
		return lines
	}
	want := append(fields(plain), "Connection: Upgrade", "Upgrade: websocket")
	slices.Sort(want)
	if d := cmp.Diff(want, fields(tunnel)); d != "" {
		t.Errorf("the tunnel's head is not the plain forward's plus the upgrade (-want +got):\n%s", d)
	}
	for name, v := range map[string][]string{
		"Host":              {up.addr},
		"X-Forwarded-For":   {"192.0.2.1, 127.0.0.1"},
		"X-Forwarded-Proto": {"https"},
		"X-Forwarded-Host":  {"site.example"},
		"x-lower":           {"Kept As Sent"},
		"Keep-Alive":        nil, "TE": nil, "X-Hop": nil, "Proxy-Connection": nil,
		"Forwarded": nil, "X-Real-IP": nil, // a client not in trusted_proxies
	} {
		if got := headerValues(tunnel, name); !slices.Equal(got, v) {
			t.Errorf("%s: %q, want %q; the tunnel's head:\n%s", name, got, v, tunnel)
		}
	}
}

// TestWebSocketOnHTTP10: Upgrade means nothing on HTTP/1.0 (RFC 9110 7.8);
// the request is forwarded as a plain one, without it.
func TestWebSocketOnHTTP10(t *testing.T) {
	seen := make(chan upgradeSeen, 1)
	up := wsRawUpstream(t, true, seen)
	srv := startProxy(t, upstream.Config{Servers: []string{up.addr}}, engine.UpstreamOptions{})
	c := dial(t, srv)
	io.WriteString(c, "GET /chat HTTP/1.0\r\nHost: site.example\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n")
	if resp, body := readFull(t, bufio.NewReader(c), "GET"); resp.StatusCode != 200 || body != "ok" {
		t.Fatalf("answer: %d %q", resp.StatusCode, body)
	}
	if head := up.nextHead(t); len(headerValues(head, "Upgrade")) != 0 || len(headerValues(head, "Connection")) != 0 {
		t.Errorf("forwarded with its upgrade:\n%s", head)
	}
}
