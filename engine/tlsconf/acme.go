package tlsconf

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/caddyserver/certmagic"
	"go.uber.org/zap"

	"github.com/redirectd/redirectd/internal/dnsname"
)

// renewCheckInterval is how often certmagic looks for certificates to
// renew; 0 is certmagic's default (10 minutes). Tests lower it.
var renewCheckInterval time.Duration

// onlyChallenge, when set by a test to "http-01" or "tls-alpn-01",
// disables the other challenge type, so that each path is exercised.
var onlyChallenge string

// acmeState is one [acme] configuration turned into certmagic configs,
// swapped whole on reload. Both configs share the Manager's cache.
type acmeState struct {
	// managed obtains the listed hosts ahead of time and renews them in
	// the background; onDemand (nil when on_demand is off) obtains during
	// a handshake and renews then. certmagic's maintenance skips configs
	// with OnDemand set, hence two.
	managed, onDemand *certmagic.Config
	issuer            *certmagic.ACMEIssuer // managed's, for HTTP-01
	ask               *asker                // nil without [acme] ask
	hosts             map[string]bool
	hostList          []string
	cache             *certmagic.Cache
	m                 *Manager
}

// applyACME builds the ACME state of cfg (nil when [acme] is off) and
// stores it; on error nothing changes. The caller holds m.mu (or is New).
func (m *Manager) applyACME(cfg *Settings, certs *certSet) error {
	a := cfg.ACME
	if a == nil {
		m.acme.Store(nil)
		m.keepRedis(nil, nil)
		if m.cache != nil {
			m.cache.Stop()
			m.cache = nil
		}
		return nil
	}
	roots, err := readCARoot(cfg.File, a.CARoot)
	if err != nil {
		return err
	}
	storage, err := m.acmeStorage(a)
	if err != nil {
		return fmt.Errorf("%s: [acme.redis]: %w", cfg.File, err)
	}
	st := &acmeState{m: m}
	if a.Ask != "" {
		if st.ask, err = newAsker(a.Ask); err != nil {
			return fmt.Errorf("%s: %w", cfg.File, err)
		}
	}
	st.hosts, st.hostList = m.acmeHosts(a.Names, certs)
	m.limiter.set(orDefault(a.OnDemandN, defaultOnDemandCount), orDefault(a.OnDemandPer, defaultOnDemandPer))
	m.gate.set(orDefault(a.PerDomainWeek, defaultOnDemandPerWeek), orDefault(a.Queue, defaultOnDemandQueue))

	zl := zapToSlog(m.log)
	if m.cache == nil {
		m.cache = certmagic.NewCache(certmagic.CacheOptions{
			GetConfigForCert:   m.configForCert,
			RenewCheckInterval: renewCheckInterval,
			Logger:             zl,
		})
	}
	st.cache = m.cache
	st.managed, st.issuer = m.newACMEConfig(cfg, storage, roots, zl, nil)
	if len(st.hostList) > 0 {
		// Clients without SNI get the first host's certificate when no
		// file certificate is the default.
		st.managed.DefaultServerName = st.hostList[0]
	}
	if a.OnDemand {
		st.onDemand, _ = m.newACMEConfig(cfg, storage, roots, zl, &certmagic.OnDemandConfig{DecisionFunc: st.decideOnDemand})
		st.onDemand.DefaultServerName = st.managed.DefaultServerName
	}
	m.acme.Store(st)
	m.keepRedis(storage, a)
	return nil
}

// orDefault is v, or def when v is zero.
func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// readCARoot reads [acme] ca_root, the CA's roots to trust, from path
// (none: nil, the system's roots). file is the config, for errors.
func readCARoot(file, path string) (*x509.CertPool, error) {
	if path == "" {
		return nil, nil
	}
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: [acme] ca_root: cannot read: %w", file, err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%s: [acme] ca_root: %s holds no PEM certificate", file, path)
	}
	return roots, nil
}

// acmeHosts returns the hosts of names to obtain certificates for, as a
// set and in order: each once, in lower case, without those no public CA
// issues for (logged) and those a certificate from files serves.
func (m *Manager) acmeHosts(names []string, certs *certSet) (map[string]bool, []string) {
	hosts := map[string]bool{}
	var list, skipped []string
	for _, h := range names {
		h = normalName(h)
		switch {
		case hosts[h]:
		case !certmagic.SubjectQualifiesForPublicCert(h) || strings.Contains(h, "*"):
			skipped = append(skipped, h)
		case certs.lookup(h) != nil:
			// A certificate from files already serves it and wins in
			// getCertificate: obtaining one would spend the CA's rate
			// limits for nothing.
		default:
			hosts[h] = true
			list = append(list, h)
		}
	}
	if len(skipped) > 0 {
		m.log.Warn("acme: hosts no public CA issues for are left out", "hosts", skipped)
	}
	return hosts, list
}

