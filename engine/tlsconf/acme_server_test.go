package tlsconf

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/engine/testport"
	"github.com/redirectd/redirectd/internal/testutil"
	"github.com/redirectd/redirectd/matcher"
)

// TestACMEThroughServer obtains a certificate from Pebble with the real
// server answering the challenges: HTTP-01 on its plain port (before
// https_redirect, which is on), TLS-ALPN-01 on its TLS listener. The
// certificate then serves the rules over HTTPS; with HTTP-01 it is also
// renewed.
func TestACMEThroughServer(t *testing.T) {
	if testing.Short() {
		t.Skip("issues and renews certificates: about 20s")
	}
	renewCheckInterval = 500 * time.Millisecond
	t.Cleanup(func() { renewCheckInterval = 0; onlyChallenge = "" })
	for _, ch := range []string{"http-01", "tls-alpn-01"} {
		t.Run(ch, func(t *testing.T) {
			onlyChallenge = ch
			testACMEThroughServer(t, ch)
		})
	}
}

// handshake dials addr and completes a handshake (the server sends
// nothing before a request).
func handshake(addr string, cfg *tls.Config) (tls.ConnectionState, error) {
	c, err := tls.DialWithDialer(&net.Dialer{Timeout: testutil.Patience}, "tcp", addr, cfg)
	if err != nil {
		return tls.ConnectionState{}, err
	}
	defer c.Close()
	return c.ConnectionState(), nil
}

func freeAddr(t *testing.T) (string, int) { return testport.Addr(t) }

func testACMEThroughServer(t *testing.T, challenge string) {
	httpAddr, httpPort := freeAddr(t)
	tlsAddr, tlsPort := freeAddr(t)
	pb := startPebble(t, httpPort, tlsPort, 12*time.Second)
	cfg := &Settings{
		HTTPListen: httpAddr,
		TLSListen:  tlsAddr,
		ACME: &ACME{CA: pb.dirURL, CARoot: pb.caRoot, Storage: t.TempDir(),
			Names: []string{"managed.example.com"}},
	}
	tlsSet := metrics.NewSet()
	m, err := New(cfg, nil, tlsSet, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	rules, err := matcher.Compile([]matcher.Rule{{Kind: matcher.Exact, From: "/old", To: "/new", Status: 301}})
	if err != nil {
		t.Fatal(err)
	}
	srv := engine.New(engine.Options{
		Listen: httpAddr, EventLoops: 1, HTTPSRedirect: true,
		TLS: &engine.TLSOptions{Listen: tlsAddr, Config: m.TLSConfig(), Handshake: func(st *tls.ConnectionState, err error) {
			if err != nil {
				m.HandshakeFailed(err)
			} else {
				m.HandshakeDone(st.Version)
			}
		}},
		ACMEChallenge: m.HTTPChallenge,
	}, rules)
	done := make(chan error, 1)
	go func() { done <- srv.Run() }()
	select {
	case <-srv.Ready():
	case err := <-done:
		t.Fatal(err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Stop(ctx)
		<-done
	}()
	m.Start()

	client := &tls.Config{ServerName: "managed.example.com", RootCAs: pb.roots}
	// serial waits for a certificate for the name, verified against
	// Pebble's root, other than not.
	serial := func(not string, within time.Duration) string {
		t.Helper()
		var last error
		var got string
		if testutil.EventuallyEvery(within, 100*time.Millisecond, func() bool { // a handshake per look
			st, err := handshake(tlsAddr, client)
			if err != nil {
				last = err
				return false
			}
			if s := st.PeerCertificates[0].SerialNumber.String(); s != not {
				got = s
				return true
			}
			last = fmt.Errorf("still serial %s", not)
			return false
		}) {
			return got
		}
		t.Fatalf("no new certificate within %s: %v", within, last)
		return ""
	}
	first := serial("", 30*time.Second)

	// The certificate serves the rules.
	c, err := tls.Dial("tcp", tlsAddr, client)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(testutil.Patience))
	io.WriteString(c, "GET /old HTTP/1.1\r\nHost: managed.example.com\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	c.Close()
	if err != nil || resp.StatusCode != 301 || resp.Header.Get("Location") != "/new" {
		t.Fatalf("GET /old over the ACME certificate: %v %v", resp, err)
	}

	var b bytes.Buffer
	srv.WriteMetrics(&b)
	nonePlain := strings.Contains(b.String(), `redirectd_acme_http_challenges_total{result="answered"} 0`)
	switch challenge {
	case "http-01":
		if nonePlain {
			t.Errorf("the plain port answered no HTTP-01 challenge:\n%s", b.String())
		}
		renewed := serial(first, 40*time.Second) // generous: certmagic renews a 12 s certificate at about 8 s, later on a loaded machine
		t.Logf("serial %s, renewed as %s", first, renewed)
	case "tls-alpn-01":
		if !nonePlain {
			t.Errorf("the plain port answered HTTP-01 challenges with only TLS-ALPN-01 enabled")
		}
	}
}
