package config

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/internal/dnsname"
)

// TLS is the [tls] table: the HTTPS listener of the traffic side and the
// certificates it serves from files. engine/tlsconf loads the
// certificates; the config only checks what can be checked without
// reading them.
type TLS struct {
	// Listen is the HTTPS address, such as "0.0.0.0:443"; empty (the
	// default) means no HTTPS listener.
	Listen string `toml:"listen"`
	// Certificates are the [[tls.certificate]] pairs, in file order; the
	// first is the default certificate for clients that send no SNI.
	Certificates []TLSCertificate `toml:"certificate"`
	// CertificatesDir is a folder of PEM pairs (see engine/tlsconf).
	CertificatesDir string `toml:"certificates_dir"`
	// HSTS is the Strict-Transport-Security value added to answers over
	// TLS; empty adds none.
	HSTS string `toml:"hsts"`
	// HandshakeTimeout bounds a TLS handshake (default 10s).
	HandshakeTimeout Duration `toml:"handshake_timeout"`
	// PostQuantum offers the ML-KEM hybrid key exchanges (X25519MLKEM768
	// and Go's others) beside X25519 and the NIST curves; off by default
	// for their CPU (engine/tlsconf/keyexchange.go). Applies at start.
	PostQuantum bool `toml:"post_quantum"`
	// HTTP2 offers HTTP/2 (ALPN "h2") before http/1.1; on unless set to
	// false.
	HTTP2 *bool `toml:"http2"`
	// MaxConcurrentStreams is HTTP/2's SETTINGS_MAX_CONCURRENT_STREAMS
	// (default 100).
	MaxConcurrentStreams int `toml:"max_concurrent_streams"`
}

// HTTP2On reports whether HTTP/2 is offered: unless http2 = false.
func (t *TLS) HTTP2On() bool { return t.HTTP2 == nil || *t.HTTP2 }

// DefaultMaxConcurrentStreams is [tls] max_concurrent_streams' default.
const DefaultMaxConcurrentStreams = 100

// On reports whether the HTTPS listener is configured.
func (t *TLS) On() bool { return t.Listen != "" }

// TLSCertificate is one [[tls.certificate]]: a certificate chain and its
// private key, PEM files. Paths are resolved from the config's folder.
type TLSCertificate struct {
	Cert string `toml:"cert"`
	Key  string `toml:"key"`
	// File and Line locate the entry's header, for errors found when the
	// files are read.
	File string `toml:"-"`
	Line int    `toml:"-"`
}

// ACME is the [acme] table: certificates obtained automatically. It is
// nil in Config when the table is absent.
type ACME struct {
	// Email is given to the CA for expiry notices; optional.
	Email string `toml:"email"`
	// CA is the ACME directory URL (default Let's Encrypt's production
	// directory, DefaultACMECA).
	CA string `toml:"ca"`
	// CARoot is a PEM file of the root that signs the directory's HTTPS
	// certificate, for a private CA; empty trusts the system's roots.
	CARoot string `toml:"ca_root"`
	// Storage is the folder for the account key and the certificates;
	// required, so that certificates survive restarts (the CA's rate
	// limits make re-issuing at each start a failure mode).
	Storage string `toml:"storage"`
	// Hosts is "rules" (the default: every exact host the rules name) or
	// a list of host names.
	Hosts ACMEHosts `toml:"hosts"`
	// OnDemand obtains a certificate during the first handshake for a
	// name the serving rules name by host (an exact host or one under a
	// wildcard host), when Ask (if set) allows it.
	OnDemand bool `toml:"on_demand"`
	// Ask is an http(s) URL asked before an on-demand order, as Caddy's
	// "ask": GET URL?domain=NAME, a 200 allows, anything else refuses.
	Ask string `toml:"ask"`
	// OnDemandRate bounds on-demand issuance: "N/duration", such as
	// "10/1h" (the default).
	OnDemandRate Rate `toml:"on_demand_rate"`
	// OnDemandPerDomainWeek bounds the on-demand orders per registered
	// domain (example.co.uk for a.b.example.co.uk) in any 7 days
	// (default DefaultOnDemandPerDomainWeek).
	OnDemandPerDomainWeek Count `toml:"on_demand_per_domain_week"`
	// OnDemandQueue bounds the handshakes waiting for an on-demand
	// order; past it a handshake is refused at once (default
	// DefaultOnDemandQueue).
	OnDemandQueue Count `toml:"on_demand_queue"`
	// Redis is [acme.redis], nil when absent: the storage shared by a
	// fleet, Storage then being this node's local copy.
	Redis *ACMERedis `toml:"redis"`
}