// newACMEConfig makes a certmagic config on m's cache that obtains
// certificates from cfg's CA into storage, on demand when od is set, with
// its one issuer.
func (m *Manager) newACMEConfig(cfg *Settings, storage certmagic.Storage, roots *x509.CertPool, zl *zap.Logger, od *certmagic.OnDemandConfig) (*certmagic.Config, *certmagic.ACMEIssuer) {
	a := cfg.ACME
	httpHost, httpPort := splitPort(cfg.HTTPListen, 80)
	_, tlsPort := splitPort(cfg.TLSListen, 443)
	c := certmagic.New(m.cache, certmagic.Config{
		Storage:  storage,
		Logger:   zl,
		OnEvent:  m.onEvent,
		OnDemand: od,
	})
	iss := certmagic.NewACMEIssuer(c, certmagic.ACMEIssuer{
		// TestCA is left to certmagic: with Let's Encrypt production it
		// makes retries after a failure against Let's Encrypt staging
		// first, sparing production's rate limits; with another CA,
		// retries go to that CA.
		CA:    a.CA,
		Email: a.Email,
		// Setting [acme] is the operator's agreement to the CA's
		// subscriber terms; there is no one to ask at run time.
		Agreed:       true,
		TrustedRoots: roots,
		// certmagic binds these itself when free; pointing them at our
		// own listeners makes it find them taken and rely on
		// HTTPChallenge and getCertificate instead.
		ListenHost:     httpHost,
		AltHTTPPort:    httpPort,
		AltTLSALPNPort: tlsPort,
		Logger:         zl,

		DisableHTTPChallenge:    onlyChallenge == "tls-alpn-01",
		DisableTLSALPNChallenge: onlyChallenge == "http-01",
	})
	c.Issuers = []certmagic.Issuer{iss}
	return c, iss
}

// splitPort returns the host and port of addr, or def for the port when
// addr has none.
func splitPort(addr string, def int) (string, int) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", def
	}
	n, err := strconv.Atoi(port)
	if err != nil || n == 0 {
		return host, def
	}
	return host, n
}

// configForCert is the cache's GetConfigForCert: renewals of a managed
// host go through the managed config, others through the on-demand one.
func (m *Manager) configForCert(c certmagic.Certificate) (*certmagic.Config, error) {
	st := m.acme.Load()
	if st == nil {
		return nil, fmt.Errorf("[acme] is off")
	}
	if st.onDemand != nil {
		for _, n := range c.Names {
			if !st.hosts[n] {
				return st.onDemand, nil
			}
		}
	}
	return st.managed, nil
}

// manage starts obtaining (or loading from storage) hosts' certificates in
// the background.
func (st *acmeState) manage(ctx context.Context, hosts []string) {
	if len(hosts) == 0 {
		return
	}
	if err := st.managed.ManageAsync(ctx, hosts); err != nil {
		st.m.log.Error("acme: cannot manage hosts", "hosts", hosts, "err", err)
	}
}

// unmanageDropped stops renewing the hosts that next no longer lists.
func (st *acmeState) unmanageDropped(next *acmeState) {
	var gone []certmagic.SubjectIssuer
	for _, h := range st.hostList {
		if next == nil || !next.hosts[h] {
			gone = append(gone, certmagic.SubjectIssuer{Subject: h})
		}
	}
	if len(gone) > 0 && next != nil {
		st.cache.RemoveManaged(gone)
	}
}

// getCertificate is ACME's certificate for hello: through the managed
// config, or with on_demand the on-demand path for names not managed
// ahead of time. A name no rule names gives errRefused.
func (st *acmeState) getCertificate(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	if st.onDemand == nil {
		return st.managed.GetCertificate(hello)
	}
	name := normalName(hello.ServerName)
	if name == "" || st.hosts[name] {
		return st.onDemand.GetCertificate(hello)
	}
	return st.getOnDemand(hello, name)
}

// challenge answers a TLS-ALPN-01 challenge handshake. It must not go
// through getOnDemand: the challenge of a name being ordered would wait
// for its own order.
func (st *acmeState) challenge(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	if st.onDemand != nil {
		return st.onDemand.GetCertificate(hello)
	}
	return st.managed.GetCertificate(hello)
}

// errRefused is an on-demand name that no rule names or that the ask URL
// refused: getCertificate turns it into the alert unrecognized_name.
var errRefused = errors.New("no rule names the host")

