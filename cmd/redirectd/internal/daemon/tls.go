package daemon

import (
	"crypto/tls"
	"errors"
	"io"
	"log/slog"
	"strings"

	"github.com/VictoriaMetrics/metrics"

	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/engine/h2"
	"github.com/redirectd/redirectd/engine/promtext"
	"github.com/redirectd/redirectd/engine/tlsconf"
	"github.com/redirectd/redirectd/engine/tlsconf/redisstore"
	"github.com/redirectd/redirectd/matcher"
)

// tlsMetricHelp is serviceMetricHelp for the families of engine/tlsconf.
var tlsMetricHelp = promtext.Help{
	"redirectd_tls_handshakes_total":           "TLS handshakes completed on the HTTPS port, by protocol version.",
	"redirectd_tls_handshake_failures_total":   "TLS handshakes that failed, by reason (timeout, eof, not_tls, unknown_sni, protocol_version, bad_certificate, other).",
	"redirectd_tls_certificate_expiry_seconds": "Seconds until each served certificate expires, negative once expired, by first name and source (file or acme).",
	"redirectd_acme_obtain_total":              "ACME certificate issuances, by result.",
	"redirectd_acme_renew_total":               "ACME certificate renewals, by result.",
	"redirectd_tls_on_demand_total":            "On-demand certificate decisions, by result (issued, failed, queued, refused, denied, rate_limited, domain_limited, queue_full, backoff).",
	"redirectd_tls_storage_up":                 "1 while the [acme.redis] storage answers, 0 while this node serves from its local copy and obtains nothing.",
	"redirectd_tls_storage_errors_total":       "Calls to the [acme.redis] storage that failed, by operation.",
	"redirectd_tls_storage_fallbacks_total":    "Reads answered from the local copy because Redis could not be reached, by operation.",
	"redirectd_tls_storage_restored_total":     "Certificate and account files this node wrote back to a Redis that lacked them (emptied, or restored from an old snapshot).",
}

// httpsSide is the HTTPS listener's certificate manager with its metrics.
type httpsSide struct {
	m   *tlsconf.Manager
	set *metrics.Set
}

// newHTTPS builds the certificate manager of cfg's [tls] table and sets
// opts to serve it, or returns nil without [tls] listen. rules returns the
// rule set serving, for on-demand certificates.
func newHTTPS(cfg *config.Config, opts *engine.Options, rules func() *matcher.Set, log *slog.Logger) (*httpsSide, error) {
	if !cfg.TLS.On() {
		return nil, nil
	}
	h := &httpsSide{set: metrics.NewSet()}
	// Only names the serving rules name by host get a certificate on
	// demand (tlsconf.RulesCover says why).
	decide := tlsconf.RulesCover(func() tlsconf.HostCover { return rules() })
	m, err := tlsconf.New(tlsSettings(cfg), decide, h.set, log)
	if err != nil {
		return nil, err
	}
	h.m = m
	opts.TLS = &engine.TLSOptions{
		Listen:           cfg.TLS.Listen,
		Config:           m.TLSConfig(),
		HandshakeTimeout: cfg.TLS.HandshakeTimeout.Std(),
		HSTS:             cfg.TLS.HSTS,
		HTTP2:            h2.Options{MaxConcurrentStreams: uint32(cfg.TLS.MaxConcurrentStreams)},
		Handshake: func(st *tls.ConnectionState, err error) {
			if err != nil {
				m.HandshakeFailed(err)
				return
			}
			m.HandshakeDone(st.Version)
		},
	}
	if cfg.ACME != nil {
		opts.ACMEChallenge = func(host, path string) ([]byte, bool) {
			return m.HTTPChallenge(strings.ToLower(host), path)
		}
	}
	return h, nil
}

