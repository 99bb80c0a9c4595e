package tlsconf

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/VictoriaMetrics/metrics"
	"github.com/caddyserver/certmagic"

	"github.com/redirectd/redirectd/engine/tlsconf/redisstore"
)

// ErrNoCertificate is returned (wrapped) by the handshake when no
// certificate covers the name asked for and there is no default one;
// FailureReason reports it as ReasonUnknownSNI.
var ErrNoCertificate = errors.New("tlsconf: no certificate for this server name")

// alpnACME is the ALPN protocol of TLS-ALPN-01 challenges (RFC 8737).
const alpnACME = "acme-tls/1"

// DecisionFunc reports how the rules now serving name host, a lower-case
// name; it gates on-demand issuance. It is called on the handshake's
// goroutine and must not block.
type DecisionFunc func(host string) Cover

// Cover is how the serving rules name a host. Names that only a wildcard
// host rule covers are any a client makes up under it, so they may spend
// only half of on_demand_rate: the names the rules name exactly always
// keep the other half.
type Cover uint8

const (
	NotCovered        Cover = iota // no rule names the host: no certificate on demand
	CoveredByWildcard              // a wildcard host rule answers for it
	CoveredExactly                 // a rule names the host itself
)

// Manager is the TLS configuration of the traffic side. Its methods are
// safe for concurrent use.
type Manager struct {
	log    *slog.Logger
	decide DecisionFunc
	hm     *handshakeMetrics
	tls    *tls.Config
	ticket *ticketKeys
	// ctx ends at Close; certmagic's background work runs under it.
	ctx    context.Context
	cancel context.CancelFunc

	certs atomic.Pointer[certSet]
	acme  atomic.Pointer[acmeState] // nil when [acme] is off

	// limiter and gate bound on-demand issuance; they outlive reloads,
	// so that a reload does not refill the budget.
	limiter *limiter
	gate    *gate
	// acmeNames are the names ACME holds certificates for, for the
	// expiry gauge.
	acmeNames sync.Map // string -> struct{}

	// gone is set by Close: the expiry gauge of a closed Manager writes
	// nothing, so that a set may serve Managers one after another.
	gone atomic.Bool

	mu    sync.Mutex // serialises Start, Reload and Close
	cache *certmagic.Cache
	set   *metrics.Set
	// redis is the [acme.redis] storage in use (nil without), built from
	// redisCfg over the folder redisDir.
	redis    *redisstore.Layered
	redisCfg redisstore.Config
	redisDir string
	failed   []string
	started  bool
	closed   bool
}

// New builds the TLS configuration from cfg: it loads the certificates
// ([[tls.certificate]] and certificates_dir) and sets up ACME when
// cfg.ACME is set. A certificate that does not load fails New with an
// error naming its file (a *CertError). decide gates on-demand issuance;
// nil obtains nothing on demand.
// Metrics are registered in set (a private set when nil); one Manager at a
// time per set: a second one made before the first is closed would write
// the expiry gauge twice. No certificate is obtained before Start.
func New(cfg *Settings, decide DecisionFunc, set *metrics.Set, log *slog.Logger) (*Manager, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if set == nil {
		set = metrics.NewSet()
	}
	m := &Manager{log: log, decide: decide, limiter: newLimiter(), set: set}
	certs, errs := loadSet(cfg)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	m.certs.Store(certs)
	m.hm = newHandshakeMetrics(set)
	m.ctx, m.cancel = context.WithCancel(context.Background())
	m.gate = newGate(m.ctx, set, log, m.limiter)
	if err := m.applyACME(cfg, certs); err != nil {
		m.cancel()
		return nil, err
	}
	m.tls = &tls.Config{
		MinVersion: tls.VersionTLS12,
		// h2 first: ALPN takes the server's order among what the client
		// offers (RFC 7301 3.2), and every browser offers both.
		NextProtos:       []string{"h2", "http/1.1", alpnACME},
		GetCertificate:   m.getCertificate,
		CurvePreferences: keyExchanges(cfg.PostQuantum),
	}
	if cfg.NoHTTP2 {
		m.tls.NextProtos = m.tls.NextProtos[1:]
	}
	m.ticket = startTickets(m.tls, ticketRotateEvery)
	set.RegisterMetricsWriter(m.writeExpiry)
	return m, nil
}