// getOnDemand serves name on demand. The rules decide first (an atomic
// load and a map lookup, on every handshake, so that a name removed from
// the rules is refused even while its certificate is cached); a
// certificate in the cache or in storage is then served by certmagic
// (which renews it in the handshake that finds it due); otherwise the
// ask URL and the gate's bounds decide whether this handshake waits for
// an order. certmagic never orders on its own here: decideOnDemand lets
// it through only for names in storage.
func (st *acmeState) getOnDemand(hello *tls.ClientHelloInfo, name string) (*tls.Certificate, error) {
	m := st.m
	cov := m.cover(name)
	if cov == NotCovered {
		m.gate.count(odRefused)
		m.gate.noRule.log(m.log, "acme: on-demand handshake refused: no rule names the host, or it is not a DNS host name", name)
		return nil, errRefused
	}
	if len(st.cache.AllMatchingCertificates(name)) > 0 {
		return st.onDemand.GetCertificate(hello)
	}
	ctx := hello.Context()
	if st.stored(ctx, name) {
		return st.onDemand.GetCertificate(hello)
	}
	if st.ask != nil {
		if ok, why := st.ask.allowed(ctx, name); !ok {
			m.gate.count(odDenied)
			m.gate.denied.log(m.log, "acme: on-demand order refused by [acme] ask", name, "why", why)
			return nil, errRefused
		}
	}
	order := func(ctx context.Context) error { return st.obtainOnce(ctx, name) }
	if err := m.gate.obtain(ctx, name, cov == CoveredByWildcard, order); err != nil {
		return nil, err
	}
	return st.onDemand.GetCertificate(hello)
}

// obtainOnce orders name's certificate with one try. certmagic has two
// ways to obtain: ObtainCertSync tries once but is "interactive", and
// with no [acme] email before the first account exists it prompts on
// stdin, which would hang a server run from a terminal; ObtainCertAsync
// never prompts but retries for up to 30 days, holding the order (and
// the handshakes waiting on it) a minute and more. So: ObtainCertAsync,
// with a context that onEvent cancels at the first "cert_failed", with
// the failure as its cause; the gate's backoff does the retrying.
func (st *acmeState) obtainOnce(ctx context.Context, name string) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	ctx = context.WithValue(ctx, failOnceKey{}, cancel)
	err := st.onDemand.ObtainCertAsync(ctx, name)
	if cause := context.Cause(ctx); err != nil && cause != nil && !errors.Is(cause, context.Canceled) {
		return cause
	}
	return err
}

// failOnceKey holds, in an on-demand order's context, the cancel
// function that ends its retries.
type failOnceKey struct{}

// covers reports whether the rules serving now name host, the on-demand
// decision.
func (m *Manager) covers(host string) bool { return m.cover(host) != NotCovered }

// cover is how the rules name host. A name that is not a DNS host name a
// CA issues for (an empty label, a label starting or ending with '-', an
// underscore) is never covered, whatever a wildcard matches: no order is
// made for it and no budget spent.
func (m *Manager) cover(host string) Cover {
	if m.decide == nil || !dnsname.Valid(host) {
		return NotCovered
	}
	return m.decide(host)
}

// stored reports whether storage holds a certificate for name.
func (st *acmeState) stored(ctx context.Context, name string) bool {
	return st.onDemand.Storage.Exists(ctx, certmagic.StorageKeys.SiteCert(st.issuer.IssuerKey(), name))
}

// decideOnDemand is certmagic's DecisionFunc. certmagic asks it before
// loading a certificate from storage, before obtaining one, and before a
// renewal in a handshake: it allows only names the rules name whose
// certificate is in storage, so that a restart keeps every certificate
// it has and every new order goes through getOnDemand's bounds.
func (st *acmeState) decideOnDemand(ctx context.Context, name string) error {
	if !st.hosts[name] && !st.m.covers(name) {
		return fmt.Errorf("%q: %w", name, errRefused)
	}
	if !st.stored(ctx, name) {
		return fmt.Errorf("%q is not in storage; new orders go through redirectd's on-demand queue", name)
	}
	return nil
}

// onEvent counts ACME results and learns the names ACME holds; before
// each order it counts the order for its registered domain, and refuses
// it past on_demand_per_domain_week (ordercount.go).
func (m *Manager) onEvent(ctx context.Context, event string, data map[string]any) error {
	switch event {
	case "cert_obtaining":
		return m.countOrderEvent(ctx, data)
	case "cert_obtained", "cert_failed":
		if cancel, ok := ctx.Value(failOnceKey{}).(context.CancelCauseFunc); ok && event == "cert_failed" {
			err, _ := data["error"].(error)
			if err == nil {
				err = errors.New("the order failed")
			}
			cancel(err)
		}
		res := 0
		if event == "cert_failed" {
			res = 1
		}
		if renewal, _ := data["renewal"].(bool); renewal {
			m.hm.renew[res].Inc()
		} else {
			m.hm.obtain[res].Inc()
		}
		if id, ok := data["identifier"].(string); ok && res == 0 {
			m.acmeNames.Store(id, struct{}{})
		}
	case "cached_managed_cert":
		if sans, ok := data["sans"].([]string); ok {
			for _, n := range sans {
				m.acmeNames.Store(n, struct{}{})
			}
		}
	}
	return nil
}

