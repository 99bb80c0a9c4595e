package tlsconf

import (
	"fmt"
	"strings"
	"time"

	"github.com/redirectd/redirectd/engine/tlsconf/redisstore"
)

// Settings is what the Manager is built from: the [tls] and [acme] tables
// in the package's own terms, so that the engine does not depend on the
// config package (cmd/redirectd converts). Names such as
// [[tls.certificate]] appear in it only in error messages.
type Settings struct {
	// File is the config file, for the errors of [acme] ca_root.
	File string
	// HTTPListen and TLSListen are the plain and HTTPS listeners'
	// addresses: certmagic is pointed at their ports, so that it finds
	// them taken and does not bind a challenge port of its own.
	HTTPListen, TLSListen string
	// Certificates are the [[tls.certificate]] pairs in file order; the
	// first is the default for clients without SNI.
	Certificates []Certificate
	// CertificatesDir is a folder of PEM pairs; empty for none.
	CertificatesDir string
	// ACME is the [acme] table; nil turns ACME off.
	ACME *ACME
	// PostQuantum is [tls] post_quantum: offer the ML-KEM hybrid key
	// exchanges beside X25519 and the NIST curves (keyexchange.go). New
	// reads it; Reload does not (it needs a restart).
	PostQuantum bool
	// NoHTTP2 leaves "h2" out of ALPN: clients speak HTTP/1.1.
	NoHTTP2 bool
}

// Certificate is one [[tls.certificate]] entry.
type Certificate struct {
	Cert, Key string
	// File and Line locate the entry, for the error when it does not load.
	File string
	Line int
}

// ACME is [acme]: certificates obtained and renewed through a CA.
type ACME struct {
	Email   string
	CA      string // the directory URL
	CARoot  string // a PEM root for a private CA; empty trusts the system's
	Storage string // the folder for the account key and certificates
	// Redis, when set, keeps the storage in Redis, shared by a fleet,
	// with Storage as this node's local copy (see redisstore.Layered).
	Redis *redisstore.Config
	// Names are the hosts obtained ahead of time. The caller resolves
	// hosts = "rules" into the exact hosts its rules name, before each
	// New and Reload.
	Names []string
	// OnDemand obtains during the handshake for names DecisionFunc
	// accepts (and Ask, when set, allows), at most OnDemandN new names
	// per OnDemandPer and PerDomainWeek orders per registered domain in
	// any 7 days, with at most Queue handshakes waiting. Zero values take
	// the defaults below.
	OnDemand      bool
	Ask           string
	OnDemandN     int
	OnDemandPer   time.Duration
	PerDomainWeek int
	Queue         int
}

// The on-demand budget until a Settings with ACME sets one, and for zero
// values; the same as the defaults of [acme] on_demand_rate,
// on_demand_per_domain_week and on_demand_queue.
const (
	defaultOnDemandCount   = 10
	defaultOnDemandPer     = time.Hour
	defaultOnDemandPerWeek = 40
	defaultOnDemandQueue   = 100
)

// CertError is a certificate that does not load. It prints as the config
// package's errors do: "file:line: [[tls.certificate]] #2: cert: problem"
// for an entry, "file: problem" for a certificates_dir file.
type CertError struct {
	File  string
	Line  int // 0 when unknown
	Entry int // the [[tls.certificate]] entry, from 1; 0 for certificates_dir
	Msg   string
	// Err is the cause (fs.ErrNotExist for a missing file, through
	// errors.Is), nil when there is none but the message.
	Err error
}

func (e *CertError) Unwrap() error { return e.Err }

func (e *CertError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Entry > 0 {
		fmt.Fprintf(&b, "[[tls.certificate]] #%d: cert: ", e.Entry)
	}
	b.WriteString(e.Msg)
	return b.String()
}
