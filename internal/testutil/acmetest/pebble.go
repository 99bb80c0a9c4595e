// Package acmetest runs an ACME CA for tests: Pebble
// (letsencrypt/pebble), in the test's own process, wired as its
// cmd/pebble does (a WFE over a CA, a VA and a memory store), with a DNS
// server that points every name at one address, so that its VA validates
// HTTP-01 and TLS-ALPN-01 challenges for real against the server under
// test. It counts the orders it is asked for, per name, and can be made
// to refuse every order, as a CA that is down or refuses would. It is for
// tests only: no product package imports it.
package acmetest

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redirectd/redirectd/internal/testutil"

	"github.com/letsencrypt/pebble/v2/ca"
	"github.com/letsencrypt/pebble/v2/db"
	"github.com/letsencrypt/pebble/v2/va"
	"github.com/letsencrypt/pebble/v2/wfe"
	"github.com/miekg/dns"
)

// NoRenewal is a validity no test outlives: Pebble's renewal window
// (ARI) is the third before expiry, a day either side, clamped to the
// certificate's life, so a certificate shorter than two days may be due
// for renewal at once (certmagic picks a random time in the window, and
// renews up to its check interval early), which a test counting orders
// would see as a second order.
const NoRenewal = 90 * 24 * time.Hour

// Options say where Pebble listens and validates. The zero value is
// loopback: the directory on 127.0.0.1, every name resolved to 127.0.0.1.
type Options struct {
	// HTTPPort and TLSPort are the ports the VA connects to for HTTP-01
	// and TLS-ALPN-01.
	HTTPPort, TLSPort int
	// Validity is the life of the certificates issued.
	Validity time.Duration
	// Listen is the directory's address ("127.0.0.1:0" when empty).
	Listen string
	// Target is the address every name resolves to ("127.0.0.1" when
	// empty): the server under test, or the balancer in front of it.
	Target string
}

// Pebble is a running CA.
type Pebble struct {
	// DirURL is the ACME directory; CARootFile a PEM file of its HTTPS
	// certificate (for [acme] ca_root); Roots the pool that verifies the
	// certificates it issues.
	DirURL     string
	CARootFile string
	Roots      *x509.CertPool
	// Fail, when set, refuses every new order with rejectedIdentifier.
	Fail atomic.Bool

	mu     sync.Mutex
	orders map[string]int // new-order requests per name, refused ones too
}

// Start runs Pebble until the test ends.
func Start(t testing.TB, o Options) *Pebble {
	t.Helper()
	if o.Listen == "" {
		o.Listen = "127.0.0.1:0"
	}
	if o.Target == "" {
		o.Target = "127.0.0.1"
	}
	// Pebble reads these from the environment; os.Setenv rather than
	// t.Setenv, which a parallel test may not call.
	for k, v := range map[string]string{
		"PEBBLE_VA_NOSLEEP":      "1", // no random delay before validating
		"PEBBLE_WFE_NONCEREJECT": "0", // no deliberate bad-nonce errors
		"PEBBLE_AUTHZREUSE":      "0", // each order validates again: renewal too
		"PEBBLE_VA_ALWAYS_VALID": "0", // real validation
	} {
		os.Setenv(k, v)
	}
	var logw io.Writer = io.Discard
	if testing.Verbose() {
		logw = tWriter{t}
	}
	logger := log.New(logw, "pebble ", 0)

	dnsAddr := startDNS(t, net.ParseIP(o.Target))
	store := db.NewMemoryStore()
	pca := ca.New(logger, store, "", "ecdsa", 0, 1, map[string]ca.Profile{
		"default": {Description: "the test's", ValidityPeriod: uint64(o.Validity / time.Second)},
	})
	pva := va.New(logger, o.HTTPPort, o.TLSPort, false, dnsAddr, store)
	w := wfe.New(logger, store, pva, pca, []string{"pebble.letsencrypt.org"}, false, false, 0, 0)
	p := &Pebble{CARootFile: filepath.Join(t.TempDir(), "pebble-https.pem"), Roots: x509.NewCertPool(), orders: map[string]int{}}
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(p.countOrders(w.Handler()))
	srv.Listener.Close()
	srv.Listener = ln
	// httptest's own certificate names only loopback; a directory on
	// another address (a test's network namespace) needs one naming it.
	// The directory's HTTPS certificate, from a CA of its own whose
	// certificate is CARootFile.
	ca := testutil.NewCA(t)
	ip := ln.Addr().(*net.TCPAddr).IP.String()
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{ca.TLSCert(t, ip, "127.0.0.1", "::1", "localhost")}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	p.DirURL = srv.URL + wfe.DirectoryPath
	ca.WriteCA(t, p.CARootFile)
	p.Roots.AddCert(pca.GetRootCert(0).Cert)
	return p
}

// Orders returns how many orders Pebble was asked for name.
func (p *Pebble) Orders(name string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.orders[name]
}

// AllOrders returns the orders Pebble was asked for, per name.
func (p *Pebble) AllOrders() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[string]int, len(p.orders))
	for k, v := range p.orders {
		out[k] = v
	}
	return out
}

// Total returns the number of orders asked for, all names together.
func (p *Pebble) Total() int {
	n := 0
	for _, c := range p.AllOrders() {
		n += c
	}
	return n
}

// countOrders wraps Pebble's handler: it counts the names of each
// new-order request (from the JWS payload) and refuses it when p.Fail is
// set.
func (p *Pebble) countOrders(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/order-plz" {
			h.ServeHTTP(w, r)
			return
		}
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		r.Body = io.NopCloser(bytes.NewReader(body))
		var jws struct{ Payload string }
		var order struct{ Identifiers []struct{ Value string } }
		json.Unmarshal(body, &jws)
		payload, _ := base64.RawURLEncoding.DecodeString(jws.Payload)
		json.Unmarshal(payload, &order)
		p.mu.Lock()
		for _, id := range order.Identifiers {
			p.orders[id.Value]++
		}
		p.mu.Unlock()
		if p.Fail.Load() {
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"type":"urn:ietf:params:acme:error:rejectedIdentifier","detail":"the test CA refuses every order now","status":400}`)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// startDNS serves A target for every name over TCP (the transport
// Pebble's VA uses), and empty answers for other types.
func startDNS(t testing.TB, target net.IP) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &dns.Server{Listener: ln, Net: "tcp", Handler: dns.HandlerFunc(func(w dns.ResponseWriter, r *dns.Msg) {
		m := new(dns.Msg)
		m.SetReply(r)
		for _, q := range r.Question {
			if q.Qtype == dns.TypeA {
				m.Answer = append(m.Answer, &dns.A{Hdr: dns.RR_Header{Name: q.Name, Rrtype: dns.TypeA, Class: dns.ClassINET, Ttl: 1},
					A: target})
			}
		}
		w.WriteMsg(m)
	})}
	go srv.ActivateAndServe()
	t.Cleanup(func() { srv.Shutdown() })
	return ln.Addr().String()
}

type tWriter struct{ t testing.TB }

func (w tWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimSuffix(string(b), "\n"))
	return len(b), nil
}