// tlsSettings is cfg's [tls] and [acme] in engine/tlsconf's terms, with
// [acme] hosts = "rules" resolved into the exact hosts cfg's rules and maps
// name.
func tlsSettings(cfg *config.Config) *tlsconf.Settings {
	s := certSettings(cfg)
	s.PostQuantum = cfg.TLS.PostQuantum
	if a := cfg.ACME; a != nil {
		s.ACME = &tlsconf.ACME{
			Email: a.Email, CA: a.CA, CARoot: a.CARoot, Storage: a.Storage,
			Names:    a.Hosts.Names,
			OnDemand: a.OnDemand, OnDemandN: a.OnDemandRate.N, OnDemandPer: a.OnDemandRate.Per,
			Ask: a.Ask, PerDomainWeek: int(a.OnDemandPerDomainWeek), Queue: int(a.OnDemandQueue),
			Redis: redisConfig(a.Redis),
		}
		if a.Hosts.FromRules {
			s.ACME.Names = nil
			if cfg.Set != nil {
				s.ACME.Names = cfg.Set.Hosts()
			}
		}
	}
	return s
}

// redisConfig is [acme.redis] in redisstore's terms; nil without it.
func redisConfig(r *config.ACMERedis) *redisstore.Config {
	if r == nil {
		return nil
	}
	return &redisstore.Config{
		Addr: r.Address, Username: r.Username, Password: r.Password, DB: r.DB, KeyPrefix: r.KeyPrefix,
		TLS: r.TLS.On, CAFile: r.TLS.CAFile, ServerName: r.TLS.ServerName, CertFile: r.TLS.CertFile, KeyFile: r.TLS.KeyFile,
	}
}

// certSettings is tlsSettings without [acme], for what reads only the
// certificate files: it spares listing the rules' hosts.
func certSettings(cfg *config.Config) *tlsconf.Settings {
	s := &tlsconf.Settings{
		File:            cfg.Path,
		HTTPListen:      cfg.Server.Listen,
		TLSListen:       cfg.TLS.Listen,
		CertificatesDir: cfg.TLS.CertificatesDir,
		NoHTTP2:         !cfg.TLS.HTTP2On(),
	}
	for _, c := range cfg.TLS.Certificates {
		s.Certificates = append(s.Certificates, tlsconf.Certificate{Cert: c.Cert, Key: c.Key, File: c.File, Line: c.Line})
	}
	return s
}

// CheckCertificates loads cfg's certificates as serve would, for check:
// an error names the file, line and entry.
func CheckCertificates(cfg *config.Config) error {
	return tlsconf.CheckCertificates(certSettings(cfg))
}

// reload applies a reloaded config's certificates: a certificate that does
// not load refuses the whole reload, as a broken rule does, and the
// running rules and certificates stay.
func (h *httpsSide) reload(cfg *config.Config) error {
	if h == nil {
		if cfg.TLS.On() {
			return errors.New(cfg.Path + ": [tls] listen was added: restart redirectd to open the HTTPS port; the running rules stay")
		}
		return nil
	}
	return h.m.Reload(tlsSettings(cfg))
}

// rulesSwapped stops renewing the on-demand certificates of names the
// rules now serving no longer name; called after each swap.
func (h *httpsSide) rulesSwapped() {
	if h != nil {
		h.m.Prune()
	}
}

// ready reports certificates that failed to load at the last reload.
func (h *httpsSide) ready() error {
	if h == nil {
		return nil
	}
	if f := h.m.Failed(); len(f) > 0 {
		return errors.New("certificates failed to load (the previous ones serve): " + strings.Join(f, "; "))
	}
	return nil
}

func (h *httpsSide) writeMetrics(w io.Writer) {
	if h != nil {
		promtext.WriteSet(w, h.set, tlsMetricHelp)
	}
}

// files are the certificate files and folders [rules] watch stats.
func (h *httpsSide) files(cfg *config.Config) []string {
	if h == nil {
		return nil
	}
	return tlsconf.Files(certSettings(cfg))
}

func (h *httpsSide) close() {
	if h != nil {
		h.m.Close()
	}
}
