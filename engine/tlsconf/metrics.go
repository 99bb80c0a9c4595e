package tlsconf

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"reflect"
	"strings"
	"syscall"
	"time"

	"github.com/VictoriaMetrics/metrics"
)

// Handshake failure reasons, the values of the reason label of
// redirectd_tls_handshake_failures_total.
const (
	// ReasonTimeout: the handshake outlasted handshake_timeout.
	ReasonTimeout = "timeout"
	// ReasonEOF: the client closed or reset the connection mid-handshake
	// (scanners, clients that give up, TCP health checks).
	ReasonEOF = "eof"
	// ReasonNotTLS: the first bytes were not a TLS record, usually plain
	// HTTP sent to the HTTPS port.
	ReasonNotTLS = "not_tls"
	// ReasonUnknownSNI: no certificate covers the name asked for and
	// there is no default one, or ACME refused it.
	ReasonUnknownSNI = "unknown_sni"
	// ReasonProtocolVersion: no TLS version in common (a client older
	// than TLS 1.2).
	ReasonProtocolVersion = "protocol_version"
	// ReasonBadCertificate: the client refused our certificate (unknown
	// CA, expired, wrong name).
	ReasonBadCertificate = "bad_certificate"
	// ReasonOther: anything else (no cipher or ALPN protocol in common,
	// malformed messages).
	ReasonOther = "other"
)

var reasons = []string{ReasonTimeout, ReasonEOF, ReasonNotTLS, ReasonUnknownSNI, ReasonProtocolVersion, ReasonBadCertificate, ReasonOther}

// TLS alert codes (RFC 8446 section 6) the classification looks at.
const (
	alertBadCertificate         = 42
	alertUnsupportedCertificate = 43
	alertCertificateRevoked     = 44
	alertCertificateExpired     = 45
	alertCertificateUnknown     = 46
	alertUnknownCA              = 48
	alertProtocolVersion        = 70
	alertUnrecognizedName       = 112
)

// FailureReason classifies a server-side handshake error into one of the
// Reason constants: "GET / HTTP/1.1" sent to the TLS port gives
// ReasonNotTLS, a client that rejects the certificate ReasonBadCertificate.
// It looks at the error's type first and at its text only where
// crypto/tls gives nothing else. A nil error gives "".
func FailureReason(err error) string {
	if err == nil {
		return ""
	}
	var ne net.Error
	var rh tls.RecordHeaderError
	var op *net.OpError
	switch {
	case errors.Is(err, ErrNoCertificate):
		return ReasonUnknownSNI
	case errors.Is(err, os.ErrDeadlineExceeded), errors.Is(err, context.DeadlineExceeded),
		errors.As(err, &ne) && ne.Timeout():
		return ReasonTimeout
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.EPIPE), errors.Is(err, net.ErrClosed):
		return ReasonEOF
	case errors.As(err, &rh):
		return ReasonNotTLS
	case errors.As(err, &op) && op.Op == "remote error":
		// An alert the client sent; crypto/tls keeps the alert type
		// unexported, but it is a uint8 holding the code.
		if v := reflect.ValueOf(op.Err); v.Kind() == reflect.Uint8 {
			switch v.Uint() {
			case alertBadCertificate, alertUnsupportedCertificate, alertCertificateRevoked,
				alertCertificateExpired, alertCertificateUnknown, alertUnknownCA:
				return ReasonBadCertificate
			case alertProtocolVersion:
				return ReasonProtocolVersion
			case alertUnrecognizedName:
				return ReasonUnknownSNI
			}
		}
	case strings.Contains(err.Error(), "tls: no certificates configured"):
		// What crypto/tls returns (unexported, no sentinel) when
		// getCertificate declines a name: it sent unrecognized_name.
		return ReasonUnknownSNI
	case strings.Contains(err.Error(), "offered only unsupported versions"):
		// handshake_server.go's own error: no fmt-wrapped sentinel exists.
		return ReasonProtocolVersion
	}
	return ReasonOther
}

// handshakeMetrics are the counters of the TLS listener and of ACME,
// created once so that counting is an atomic add. GetOrCreate, so that a
// New that failed can be retried with the same set.
type handshakeMetrics struct {
	versions   [4]*metrics.Counter // TLS 1.0 .. 1.3, by version - tls.VersionTLS10
	versionOth *metrics.Counter
	failures   map[string]*metrics.Counter
	obtain     [2]*metrics.Counter // [0] ok, [1] error
	renew      [2]*metrics.Counter
}

func newHandshakeMetrics(set *metrics.Set) *handshakeMetrics {
	m := &handshakeMetrics{failures: map[string]*metrics.Counter{}}
	for i, v := range []string{"1.0", "1.1", "1.2", "1.3"} {
		m.versions[i] = set.GetOrCreateCounter(fmt.Sprintf(`redirectd_tls_handshakes_total{version=%q}`, v))
	}
	m.versionOth = set.GetOrCreateCounter(`redirectd_tls_handshakes_total{version="other"}`)
	for _, r := range reasons {
		m.failures[r] = set.GetOrCreateCounter(fmt.Sprintf(`redirectd_tls_handshake_failures_total{reason=%q}`, r))
	}
	for i, res := range []string{"ok", "error"} {
		m.obtain[i] = set.GetOrCreateCounter(fmt.Sprintf(`redirectd_acme_obtain_total{result=%q}`, res))
		m.renew[i] = set.GetOrCreateCounter(fmt.Sprintf(`redirectd_acme_renew_total{result=%q}`, res))
	}
	return m
}

// HandshakeDone counts a completed handshake by its version
// (tls.ConnectionState.Version). Safe from any goroutine; no allocation.
func (m *Manager) HandshakeDone(version uint16) {
	if i := int(version) - tls.VersionTLS10; i >= 0 && i < len(m.hm.versions) {
		m.hm.versions[i].Inc()
		return
	}
	m.hm.versionOth.Inc()
}

// HandshakeFailed counts a failed handshake by FailureReason(err) and
// returns the reason, for the caller's log.
func (m *Manager) HandshakeFailed(err error) string {
	r := FailureReason(err)
	if r == "" {
		return r
	}
	m.hm.failures[r].Inc()
	return r
}

// writeExpiry writes redirectd_tls_certificate_expiry_seconds for every
// certificate served now: from files, and those ACME holds. It runs at
// each scrape, so that the value is current and a certificate gone after
// a reload is gone from the metrics too.
func (m *Manager) writeExpiry(w io.Writer) {
	if m.gone.Load() {
		return
	}
	now := time.Now()
	seen := map[string]bool{}
	line := func(name, source string, notAfter time.Time) {
		key := source + "\x00" + name
		if seen[key] || !labelSafe(name) {
			return
		}
		seen[key] = true
		fmt.Fprintf(w, "redirectd_tls_certificate_expiry_seconds{name=%q,source=%q} %d\n",
			name, source, int64(notAfter.Sub(now)/time.Second))
	}
	if s := m.certs.Load(); s != nil {
		for _, c := range s.loaded {
			line(c.name, "file", c.notAfter)
		}
	}
	if a := m.acme.Load(); a != nil {
		for _, c := range a.expiries() {
			line(c.name, "acme", c.notAfter)
		}
	}
}

// labelSafe keeps label values to host-name bytes: metrics writes label
// values as given, and a certificate is not trusted input.
func labelSafe(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '*' || c == '_') {
			return false
		}
	}
	return s != ""
}
