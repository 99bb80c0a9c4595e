package tlsconf

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/VictoriaMetrics/metrics"
	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/internal/testutil"
)

// TestHandshake runs real handshakes over loopback with the Manager's
// config: both TLS versions, ALPN (h2 first, http/1.1 alone with
// NoHTTP2), and the certificate verified by the
// client.
func TestHandshake(t *testing.T) {
	ca, dir := testutil.NewCA(t), t.TempDir()
	c, k := ca.WriteCert(t, dir, "a", time.Now().Add(time.Hour), "a.example.com")
	set := metrics.NewSet()
	m, err := New(&Settings{Certificates: pairs(c, k)}, nil, set, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	addr := serveTLS(t, m, nil)
	for _, v := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
		st, err := dial(addr, &tls.Config{ServerName: "a.example.com", RootCAs: ca.Pool(), MaxVersion: v,
			NextProtos: []string{"h2", "http/1.1"}})
		if err != nil {
			t.Fatalf("version %x: %v", v, err)
		}
		if st.Version != v || st.NegotiatedProtocol != "h2" {
			t.Errorf("version %x, ALPN %q; want %x and h2", st.Version, st.NegotiatedProtocol, v)
		}
	}
	// NoHTTP2 ([tls] http2 = false) offers http/1.1 alone.
	m1, err := New(&Settings{Certificates: pairs(c, k), NoHTTP2: true}, nil, metrics.NewSet(), testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	defer m1.Close()
	st, err := dial(serveTLS(t, m1, nil), &tls.Config{ServerName: "a.example.com", RootCAs: ca.Pool(), NextProtos: []string{"h2", "http/1.1"}})
	if err != nil || st.NegotiatedProtocol != "http/1.1" {
		t.Errorf("NoHTTP2: ALPN %q (%v), want http/1.1", st.NegotiatedProtocol, err)
	}
	// A client older than TLS 1.2 is refused.
	if _, err := dial(addr, &tls.Config{ServerName: "a.example.com", RootCAs: ca.Pool(), MinVersion: tls.VersionTLS10, MaxVersion: tls.VersionTLS11}); err == nil {
		t.Error("a TLS 1.1 client was served")
	}
	// The wrong name is refused by the client's verification.
	if _, err := dial(addr, &tls.Config{ServerName: "b.example.com", RootCAs: ca.Pool()}); err == nil {
		t.Error("a client asking for b.example.com accepted a.example.com's certificate")
	}
	waitMetric(t, set, `redirectd_tls_handshakes_total{version="1.2"}`, 1)
	waitMetric(t, set, `redirectd_tls_handshakes_total{version="1.3"}`, 1)
	waitMetric(t, set, `redirectd_tls_handshake_failures_total{reason="protocol_version"}`, 1)
	waitMetric(t, set, `redirectd_tls_handshake_failures_total{reason="bad_certificate"}`, 1)
}

// waitMetric waits up to 2s for a metric of set to reach want: the server
// counts after the client has its answer.
func waitMetric(t *testing.T, set *metrics.Set, name string, want float64) {
	t.Helper()
	if !testutil.Eventually(testutil.Patience, func() bool { return metricValue(set, name) == want }) {
		t.Errorf("%s = %v, want %v", name, metricValue(set, name), want)
	}
}

// metricValue reads one value from set's exposition; -1 when absent.
func metricValue(set *metrics.Set, name string) float64 {
	var b bytes.Buffer
	set.WritePrometheus(&b)
	if v, ok := testutil.Metric(b.String(), name); ok {
		return v
	}
	return -1
}

// TestReloadKeepsOldSet checks that a broken certificate leaves the old
// set serving and is reported by Failed until a good reload.
func TestReloadKeepsOldSet(t *testing.T) {
	ca, dir := testutil.NewCA(t), t.TempDir()
	c1, k1 := ca.WriteCert(t, dir, "one", time.Now().Add(time.Hour), "one.example.com")
	c2, k2 := ca.WriteCert(t, dir, "two", time.Now().Add(time.Hour), "two.example.com")
	m := newManager(t, &Settings{Certificates: pairs(c1, k1)})
	addr := serveTLS(t, m, nil)
	served := func(name string) bool {
		_, err := dial(addr, &tls.Config{ServerName: name, RootCAs: ca.Pool()})
		return err == nil
	}
	if !served("one.example.com") || served("two.example.com") {
		t.Fatal("before reload: want one.example.com served, two.example.com not")
	}

	broken := dir + "/broken.crt"
	writeFile(t, broken, []byte("-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n"))
	err := m.Reload(&Settings{Certificates: pairs(c2, k2, broken, k1)})
	if err == nil || !strings.Contains(err.Error(), "redirectd.toml:12: [[tls.certificate]] #2: cert: cannot load "+broken) {
		t.Fatalf("reload with a broken certificate: err = %v, want it to name the entry and the file", err)
	}
	if !served("one.example.com") || served("two.example.com") {
		t.Error("after a failed reload: want the old set (one.example.com) still served")
	}
	if f := m.Failed(); len(f) != 1 || !strings.Contains(f[0], broken) {
		t.Errorf("Failed() = %q, want the broken file", f)
	}

	if err := m.Reload(&Settings{Certificates: pairs(c2, k2)}); err != nil {
		t.Fatal(err)
	}
	if served("one.example.com") || !served("two.example.com") {
		t.Error("after a good reload: want only two.example.com served")
	}
	if f := m.Failed(); len(f) != 0 {
		t.Errorf("Failed() = %q after a good reload, want none", f)
	}
}

// TestExpiryGauge checks the seconds-until-expiry gauge, and that a
// certificate gone after a reload is gone from the metrics.
func TestExpiryGauge(t *testing.T) {
	ca, dir := testutil.NewCA(t), t.TempDir()
	c1, k1 := ca.WriteCert(t, dir, "a", time.Now().Add(48*time.Hour), "a.example.com")
	c2, k2 := ca.WriteCert(t, dir, "b", time.Now().Add(-time.Hour), "*.b.example.com") // expired an hour ago
	set := metrics.NewSet()
	m, err := New(&Settings{Certificates: pairs(c1, k1, c2, k2)}, nil, set, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for _, tc := range []struct {
		name string
		want time.Duration
	}{
		{`redirectd_tls_certificate_expiry_seconds{name="a.example.com",source="file"}`, 48 * time.Hour},
		{`redirectd_tls_certificate_expiry_seconds{name="*.b.example.com",source="file"}`, -time.Hour},
	} {
		got := metricValue(set, tc.name)
		// The certificate's NotAfter has whole seconds; allow for the
		// time the test took.
		if d := time.Duration(got) * time.Second; d > tc.want || d < tc.want-time.Minute {
			t.Errorf("%s = %v, want about %v", tc.name, got, tc.want.Seconds())
		}
	}
	if err := m.Reload(&Settings{Certificates: pairs(c1, k1)}); err != nil {
		t.Fatal(err)
	}
	if v := metricValue(set, `redirectd_tls_certificate_expiry_seconds{name="*.b.example.com",source="file"}`); v != -1 {
		t.Errorf("a certificate removed by reload still has an expiry gauge (%v)", v)
	}

	// A closed Manager leaves the set; the next one writes its own.
	m.Close()
	a := `redirectd_tls_certificate_expiry_seconds{name="a.example.com",source="file"}`
	if v := metricValue(set, a); v != -1 {
		t.Errorf("a closed Manager still writes %s (%v)", a, v)
	}
	m2, err := New(&Settings{Certificates: pairs(c1, k1)}, nil, set, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	defer m2.Close()
	var b bytes.Buffer
	set.WritePrometheus(&b)
	if n := strings.Count(b.String(), a+" "); n != 1 {
		t.Errorf("%s written %d times after a second New on the set, want once", a, n)
	}
}

// TestSessionResumption checks that a session resumes across a ticket key
// rotation, and no longer once its key has rotated out.
func TestSessionResumption(t *testing.T) {
	ca, dir := testutil.NewCA(t), t.TempDir()
	c, k := ca.WriteCert(t, dir, "a", time.Now().Add(time.Hour), "a.example.com")
	m := newManager(t, &Settings{Certificates: pairs(c, k)})
	addr := serveTLS(t, m, nil)
	for _, v := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
		t.Run(tls.VersionName(v), func(t *testing.T) {
			cfg := &tls.Config{ServerName: "a.example.com", RootCAs: ca.Pool(), MaxVersion: v,
				ClientSessionCache: tls.NewLRUClientSessionCache(4)}
			var got []bool
			resumed := func() {
				st, err := dial(addr, cfg)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, st.DidResume)
			}
			resumed() // full handshake, a ticket
			resumed() // resumed with the same key
			m.ticket.rotate()
			resumed() // resumed: the old key still decrypts
			for range ticketKeysKept {
				m.ticket.rotate()
			}
			resumed() // the ticket's key is gone: full handshake
			if diff := cmp.Diff([]bool{false, true, true, false}, got); diff != "" {
				t.Errorf("DidResume per connection (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFailureReason drives failing handshakes over loopback and checks
// the reason each is counted under.
func TestFailureReason(t *testing.T) {
	ca, dir := testutil.NewCA(t), t.TempDir()
	c, k := ca.WriteCert(t, dir, "a", time.Now().Add(time.Hour), "a.example.com")
	withCert := newManager(t, &Settings{Certificates: pairs(c, k)})
	noCert := newManager(t, &Settings{})
	for _, tc := range []struct {
		name   string
		m      *Manager
		client func(addr string)
		want   string
	}{
		{"plain HTTP", withCert, func(addr string) {
			conn, _ := net.Dial("tcp", addr)
			conn.Write([]byte("GET / HTTP/1.1\r\nHost: a\r\n\r\n"))
			io.Copy(io.Discard, conn)
			conn.Close()
		}, ReasonNotTLS},
		{"closed", withCert, func(addr string) {
			conn, _ := net.Dial("tcp", addr)
			conn.Close()
		}, ReasonEOF},
		{"silent", withCert, func(addr string) {
			conn, _ := net.Dial("tcp", addr)
			io.Copy(io.Discard, conn) // until the server's 1s deadline closes it
			conn.Close()
		}, ReasonTimeout},
		{"old version", withCert, func(addr string) {
			dial(addr, &tls.Config{ServerName: "a.example.com", MinVersion: tls.VersionTLS10, MaxVersion: tls.VersionTLS11})
		}, ReasonProtocolVersion},
		{"untrusted", withCert, func(addr string) {
			// The system roots do not know the test CA. They are read
			// before the dial: read in the handshake, the first time in
			// the process, they took the client past the server's 1 s
			// deadline under the race detector beside two CPU hogs, and
			// the reason was a timeout.
			x509.SystemCertPool()
			dial(addr, &tls.Config{ServerName: "a.example.com"})
		}, ReasonBadCertificate},
		{"no certificate", noCert, func(addr string) {
			dial(addr, &tls.Config{ServerName: "a.example.com", InsecureSkipVerify: true})
		}, ReasonUnknownSNI},
		{"no common ALPN", withCert, func(addr string) {
			dial(addr, &tls.Config{ServerName: "a.example.com", RootCAs: ca.Pool(), NextProtos: []string{"h3"}})
		}, ReasonOther},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errs := make(chan error, 1)
			addr := serveTLS(t, tc.m, errs)
			tc.client(addr)
			select {
			case err := <-errs:
				if got := FailureReason(err); got != tc.want {
					t.Errorf("reason of %v = %s, want %s", err, got, tc.want)
				}
			case <-time.After(3 * time.Second):
				t.Fatal("the server saw no handshake")
			}
		})
	}
}

// TestMetricNames checks every metric the package registers is in the
// exposition with the documented names.
func TestMetricNames(t *testing.T) {
	set := metrics.NewSet()
	m, err := New(&Settings{}, nil, set, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	var b bytes.Buffer
	set.WritePrometheus(&b)
	re := regexp.MustCompile(`(?m)^(redirectd_[a-z_]+)\{`)
	seen := map[string]bool{}
	for _, mm := range re.FindAllStringSubmatch(b.String(), -1) {
		seen[mm[1]] = true
	}
	want := map[string]bool{"redirectd_tls_handshakes_total": true, "redirectd_tls_handshake_failures_total": true,
		"redirectd_acme_obtain_total": true, "redirectd_acme_renew_total": true, "redirectd_tls_on_demand_total": true}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Errorf("metric names (-want +got):\n%s", diff)
	}
}