// TLSConfig returns the configuration for the HTTPS listener: TLS 1.2 and
// 1.3 with Go's default cipher suites, X25519 and the NIST curves for the
// key exchange (the post-quantum hybrids too with Settings.PostQuantum;
// keyexchange.go), ALPN h2 (unless NoHTTP2) and http/1.1 (and acme-tls/1 for
// TLS-ALPN-01 challenges: a connection that negotiates it has done its
// job once the handshake is over and must be closed, RFC 8737 section 3),
// session tickets with rotating keys, and GetCertificate choosing by SNI.
// It is the same *tls.Config for the Manager's life: reloads change what
// GetCertificate returns, not the config (Reload ignores PostQuantum). Do not modify it.
func (m *Manager) TLSConfig() *tls.Config { return m.tls }

// Start begins obtaining and renewing the certificates of the ACME hosts.
// Call it once the plain and HTTPS listeners are bound: certmagic binds a
// challenge port itself when it finds it free, and would take the plain
// listener's port if it came first.
func (m *Manager) Start() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.started || m.closed {
		return
	}
	m.started = true
	if st := m.acme.Load(); st != nil {
		st.manage(m.ctx, st.hostList)
	}
	go m.cleanLoop()
}

// Reload applies cfg's certificates and [acme] table. When a certificate
// fails to load, the error names its file, the old set keeps serving and
// Failed lists the problem until a reload succeeds.
func (m *Manager) Reload(cfg *Settings) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return errors.New("tlsconf: reload after Close")
	}
	certs, errs := loadSet(cfg)
	if len(errs) > 0 {
		m.failed = m.failed[:0]
		for _, e := range errs {
			m.failed = append(m.failed, e.Error())
		}
		return fmt.Errorf("certificates not reloaded, the previous ones stay: %w", errors.Join(errs...))
	}
	old := m.acme.Load()
	if err := m.applyACME(cfg, certs); err != nil {
		return err
	}
	m.certs.Store(certs)
	m.failed = nil
	if st := m.acme.Load(); st != nil && m.started {
		var added []string
		for _, h := range st.hostList {
			if old == nil || !old.hosts[h] {
				added = append(added, h)
			}
		}
		st.manage(m.ctx, added)
	}
	if old != nil {
		old.unmanageDropped(m.acme.Load())
	}
	return nil
}

// Failed lists the certificates that failed to load at the last reload,
// each "file[:line]: problem", while the previous set serves; empty when
// the last load succeeded. /readyz reports them.
func (m *Manager) Failed() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.failed)
}

// Close stops the ticket key rotation and ACME's renewals. Handshakes
// already running finish; TLSConfig stays usable with the certificates it
// has.
func (m *Manager) Close() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return
	}
	m.closed = true
	m.gone.Store(true)
	m.cancel()
	m.ticket.close()
	if m.cache != nil {
		m.cache.Stop()
	}
	m.keepRedis(nil, nil)
}

// getCertificate chooses the certificate of a handshake: a TLS-ALPN-01
// challenge goes to ACME; otherwise a certificate from files that covers
// the name, then ACME's for the name (managed or on demand), then the
// default certificate (as nginx serves its default server's certificate
// for an unknown name: the client then decides).
func (m *Manager) getCertificate(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	st := m.acme.Load()
	if len(hello.SupportedProtos) == 1 && hello.SupportedProtos[0] == alpnACME {
		if st == nil {
			return nil, fmt.Errorf("%w: an acme-tls/1 challenge, and [acme] is off", ErrNoCertificate)
		}
		return st.challenge(hello)
	}
	set := m.certs.Load()
	name := normalName(hello.ServerName)
	if name != "" {
		if c := set.lookup(name); c != nil {
			return c, nil
		}
	}
	var acmeErr error
	if st != nil && (name != "" || set.def == nil) {
		c, err := st.getCertificate(hello)
		if err == nil {
			return c, nil
		}
		acmeErr = err
	}
	if set.def != nil {
		return set.def, nil
	}
	if errors.Is(acmeErr, errRefused) {
		// No certificate and no error: crypto/tls then answers with the
		// alert unrecognized_name (RFC 6066 section 3), the one alert
		// that tells a client the name is not served here. An error of
		// ours would send internal_error.
		return nil, nil
	}
	if acmeErr != nil {
		// The CA's failure is detail for the log, %v and not %w: wrapped,
		// its context.DeadlineExceeded would let a caller take a failed
		// issuance for a slow client.
		return nil, fmt.Errorf("%w: %q: %v", ErrNoCertificate, name, acmeErr)
	}
	return nil, fmt.Errorf("%w: %q", ErrNoCertificate, name)
}
