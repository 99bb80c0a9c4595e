package engine_test

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/engine/tlsconf"
	"github.com/redirectd/redirectd/internal/testutil"
)

// handshakeClientEnv, set in a child process of the test binary, makes
// TestTLSHandshakeClient the client of BenchmarkTLSHandshake: the value is
// the server's address and the case's name.
const handshakeClientEnv = "REDIRECTD_TLS_HANDSHAKE_CLIENT"

// handshakeCases are the clients BenchmarkTLSHandshake times, each a full
// handshake (no session offered), one request with Connection: close and
// the close, as wrk's tls-churn makes them without resumption.
var handshakeCases = map[string]*tls.Config{
	// OpenSSL 3.0 (wrk, curl, nginx's upstreams on Debian 12): TLS 1.3,
	// one X25519 key share, P-256 and P-384 offered.
	"tls13-x25519": {MinVersion: tls.VersionTLS13, CurvePreferences: []tls.CurveID{tls.X25519, tls.CurveP256, tls.CurveP384}},
	// A browser of 2025 on (Chrome 131+, Firefox 132+): the
	// X25519MLKEM768 hybrid share beside an X25519 one.
	"tls13-x25519mlkem768": {MinVersion: tls.VersionTLS13, CurvePreferences: []tls.CurveID{tls.X25519MLKEM768, tls.X25519, tls.CurveP256}},
	// An older client: TLS 1.2, ECDHE-ECDSA with X25519.
	"tls12-x25519": {MaxVersion: tls.VersionTLS12, CurvePreferences: []tls.CurveID{tls.X25519, tls.CurveP256}},
}

// BenchmarkTLSHandshake measures the server's CPU per new TLS connection:
// a full handshake with an ECDSA P-256 certificate through the real
// listener and engine/tlsconf's configuration (GetCertificate, session
// tickets), one request answered, the close. The client is a child
// process (TestTLSHandshakeClient), so the process CPU counted here
// (getrusage) is the server's, plus the pipe that paces the child: one
// byte each way per handshake. server-us/op is that CPU; ns/op is the
// round trip, both sides; allocs/op and B/op are the server's. With
// -cpuprofile the profile is the server's. Run it with -cpu 1, as
// bench-compare runs the server on one CPU.
func BenchmarkTLSHandshake(b *testing.B) {
	for _, name := range []string{"tls13-x25519", "tls13-x25519mlkem768", "tls12-x25519"} {
		b.Run(name, func(b *testing.B) { benchHandshake(b, name) })
	}
}

func benchHandshake(b *testing.B, name string) {
	m := benchManager(b)
	// DeferAccept as the daemon has it by default.
	opts := engine.Options{DeferAccept: true, TLS: &engine.TLSOptions{Listen: "127.0.0.1:0", Config: m.TLSConfig()}}
	srv := runBenchServer(b, opts)
	step := testutil.ChildSteps(b, "TestTLSHandshakeClient", handshakeClientEnv, srv.TLSAddr()+" "+name)
	step()           // the child's start-up, outside the timing
	b.ReportAllocs() // the server's: the client is another process
	b.ResetTimer()
	t0 := testutil.ProcessCPU()
	for b.Loop() {
		step()
	}
	b.ReportMetric(float64((testutil.ProcessCPU()-t0).Microseconds())/float64(b.N), "server-us/op")
}

// benchManager is engine/tlsconf's configuration with the test
// certificate, loaded from PEM files as a [[tls.certificate]] is.
func benchManager(b *testing.B) *tlsconf.Manager {
	cert, _ := testCertificate(b)
	dir := b.TempDir()
	kder, err := x509.MarshalPKCS8PrivateKey(cert.PrivateKey)
	if err != nil {
		b.Fatal(err)
	}
	cf, kf := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(cf, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Certificate[0]}), 0o600)
	os.WriteFile(kf, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder}), 0o600)
	m, err := tlsconf.New(&tlsconf.Settings{Certificates: []tlsconf.Certificate{{Cert: cf, Key: kf}}}, nil, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(m.Close)
	return m
}

// TestTLSHandshakeClient is BenchmarkTLSHandshake's client, run only in
// its child process: for each byte read from stdin, one new connection,
// a full handshake, one request read to the close, and a byte back.
func TestTLSHandshakeClient(t *testing.T) {
	v := os.Getenv(handshakeClientEnv)
	if v == "" {
		t.Skip("the client of BenchmarkTLSHandshake, run by it")
	}
	addr, name, _ := strings.Cut(v, " ")
	cfg := handshakeCases[name].Clone()
	cfg.ServerName, cfg.InsecureSkipVerify = "example.com", true // the client's CPU is not measured
	cfg.NextProtos = []string{"http/1.1"}
	req := []byte("GET /old HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\n\r\n")
	in := bufio.NewReader(os.Stdin)
	buf := make([]byte, 4096)
	for {
		if _, err := in.ReadByte(); err != nil {
			return // the benchmark is over
		}
		c, err := tls.Dial("tcp", addr, cfg)
		if err != nil {
			fmt.Fprintln(os.Stderr, "handshake:", err)
			os.Exit(1)
		}
		c.Write(req)
		var got []byte
		for {
			n, err := c.Read(buf)
			got = append(got, buf[:n]...)
			if err != nil {
				break
			}
		}
		c.Close()
		if !strings.HasPrefix(string(got), "HTTP/1.1 301") {
			fmt.Fprintf(os.Stderr, "answer: %q\n", got)
			os.Exit(1)
		}
		os.Stdout.Write([]byte{'.'})
	}
}
