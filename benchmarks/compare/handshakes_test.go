package main

import (
	"crypto/tls"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/redirectd/redirectd/internal/testutil"
)

// TestFullHandshakes runs the tls-full load generator against a Go TLS
// server that counts what it sees: every connection a full handshake
// (none resumed, though the server sends tickets) over X25519, each
// answer checked, so a wrong status counts as errors.
func TestFullHandshakes(t *testing.T) {
	t.Parallel()
	f, err := writeTLSFiles(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cert, err := tls.LoadX509KeyPair(f.Cert, f.Key)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var mu sync.Mutex
	seen := map[string]int{}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				tc := tls.Server(c, &tls.Config{Certificates: []tls.Certificate{cert}})
				tc.SetDeadline(time.Now().Add(testutil.Patience))
				if err := tc.Handshake(); err != nil {
					return
				}
				st := tc.ConnectionState()
				mu.Lock()
				seen[st.CurveID.String()]++
				if st.DidResume {
					seen["resumed"]++
				}
				mu.Unlock()
				io.ReadFull(tc, make([]byte, 4))
				tc.Write([]byte("HTTP/1.1 301 Moved Permanently\r\nConnection: close\r\n\r\n"))
			}()
		}
	}()
	req := []byte("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
	res := fullHandshakes(io.Discard, ln.Addr().String(), tlsServerName, req, 301, 4, 100*time.Millisecond, 300*time.Millisecond)
	if res.Handshakes == 0 || res.Errors != 0 {
		t.Fatalf("%+v, want handshakes and no error", res)
	}
	mu.Lock()
	if seen["resumed"] != 0 || seen["X25519"] == 0 || len(seen) != 1 {
		t.Errorf("the server saw %v, want X25519 full handshakes only", seen)
	}
	mu.Unlock()
	if res := fullHandshakes(io.Discard, ln.Addr().String(), tlsServerName, req, 302, 2, 0, 200*time.Millisecond); res.Handshakes != 0 || res.Errors == 0 {
		t.Errorf("answers with the wrong status: %+v, want every one an error", res)
	}
}
