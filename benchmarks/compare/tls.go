package main

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/redirectd/redirectd/benchmarks/rules"
)

// TLSFiles is the certificate every server is configured with for the
// HTTPS scenarios: one ECDSA P-256 key and a self-signed
// certificate for www.example.com and 127.0.0.1, generated for the run.
type TLSFiles struct {
	Cert, Key string // PEM files
	// Combined holds the certificate then the key, as HAProxy's crt takes.
	Combined string
	// Pool trusts the certificate, for the harness's own checks.
	Pool *x509.CertPool
}

// tlsServerName is the name the harness's checks ask for and the
// certificate holds; wrk sends the URL's host, 127.0.0.1, which the
// certificate holds too.
const tlsServerName = "www.example.com"

// writeTLSFiles generates the key and certificate into dir.
func writeTLSFiles(dir string) (*TLSFiles, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: tlsServerName},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(30 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     []string{tlsServerName},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tpl, tpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, err
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder})
	f := &TLSFiles{Cert: filepath.Join(dir, "cert.pem"), Key: filepath.Join(dir, "key.pem"), Combined: filepath.Join(dir, "combined.pem")}
	for _, w := range []struct {
		path string
		data []byte
	}{{f.Cert, certPEM}, {f.Key, keyPEM}, {f.Combined, append(append([]byte(nil), certPEM...), keyPEM...)}} {
		// 0644: nginx's workers and HAProxy read them as other users in
		// some setups; the key is for this run only.
		if err := os.WriteFile(w.path, w.data, 0o644); err != nil {
			return nil, err
		}
	}
	f.Pool = x509.NewCertPool()
	if !f.Pool.AppendCertsFromPEM(certPEM) {
		return nil, fmt.Errorf("cannot read back the generated certificate %s", f.Cert)
	}
	return f, nil
}

// clientConfig is what the harness's checks dial with: the generated
// certificate must be the one served, for tlsServerName. No session
// cache: every dial is a full handshake.
func (f *TLSFiles) clientConfig() *tls.Config {
	return &tls.Config{RootCAs: f.Pool, ServerName: tlsServerName, NextProtos: []string{"http/1.1"}}
}

// tlsPhase runs the HTTPS scenarios on an instance of srv that serves the
// reference rules on a plain port (for the start-up check) and on a TLS
// port with the run's certificate.
func (h *harness) tlsPhase(srv Server, sr *ServerResult) {
	scs := h.scenariosWhere(func(sc Scenario) bool { return sc.TLS })
	if len(scs) == 0 {
		return
	}
	logf("%s: HTTPS with an ECDSA P-256 certificate", srv.Name())
	fail := func(msg string) {
		for _, sc := range scs {
			if sc.Idle && sc.H2 {
				sr.H2Idle = &IdleResult{Failed: msg}
			} else if sc.Idle {
				sr.TLSIdle = &IdleResult{Failed: msg}
			} else {
				sr.Scenarios = append(sr.Scenarios, &ScenarioResult{Name: sc.Name, Failed: msg})
			}
		}
	}
	p, _, _, err := h.launch(srv, Instance{Spec: h.s.Spec, TLS: h.tlsFiles}, "tls")
	if err != nil {
		logf("  FAILED to start: %v", err)
		fail(err.Error())
		return
	}
	defer p.Stop()
	addr := p.TLSAddr
	if err := waitTLS(addr, h.tlsFiles, exactReq(h.s.Spec, false), 30*time.Second); err != nil {
		logf("  FAILED: the TLS port: %v", err)
		fail(err.Error())
		return
	}
	for _, sc := range scs {
		switch {
		case sc.Idle && sc.H2:
			sr.H2Idle = h.idleH2(p, addr, h.s.TLSIdle)
			continue
		case sc.Idle:
			sr.TLSIdle = h.idleTLS(p, addr, h.s.TLSIdle)
			continue
		}
		sr.Scenarios = append(sr.Scenarios, h.scenario(p, addr, sc))
	}
}

// exactReq is the exact hit of spec as one request.
func exactReq(spec rules.Spec, close bool) Req {
	hit := exactHit(spec)
	return Req{Path: hit, Raw: simpleRequest(hit, close), Want: expect(spec, hit)}
}

// waitTLS polls addr over TLS with r until it is answered right.
func waitTLS(addr string, f *TLSFiles, r Req, limit time.Duration) error {
	var last error
	for t0 := time.Now(); time.Since(t0) < limit; time.Sleep(20 * time.Millisecond) {
		c, br, err := dialTLS(addr, f, time.Now().Add(5*time.Second))
		if err == nil {
			last = roundTrip(c, br, r)
			c.Close()
			if last == nil {
				return nil
			}
		} else {
			last = err
		}
	}
	return fmt.Errorf("no correct answer over TLS on %s within %s: %v", addr, limit, last)
}

func dialTLS(addr string, f *TLSFiles, deadline time.Time) (net.Conn, *bufio.Reader, error) {
	d := &net.Dialer{Timeout: 5 * time.Second, Deadline: deadline}
	c, err := tls.DialWithDialer(d, "tcp", addr, f.clientConfig())
	if err != nil {
		return nil, nil, err
	}
	c.SetDeadline(deadline)
	return c, bufio.NewReaderSize(c, 16<<10), nil
}

// roundTrip sends r on c and checks its answer.
func roundTrip(c net.Conn, br *bufio.Reader, r Req) error {
	if _, err := c.Write([]byte(r.Raw)); err != nil {
		return err
	}
	a, err := readAnswer(br, true)
	if err != nil {
		return fmt.Errorf("GET %s: %w", r.Path, err)
	}
	return check(r, a)
}

// idleTLS measures the memory an idle TLS keep-alive connection holds in
// the server (harness.idle), each connection having done a full
// handshake and one request.
func (h *harness) idleTLS(p *Proc, addr string, n int) *IdleResult {
	req := exactReq(h.s.Spec, false)
	return h.idle(p, "tls-idle", n, func(deadline time.Time) (idleConn, error) {
		c, br, err := dialTLS(addr, h.tlsFiles, deadline)
		if err == nil {
			err = roundTrip(c, br, req)
		}
		if err != nil {
			if c != nil {
				c.Close()
			}
			return idleConn{}, err
		}
		return idleConn{use: func() error { return roundTrip(c, br, req) }, close: c.Close}, nil
	})
}

// tlsListen is the TLS address of an instance, for the configs.
func tlsListen(in Instance) string { return "127.0.0.1:" + strconv.Itoa(in.TLSPort) }