// expiries lists, for each name ACME holds, when its newest cached
// certificate expires.
func (st *acmeState) expiries() []loadedCert {
	var out []loadedCert
	st.m.acmeNames.Range(func(k, _ any) bool {
		name := k.(string)
		var best time.Time
		for _, c := range st.cache.AllMatchingCertificates(name) {
			if c.Leaf != nil && c.Leaf.NotAfter.After(best) {
				best = c.Leaf.NotAfter
			}
		}
		if !best.IsZero() {
			out = append(out, loadedCert{name: name, notAfter: best})
		}
		return true
	})
	return out
}

// HTTPChallengePrefix is the path under which HTTP-01 challenges are
// asked (RFC 8555 section 8.3).
const HTTPChallengePrefix = "/.well-known/acme-challenge/"

// HTTPChallenge answers an HTTP-01 challenge: for a GET of path on host
// (the Host header; a port is ignored) it returns the key authorization
// to send as a 200 text/plain body, and true; false when the request is no
// challenge this server is solving (answer it as any other request). It
// may read the storage folder (a challenge begun by another instance
// sharing it), so call it from a goroutine, not an event loop; cheap
// pre-check: strings.HasPrefix(path, HTTPChallengePrefix).
func (m *Manager) HTTPChallenge(host, path string) ([]byte, bool) {
	st := m.acme.Load()
	if st == nil || !strings.HasPrefix(path, HTTPChallengePrefix) {
		return nil, false
	}
	ctx, cancel := context.WithTimeout(m.ctx, 10*time.Second)
	defer cancel()
	r := (&http.Request{Method: http.MethodGet, Host: host, URL: &url.URL{Path: path},
		Header: http.Header{}, RequestURI: path}).WithContext(ctx)
	var w challengeWriter
	if !st.issuer.HandleHTTPChallenge(&w, r) || (w.status != 0 && w.status != http.StatusOK) {
		return nil, false
	}
	return w.body.Bytes(), true
}

// challengeWriter records certmagic's challenge answer.
type challengeWriter struct {
	h      http.Header
	body   bytes.Buffer
	status int
}

func (w *challengeWriter) Header() http.Header {
	if w.h == nil {
		w.h = http.Header{}
	}
	return w.h
}
func (w *challengeWriter) Write(b []byte) (int, error) { return w.body.Write(b) }
func (w *challengeWriter) WriteHeader(s int)           { w.status = s }

// limiter admits at most n new names per interval: a sliding window of
// the names admitted. A name admitted once passes again while it is in the
// window (a client retrying while its certificate is obtained). Names
// covered only by a wildcard host take at most half of the window, so
// that names a client makes up under a wildcard never starve the names
// the rules name exactly.
//
// Not a token bucket (golang.org/x/time/rate, as the HTTP/2 and sign-in
// bounds use): one of burst n refilled at n per interval admits up to 2n
// names within one interval, where on_demand_rate promises at most n
// (config/README.md), and it could not let a name admitted lately pass
// again without taking a token.
type limiter struct {
	mu       sync.Mutex
	n        int
	per      time.Duration
	admitted map[string]admission
	now      func() time.Time
}

// admission is when a name was admitted, and whether only a wildcard
// covers it.
type admission struct {
	at   time.Time
	wild bool
}

func newLimiter() *limiter {
	return &limiter{n: defaultOnDemandCount, per: defaultOnDemandPer,
		admitted: map[string]admission{}, now: time.Now}
}

func (l *limiter) set(n int, per time.Duration) {
	l.mu.Lock()
	l.n, l.per = n, per
	l.mu.Unlock()
}

func (l *limiter) limits() (int, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n, l.per
}

// allow reports whether name may be ordered now; wild says only a
// wildcard host rule covers it.
func (l *limiter) allow(name string, wild bool) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	wilds := 0
	for k, a := range l.admitted { // at most n entries
		if now.Sub(a.at) >= l.per {
			delete(l.admitted, k)
		} else if a.wild {
			wilds++
		}
	}
	if _, ok := l.admitted[name]; ok {
		return true
	}
	if len(l.admitted) >= l.n || wild && wilds >= l.n/2 {
		return false
	}
	l.admitted[name] = admission{at: now, wild: wild}
	return true
}
