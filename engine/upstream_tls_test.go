package engine_test

import (
	"bufio"
	"crypto/tls"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/engine/upstream"
	"github.com/redirectd/redirectd/internal/testutil"
)

// tlsOrigin is a net/http TLS server with a certificate of ca for names;
// conns counts the TLS connections it accepted.
type tlsOrigin struct {
	addr  string
	conns atomic.Int64
}

func startTLSOrigin(t *testing.T, ca *testutil.CA, clientCAs *testutil.CA, names ...string) *tlsOrigin {
	t.Helper()
	return startTLSOriginWith(t, echoUpstream("tls"), ca, clientCAs, names...)
}

// startTLSOriginWith is startTLSOrigin serving h.
func startTLSOriginWith(t *testing.T, h http.Handler, ca *testutil.CA, clientCAs *testutil.CA, names ...string) *tlsOrigin {
	t.Helper()
	o := &tlsOrigin{}
	ts := httptest.NewUnstartedServer(h)
	ts.TLS = &tls.Config{Certificates: []tls.Certificate{ca.TLSCert(t, names...)}}
	if clientCAs != nil {
		ts.TLS.ClientAuth, ts.TLS.ClientCAs = tls.RequireAndVerifyClientCert, clientCAs.Pool()
	}
	ts.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			o.conns.Add(1)
		}
	}
	ts.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes are the tests'

	ts.StartTLS()
	t.Cleanup(ts.Close)
	o.addr = ts.Listener.Addr().String()
	return o
}

// startTLSProxy forwards every miss to o over TLS with client settings
// tc, logging into the buffer returned.
func startTLSProxy(t *testing.T, o *tlsOrigin, tc *tls.Config) (*engine.Server, *testutil.LockedBuffer) {
	t.Helper()
	var logs testutil.LockedBuffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	up := newGroupLog(t, "blog", upstream.Config{Targets: []upstream.Target{{Addr: o.addr, TLS: tc}}}, engine.UpstreamOptions{}, log)
	srv := startServerWith(t, engine.Options{Upstream: up, Logger: log})
	return srv, &logs
}

