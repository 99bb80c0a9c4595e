package engine_test

import (
	"bufio"
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"io"
	"math/big"
	"net"
	"runtime/pprof"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/internal/testutil"
)

// transport is how a test reaches the traffic port. The tests that apply
// over TLS take it as a parameter: run with overTLS, tr.start adds a TLS
// listener and tr.dial connects to it with the handshake done. Being a
// parameter, not a package variable, the plain and TLS runs of a test
// share nothing and may run side by side.
type transport bool

const (
	plainTCP transport = false
	overTLS  transport = true
)

var (
	testCertOnce sync.Once
	testCert     tls.Certificate
	testRoots    *x509.CertPool
)

// testCertificate is a self-signed ECDSA P-256 certificate for
// example.com, *.example.com and 127.0.0.1.
func testCertificate(t testing.TB) (tls.Certificate, *x509.CertPool) {
	testCertOnce.Do(func() {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			panic(err)
		}
		tmpl := &x509.Certificate{
			SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "example.com"},
			DNSNames: []string{"example.com", "*.example.com"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
			KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
			BasicConstraintsValid: true, IsCA: true,
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
		if err != nil {
			panic(err)
		}
		leaf, _ := x509.ParseCertificate(der)
		testCert = tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}
		testRoots = x509.NewCertPool()
		testRoots.AddCert(leaf)
	})
	return testCert, testRoots
}

func testTLSOptions(t testing.TB) *engine.TLSOptions {
	cert, _ := testCertificate(t)
	return &engine.TLSOptions{Listen: "127.0.0.1:0", Config: &tls.Config{
		Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12, NextProtos: []string{"http/1.1"},
	}}
}

// dialTLS connects to the TLS port; the handshake happens with the first
// write or read, so that a connection the server refuses at once reads as
// closed, as on the plain port.
func dialTLS(t *testing.T, srv *engine.Server) net.Conn {
	t.Helper()
	_, roots := testCertificate(t)
	raw, err := net.DialTimeout("tcp", srv.TLSAddr(), 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	c := tls.Client(raw, &tls.Config{ServerName: "example.com", RootCAs: roots, NextProtos: []string{"http/1.1"}})
	c.SetDeadline(time.Now().Add(testutil.Patience))
	t.Cleanup(func() { c.Close() })
	return c
}

// TestOverTLS runs the traffic port's tests that apply over TLS: the same
// answers, framing, strictness, pipelining, timeouts, limits and
// forwarding, through the TLS listener.
func TestOverTLS(t *testing.T) {
	// serial marks the tests that measure timeouts or hold a connection
	// quiet for a set time: they run one at a time, alone, so that load
	// from the others does not move their clocks. The rest run in
	// parallel after them.
	tests := []struct {
		name   string
		f      func(*testing.T, transport)
		serial bool
	}{
		{"Answers", testAnswers, false},
		{"GoneAndHeaders", testGoneAndHeaders, false},
		{"GoneRawBytes", testGoneRawBytes, false},
		{"Pipelined", testPipelined, false},
		{"SplitRequest", testSplitRequest, false},
		{"BodyIsSkipped", testBodyIsSkipped, false},
		{"HTTP10KeepAlive", testHTTP10KeepAlive, false},
		{"Malformed", testMalformed, false},
		{"StrictRequestLine", testStrictRequestLine, false},
		{"StrictHeaders", testStrictHeaders, false},
		{"StrictFraming", testStrictFraming, false},
		{"IdleTimeout", testIdleTimeout, false},       // on a fake clock
		{"HeaderTimeout", testHeaderTimeout, false},   // on a fake clock
		{"LingeringClose", testLingeringClose, false}, // on a fake clock
		{"ConnectionsPerIP", testConnectionsPerIP, true},
		{"MaxConnections", testMaxConnections, false},
		{"UnreadAnswersClose", testUnreadAnswersClose, false},
		{"ForwardRequest", testForwardRequest, false},
		{"ForwardBodies", testForwardBodies, true},
		{"ForwardAnswers", testForwardAnswers, false}, // measures no time: its events wait on each other
		{"ForwardPipelined", testForwardPipelined, true},
		{"ForwardFailures", testForwardFailures, true},
		{"ForwardErrorKeepsHTTP10KeepAlive", testForwardErrorKeepsHTTP10KeepAlive, false},
		{"ForwardTargetAndHost", testForwardTargetAndHost, false},
		{"OpenRedirects", testOpenRedirects, false},
		{"RequestLineParts", testRequestLineParts, false},
		{"WebSocketTunnel", testWebSocketTunnel, true},
		{"WebSocketRefused", testWebSocketRefused, false},
		{"WebSocketRefusedThenRequest", testWebSocketRefusedThenRequest, false},
		{"WebSocketBytesAfter101", testWebSocketBytesAfter101, false},
		{"WebSocketSeveralUpgrades", testWebSocketSeveralUpgrades, true},
		{"TunnelHeaderPolicy", testTunnelHeaderPolicy, false},
		{"TunnelIdleTimeout", testTunnelIdleTimeout, true},
		{"ForwardBodyTimeoutWithoutProgress", testForwardBodyTimeoutWithoutProgress, false}, // on a fake clock
		{"UpstreamSlowAnswer", testUpstreamSlowAnswer, true},
		{"UpstreamSlowUpload", testUpstreamSlowUpload, true},
		{"UpstreamLargeAnswerHead", testUpstreamLargeAnswerHead, false},
		{"PoolWaitTimeout", testPoolWaitTimeout, true},
		{"SendTimeout", testSendTimeout, true},
		{"MissesForwarded", testMissesForwarded, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !tc.serial {
				t.Parallel()
			}
			tc.f(t, overTLS)
		})
	}
}