// DefaultACMECA is Let's Encrypt's production directory.
const DefaultACMECA = "https://acme-v02.api.letsencrypt.org/directory"

// Defaults of [tls] and [acme].
const (
	DefaultHandshakeTimeout = engine.DefaultHandshakeTimeout // declared where it applies
	DefaultOnDemandCount    = 10
	DefaultOnDemandPer      = time.Hour
	// DefaultOnDemandPerDomainWeek stays under Let's Encrypt's 50
	// certificates per registered domain per week, leaving room for the
	// names ordered ahead of time and for a second instance.
	DefaultOnDemandPerDomainWeek = 40
	// DefaultOnDemandQueue: handshakes waiting for orders. Each holds a
	// connection and a goroutine (about 10 KiB) until the CA answers.
	DefaultOnDemandQueue = 100
	// maxOnDemandQueue keeps the queue's memory to tens of MB.
	maxOnDemandQueue = 10000
)

// ACMEHosts is [acme] hosts: the string "rules" or a list of names.
type ACMEHosts struct {
	// FromRules is set by "rules" (and by default): the caller supplies
	// the exact hosts its rules name.
	FromRules bool
	// Names is the explicit list, lower case; empty but not nil for
	// hosts = [] (on-demand names only).
	Names []string
}

// UnmarshalTOML implements toml.Unmarshaler.
func (h *ACMEHosts) UnmarshalTOML(v any) error {
	switch v := v.(type) {
	case string:
		if v != "rules" {
			return fmt.Errorf("%q is not a choice; write \"rules\" or a list such as [\"a.example\", \"b.example\"]", v)
		}
		h.FromRules = true
		return nil
	case []any:
		h.Names = make([]string, 0, len(v))
		for _, e := range v {
			s, ok := e.(string)
			if !ok {
				return fmt.Errorf("must list host names in quotes, not %s", tomlType(e))
			}
			h.Names = append(h.Names, strings.ToLower(s))
		}
		return nil
	}
	return fmt.Errorf("must be \"rules\" or a list of host names, not %s", tomlType(v))
}

// Rate is a count per interval, written "N/duration" such as "10/1h".
type Rate struct {
	N   int
	Per time.Duration
}

// UnmarshalTOML implements toml.Unmarshaler.
func (r *Rate) UnmarshalTOML(v any) error {
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("must be a rate in quotes, such as \"10/1h\", not %s", tomlType(v))
	}
	n, per, ok := strings.Cut(s, "/")
	count, err1 := strconv.Atoi(strings.TrimSpace(n))
	d, err2 := time.ParseDuration(strings.TrimSpace(per))
	if !ok || err1 != nil || err2 != nil || count <= 0 || d <= 0 {
		return fmt.Errorf("%q is not a rate; write a count and a duration, such as \"10/1h\"", s)
	}
	r.N, r.Per = count, d
	return nil
}

// Count is a positive integer key; 0 in the struct means the key was
// left out (the caller fills the default).
type Count int

// UnmarshalTOML implements toml.Unmarshaler.
func (c *Count) UnmarshalTOML(v any) error {
	n, ok := v.(int64)
	if !ok {
		return fmt.Errorf("must be a whole number, not %s", tomlType(v))
	}
	if n <= 0 || n > 1<<31-1 {
		return fmt.Errorf("%d is out of range; write a count of at least 1", n)
	}
	*c = Count(n)
	return nil
}