// TestUpstreamTLS forwards to real TLS origins: verified against a
// ca_file's CA with SNI, the connection kept alive and reused; a
// certificate for another name or from an unknown CA gives the client
// 502 and a log line saying why; an origin requiring a client
// certificate gets one.
func TestUpstreamTLS(t *testing.T) {
	t.Parallel()
	ca := testutil.NewCA(t)
	t.Run("verified and kept alive", func(t *testing.T) {
		t.Parallel()
		o := startTLSOrigin(t, ca, nil, "blog.example.net")
		srv, _ := startTLSProxy(t, o, &tls.Config{ServerName: "blog.example.net", RootCAs: ca.Pool()})
		c := dial(t, srv)
		br := bufio.NewReader(c)
		for i := range 5 {
			io.WriteString(c, "GET /post HTTP/1.1\r\nHost: www.example.com\r\n\r\n")
			resp, body := readFull(t, br, "GET")
			if resp.StatusCode != 200 || resp.Header.Get("X-Upstream") != "tls" || !strings.Contains(body, "GET /post") {
				t.Fatalf("request %d: %d %q", i, resp.StatusCode, body)
			}
		}
		if n := o.conns.Load(); n != 1 {
			t.Errorf("the origin accepted %d connections for 5 requests in a row, want 1 kept alive", n)
		}
	})
	t.Run("wrong name", func(t *testing.T) {
		t.Parallel()
		o := startTLSOrigin(t, ca, nil, "a.example")
		srv, logs := startTLSProxy(t, o, &tls.Config{ServerName: "b.example", RootCAs: ca.Pool()})
		expect502(t, srv, logs, "upstream blog server "+o.addr+": TLS: ", "certificate is valid for a.example, not b.example")
	})
	t.Run("unknown CA", func(t *testing.T) {
		t.Parallel()
		o := startTLSOrigin(t, testutil.NewCA(t), nil, "blog.example.net")
		srv, logs := startTLSProxy(t, o, &tls.Config{ServerName: "blog.example.net", RootCAs: ca.Pool()})
		expect502(t, srv, logs, "upstream blog server "+o.addr+": TLS: ", "certificate signed by unknown authority")
	})
	t.Run("client certificate", func(t *testing.T) {
		t.Parallel()
		clients := testutil.NewCA(t)
		o := startTLSOrigin(t, ca, clients, "blog.example.net")
		srv, _ := startTLSProxy(t, o, &tls.Config{ServerName: "blog.example.net", RootCAs: ca.Pool(),
			Certificates: []tls.Certificate{clients.TLSCert(t, "redirectd.client")}})
		if status, who := askWho(t, srv, "a", "/x"); status != 200 || who != "tls" {
			t.Errorf("with a client certificate: %d from %q, want 200", status, who)
		}
		srv, logs := startTLSProxy(t, o, &tls.Config{ServerName: "blog.example.net", RootCAs: ca.Pool()})
		expect502(t, srv, logs, "upstream blog server "+o.addr+": TLS: the server asks for a client certificate, and none is configured")
	})
	t.Run("websocket", func(t *testing.T) {
		t.Parallel()
		o := startTLSOriginWith(t, wsEcho("tls-ws"), ca, nil, "blog.example.net")
		srv, _ := startTLSProxy(t, o, &tls.Config{ServerName: "blog.example.net", RootCAs: ca.Pool()})
		c := dial(t, srv)
		io.WriteString(c, "GET /ws HTTP/1.1\r\nHost: www.example.com\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n")
		br := bufio.NewReader(c)
		resp, err := http.ReadResponse(br, &http.Request{Method: "GET"})
		if err != nil || resp.StatusCode != 101 || resp.Header.Get("X-Upstream") != "tls-ws" {
			t.Fatalf("upgrade over TLS: %v %v", resp, err)
		}
		io.WriteString(c, "hello")
		c.SetReadDeadline(time.Now().Add(testutil.Patience))
		got := make([]byte, len("echo:hello"))
		if _, err := io.ReadFull(br, got); err != nil || string(got) != "echo:hello" {
			t.Errorf("through the TLS tunnel: %q, %v", got, err)
		}
	})
	t.Run("health check over TLS", func(t *testing.T) {
		t.Parallel()
		o := startTLSOrigin(t, ca, nil, "blog.example.net")
		up := newGroup(t, "blog", upstream.Config{Targets: []upstream.Target{{Addr: o.addr, TLS: &tls.Config{ServerName: "blog.example.net", RootCAs: ca.Pool()}}},
			HealthPath: "/healthz", HealthInterval: 50 * time.Millisecond}, engine.UpstreamOptions{})
		bad := newGroup(t, "bad", upstream.Config{Targets: []upstream.Target{{Addr: o.addr, TLS: &tls.Config{ServerName: "other.example", RootCAs: ca.Pool()}}},
			HealthPath: "/healthz", HealthInterval: 50 * time.Millisecond}, engine.UpstreamOptions{})
		srv := startServerWith(t, engine.Options{Upstream: up, Routes: []engine.UpstreamRoute{{Prefix: "/bad/", Group: bad}}})
		waitMetric(t, srv, `redirectd_upstream_server_up{group="blog",server="`+o.addr+`"}`, 1)
		waitMetric(t, srv, `redirectd_upstream_server_up{group="bad",server="`+o.addr+`"}`, 0)
		if o.conns.Load() == 0 {
			t.Error("no health check reached the origin")
		}
	})
}

// expect502 asks srv for a page and wants a 502, and a log line holding
// each of want.
func expect502(t *testing.T, srv *engine.Server, logs *testutil.LockedBuffer, want ...string) {
	t.Helper()
	c := dial(t, srv)
	io.WriteString(c, "GET /post HTTP/1.1\r\nHost: www.example.com\r\n\r\n")
	resp, body := readFull(t, bufio.NewReader(c), "GET")
	if resp.StatusCode != 502 || !strings.Contains(body, "could not be reached") {
		t.Errorf("got %d %q, want 502", resp.StatusCode, body)
	}
	ok := testutil.Eventually(testutil.Patience, func() bool {
		for _, w := range want {
			if !strings.Contains(logs.String(), w) {
				return false
			}
		}
		return true
	})
	if !ok {
		t.Errorf("the log does not say %q:\n%s", want, logs.String())
	}
}