// readTLSAnswer sends req over a fresh TLS connection and reads the answer.
func readTLSAnswer(t *testing.T, srv *engine.Server, req string) (*bufio.Reader, net.Conn) {
	t.Helper()
	c := dialTLS(t, srv)
	io.WriteString(c, req)
	return bufio.NewReader(c), c
}

// TestTLSQuietConnection serves a TLS connection across its quiet
// hand-overs (a connection that has read nothing for a quarter second
// waits on a fresh goroutine for its socket to be readable, and the first
// wait after the handshake reads with a 512-byte buffer): requests larger
// than that buffer, a request split across a hand-over, and a pipelined burst
// after one, each answered on the same connection.
func TestTLSQuietConnection(t *testing.T) {
	srv := startServerWith(t, engine.Options{TLS: testTLSOptions(t)})
	before := waitingOnSocket()
	c := dialTLS(t, srv)
	c.SetDeadline(time.Now().Add(20 * time.Second))
	br := bufio.NewReader(c)
	// quiet waits until the connection, quiet, has been handed over.
	quiet := func() {
		t.Helper()
		testutil.WaitFor(t, 30*time.Second, "the quiet connection's hand-over", func() bool { return waitingOnSocket() == before+1 })
	}
	big := "GET /old HTTP/1.1\r\nHost: a\r\nCookie: " + strings.Repeat("c", 3000) + "\r\n\r\n"
	want := answer{301, "https://example.com/new", "", false}
	steps := []struct {
		name  string
		parts []string
		n     int
	}{
		{"first request, larger than the waiting buffer", []string{big}, 1},
		{"after a hand-over, larger than the waiting buffer", []string{big}, 1},
		{"split across a hand-over", []string{big[:40], big[40:]}, 1},
		{"pipelined after a hand-over", []string{strings.Repeat("GET /old HTTP/1.1\r\nHost: a\r\n\r\n", 3) + big}, 4},
	}
	for i, st := range steps {
		if i > 0 {
			quiet()
		}
		for j, p := range st.parts {
			if j > 0 {
				quiet()
			}
			if _, err := io.WriteString(c, p); err != nil {
				t.Fatalf("%s: %v", st.name, err)
			}
		}
		for range st.n {
			if got := readAnswer(t, br, "GET"); got != want {
				t.Fatalf("%s: got %+v, want %+v", st.name, got, want)
			}
		}
	}
}

// TestTLSSlowHandshakeIsNotIdle checks that the time a handshake takes
// (here a certificate that takes longer than idle_timeout to choose, as
// an on-demand order does) is not counted as idle: the connection stays
// open after it for a whole idle_timeout, and answers. The server's clock
// is a fake one, moved while the certificate is held back.
func TestTLSSlowHandshakeIsNotIdle(t *testing.T) {
	const idle = 10 * time.Second
	opts := testTLSOptions(t)
	cert := opts.Config.Certificates[0]
	opts.Config.Certificates = nil
	choosing, chosen := make(chan struct{}, 1), make(chan struct{})
	release := sync.OnceFunc(func() { close(chosen) })
	opts.Config.GetCertificate = func(*tls.ClientHelloInfo) (*tls.Certificate, error) {
		choosing <- struct{}{}
		<-chosen
		return &cert, nil
	}
	// Real time: only a bound on a test that hangs.
	opts.HandshakeTimeout = 3 * idle
	srv := plainTCP.startClocked(t, engine.Options{TLS: opts, IdleTimeout: idle, HeaderTimeout: time.Hour})
	t.Cleanup(release) // before the server stops: its handshake would hold the stop
	c := dialTLS(t, srv.Server)
	c.SetDeadline(time.Now().Add(time.Minute))
	handshake := make(chan error, 1)
	go func() { handshake <- c.(*tls.Conn).Handshake() }()
	<-choosing
	srv.advance(idle + idle/2)
	srv.wantTimedOut(t, "idle", 0)
	release()
	if err := <-handshake; err != nil {
		t.Fatal(err)
	}
	srv.waitConn(t, "the end of the handshake", func(c engine.ConnState) bool { return c.Active == srv.now() })
	srv.advance(idle - time.Millisecond) // the client takes its time, within idle_timeout
	srv.wantTimedOut(t, "idle", 0)
	io.WriteString(c, "GET /old HTTP/1.1\r\nHost: a\r\n\r\n")
	if got, want := readAnswer(t, bufio.NewReader(c), "GET"), (answer{301, "https://example.com/new", "", false}); got != want {
		t.Errorf("after a handshake longer than idle_timeout: got %+v, want %+v", got, want)
	}
}

// waitingOnSocket counts the goroutines in tlsport.Conn.waitReadable:
// connections gone quiet, waiting for their socket to be readable.
func waitingOnSocket() int {
	var b bytes.Buffer
	pprof.Lookup("goroutine").WriteTo(&b, 2)
	return strings.Count(b.String(), "tlsport.(*Conn).waitReadable(")
}
