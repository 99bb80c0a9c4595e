package tlsconf

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/redirectd/redirectd/internal/testutil"
	"github.com/redirectd/redirectd/internal/testutil/acmetest"
)

// pebble is the in-process Pebble of internal/testutil/acmetest, with
// the names the tests here use.
type pebble struct {
	*acmetest.Pebble
	dirURL string
	caRoot string // PEM of the directory's HTTPS certificate
	roots  *x509.CertPool
}

// startPebble runs Pebble on loopback; its VA validates challenges on
// httpPort and tlsPort of 127.0.0.1.
func startPebble(t *testing.T, httpPort, tlsPort int, validity time.Duration) *pebble {
	t.Helper()
	p := acmetest.Start(t, acmetest.Options{HTTPPort: httpPort, TLSPort: tlsPort, Validity: validity})
	return &pebble{Pebble: p, dirURL: p.DirURL, caRoot: p.CARootFile, roots: p.Roots}
}

// challengeServer is the plain listener's part in the test: HTTP-01
// requests answered by Manager.HTTPChallenge, anything else 404. It
// counts the challenges it answered.
func challengeServer(t *testing.T, ln net.Listener, m *atomic.Pointer[Manager], answered *atomic.Int32) {
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if mg := m.Load(); mg != nil {
			if body, ok := mg.HTTPChallenge(r.Host, r.URL.Path); ok {
				answered.Add(1)
				w.Write(body)
				return
			}
		}
		http.NotFound(w, r)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
}

// TestACME obtains certificates from Pebble with real HTTP-01 and
// TLS-ALPN-01 validation over loopback, sees certmagic's maintenance renew
// the short-lived one, and checks on-demand issuance: allowed by the
// decision function, refused by it, and refused past the rate.
func TestACME(t *testing.T) {
	if testing.Short() {
		t.Skip("issues and renews certificates: about 20s")
	}
	renewCheckInterval = 500 * time.Millisecond
	t.Cleanup(func() { renewCheckInterval = 0; onlyChallenge = "" })
	for _, ch := range []string{"http-01", "tls-alpn-01"} {
		t.Run(ch, func(t *testing.T) {
			onlyChallenge = ch
			testACME(t, ch)
		})
	}
}

func testACME(t *testing.T, challenge string) {
	httpLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tlsLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	httpPort, tlsPort := httpLn.Addr().(*net.TCPAddr).Port, tlsLn.Addr().(*net.TCPAddr).Port
	// 12s certificates: certmagic renews in the last third, after 8s.
	pb := startPebble(t, httpPort, tlsPort, 12*time.Second)

	var mp atomic.Pointer[Manager]
	var httpAnswered, alpnAnswered atomic.Int32
	challengeServer(t, httpLn, &mp, &httpAnswered)

	cfg := &Settings{
		HTTPListen: httpLn.Addr().String(),
		TLSListen:  tlsLn.Addr().String(),
		ACME: &ACME{CA: pb.dirURL, CARoot: pb.caRoot, Storage: t.TempDir(), Email: "ops@example.com",
			Names:    []string{"managed.example.com"},
			OnDemand: true, OnDemandN: 2, OnDemandPer: time.Hour},
	}
	decide := func(host string) Cover {
		if strings.HasSuffix(host, ".wild.example.com") {
			return CoveredByWildcard
		}
		return NotCovered
	}
	set := metrics.NewSet()
	m, err := New(cfg, decide, set, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	mp.Store(m)
	go func() {
		for {
			c, err := tlsLn.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				tc := tls.Server(c, m.TLSConfig())
				tc.SetDeadline(time.Now().Add(20 * time.Second))
				if err := tc.Handshake(); err != nil {
					m.HandshakeFailed(err)
					return
				}
				m.HandshakeDone(tc.ConnectionState().Version)
				if tc.ConnectionState().NegotiatedProtocol == alpnACME {
					alpnAnswered.Add(1)
					return
				}
				tc.Write([]byte("ok"))
			}()
		}
	}()
	t.Cleanup(func() { tlsLn.Close() })
	m.Start()

	addr := tlsLn.Addr().String()
	client := func(name string) *tls.Config { return &tls.Config{ServerName: name, RootCAs: pb.roots} }
	// serial waits for a verified certificate for name other than not.
	serial := func(name, not string, within time.Duration) string {
		t.Helper()
		var last error
		var got string
		if testutil.EventuallyEvery(within, 100*time.Millisecond, func() bool { // a handshake per look
			st, err := dial(addr, client(name))
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
		t.Fatalf("no new certificate for %s within %s: %v", name, within, last)
		return ""
	}

	first := serial("managed.example.com", "", 20*time.Second)
	// A renewal that fails is tried again by certmagic's maintenance a
	// minute later (its retryIntervals): the wait covers one such retry,
	// as a loaded machine can make an order of a 12s certificate fail.
	renewed := serial("managed.example.com", first, 75*time.Second)
	t.Logf("managed.example.com: serial %s, renewed as %s", first, renewed)
	waitMetricAtLeast(t, set, `redirectd_acme_obtain_total{result="ok"}`, 1)
	waitMetricAtLeast(t, set, `redirectd_acme_renew_total{result="ok"}`, 1)
	if v := metricValue(set, `redirectd_tls_certificate_expiry_seconds{name="managed.example.com",source="acme"}`); v <= 0 || v > 12 {
		t.Errorf("expiry gauge of the ACME certificate = %v, want 1 to 12 (seconds of a 12s certificate)", v)
	}

	// On demand: the first name under the wildcard rule is issued during
	// its handshake; a name the rules do not serve is refused; a second
	// wildcard name is over the wildcard's half of the rate of 2 per hour.
	if _, err := dial(addr, client("a.wild.example.com")); err != nil {
		t.Errorf("on-demand a.wild.example.com: %v", err)
	}
	if _, err := dial(addr, client("other.example.com")); err == nil {
		t.Error("other.example.com, which the rules do not serve, got a certificate")
	}
	if _, err := dial(addr, client("b.wild.example.com")); err == nil {
		t.Error("b.wild.example.com got a certificate past the wildcard's half of on_demand_rate 2/1h")
	}
	waitMetricAtLeast(t, set, `redirectd_tls_handshake_failures_total{reason="unknown_sni"}`, 2)

	t.Logf("challenges answered: HTTP-01 %d, TLS-ALPN-01 %d", httpAnswered.Load(), alpnAnswered.Load())
	// Pebble validates each challenge from 3 perspectives.
	want, other := &httpAnswered, &alpnAnswered
	if challenge == "tls-alpn-01" {
		want, other = other, want
	}
	if want.Load() < 3 || other.Load() != 0 {
		t.Errorf("%s: %d challenges answered by its path and %d by the other; want at least 3 (one per issuance) and 0",
			challenge, want.Load(), other.Load())
	}
	if b, ok := m.HTTPChallenge("managed.example.com", HTTPChallengePrefix+"unknown-token"); ok {
		t.Errorf("HTTPChallenge answered %q for a token no challenge has", b)
	}
}

func waitMetricAtLeast(t *testing.T, set *metrics.Set, name string, want float64) {
	t.Helper()
	if !testutil.Eventually(testutil.Patience, func() bool { return metricValue(set, name) >= want }) {
		t.Errorf("%s = %v, want at least %v", name, metricValue(set, name), want)
	}
}