// checkTLS validates [tls] and [acme], resolves their paths from the
// config's folder and fills their defaults.
func checkTLS(file string, raw *rawConfig, cfg *Config, fl files, loc *locator, errs *errorList) {
	t := raw.TLS
	bad := func(table, key, format string, args ...any) {
		errs.add(&Error{File: file, Line: loc.line(table, 0, key), What: "[" + table + "]", Key: key, Msg: fmt.Sprintf(format, args...)})
	}
	if t.Listen != "" {
		if _, port, err := net.SplitHostPort(t.Listen); err != nil || port == "" {
			bad("tls", "listen", "%q is not host:port; write it as \"0.0.0.0:443\"", t.Listen)
		}
	}
	for i := range t.Certificates {
		c := &t.Certificates[i]
		c.File, c.Line = file, loc.header("tls.certificate", i)
		what := fmt.Sprintf("[[tls.certificate]] #%d", i+1)
		for _, k := range []struct {
			key string
			v   *string
		}{{"cert", &c.Cert}, {"key", &c.Key}} {
			if *k.v == "" {
				errs.add(&Error{File: file, Line: c.Line, What: what, Key: k.key,
					Msg: "missing; give both cert and key, the paths of PEM files"})
				continue
			}
			*k.v = fl.resolve(*k.v)
		}
	}
	if t.CertificatesDir != "" {
		t.CertificatesDir = fl.resolve(t.CertificatesDir)
	}
	if strings.ContainsAny(t.HSTS, "\r\n") || (t.HSTS != "" && !strings.Contains(strings.ToLower(t.HSTS), "max-age=")) {
		bad("tls", "hsts", "%q is not a Strict-Transport-Security value; write one such as \"max-age=31536000; includeSubDomains\"", cut(t.HSTS))
	}
	defaultDuration(&t.HandshakeTimeout, DefaultHandshakeTimeout)
	switch {
	case t.MaxConcurrentStreams == 0:
		t.MaxConcurrentStreams = DefaultMaxConcurrentStreams
	case t.MaxConcurrentStreams < 1 || t.MaxConcurrentStreams > 1000:
		bad("tls", "max_concurrent_streams", "%d is out of range; write a number from 1 to 1000, such as 100", t.MaxConcurrentStreams)
	}
	if a := raw.ACME; a != nil {
		checkACME(file, a, fl, loc, errs)
		if t.Listen == "" {
			bad("acme", "", "[acme] needs the HTTPS listener; set [tls] listen, such as \"0.0.0.0:443\"")
		}
	}
	if t.Listen != "" && len(t.Certificates) == 0 && t.CertificatesDir == "" && raw.ACME == nil {
		bad("tls", "listen", "no certificate to serve; add [[tls.certificate]], certificates_dir or an [acme] table")
	}
	cfg.TLS, cfg.ACME = t, raw.ACME
}

// checkACME validates [acme] and fills its defaults.
func checkACME(file string, a *ACME, fl files, loc *locator, errs *errorList) {
	bad := func(key, format string, args ...any) {
		errs.add(&Error{File: file, Line: loc.line("acme", 0, key), What: "[acme]", Key: key, Msg: fmt.Sprintf(format, args...)})
	}
	if a.CA == "" {
		a.CA = DefaultACMECA
	}
	if u, err := url.Parse(a.CA); err != nil || u.Scheme != "https" || u.Host == "" {
		bad("ca", "%q is not an https URL of an ACME directory; leave it out for Let's Encrypt", cut(a.CA))
	}
	if a.CARoot != "" {
		a.CARoot = fl.resolve(a.CARoot)
	}
	if a.Email != "" && !strings.Contains(a.Email, "@") {
		bad("email", "%q is not an email address", cut(a.Email))
	}
	if a.Storage == "" {
		bad("storage", "missing; name the folder for the ACME account and certificates (with [acme.redis], this node's copy of them), such as \"/var/lib/redirectd/acme\"")
	} else {
		a.Storage = fl.resolve(a.Storage)
	}
	if !a.Hosts.FromRules && a.Hosts.Names == nil {
		a.Hosts.FromRules = true
	}
	for _, h := range a.Hosts.Names {
		if strings.HasPrefix(h, "*.") {
			bad("hosts", "%q: a wildcard certificate needs the DNS-01 challenge, which redirectd does not answer; list the names, or set on_demand = true", cut(h))
		} else if !dnsname.Valid(h) {
			bad("hosts", "%q is not a host name a CA issues for: lower-case labels of a-z, 0-9 and '-' (none starting or ending with '-'), at least two", cut(h))
		}
	}
	if a.OnDemandRate.N == 0 {
		a.OnDemandRate = Rate{N: DefaultOnDemandCount, Per: DefaultOnDemandPer}
	}
	checkOnDemand(a, bad)
	if a.Redis != nil {
		checkACMERedis(file, a.Redis, fl, loc, errs)
	}
}

// checkOnDemand validates the on-demand keys of [acme] and fills their
// defaults.
func checkOnDemand(a *ACME, bad func(key, format string, args ...any)) {
	if a.OnDemandPerDomainWeek == 0 {
		a.OnDemandPerDomainWeek = DefaultOnDemandPerDomainWeek
	}
	if a.OnDemandQueue == 0 {
		a.OnDemandQueue = DefaultOnDemandQueue
	} else if a.OnDemandQueue > maxOnDemandQueue {
		bad("on_demand_queue", "%d is over %d; each waiting handshake holds a connection", a.OnDemandQueue, maxOnDemandQueue)
	}
	if a.Ask != "" {
		if u, err := url.Parse(a.Ask); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Fragment != "" {
			bad("ask", "%q is not an http or https URL, such as \"http://127.0.0.1:9000/allowed\"", cut(a.Ask))
		} else if !a.OnDemand {
			bad("ask", "set without on_demand = true; it is asked only before an on-demand order")
		}
	}
}
