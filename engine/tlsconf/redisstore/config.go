package redisstore

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"time"

	"github.com/redis/go-redis/v9"
)

// Config is where the storage lives. It is comparable: a reload that
// changes nothing keeps the client and its locks.
type Config struct {
	// Addr is the server's host:port.
	Addr string
	// Username (an ACL user, empty for the default one) and Password
	// (empty for none) authenticate.
	Username, Password string
	// DB is the database number.
	DB int
	// KeyPrefix begins every key, such as "redirectd/acme/"; empty for
	// DefaultKeyPrefix.
	KeyPrefix string
	// TLS turns TLS on. CAFile (a PEM file, empty for the system's roots)
	// verifies the server, whose certificate must name ServerName (empty
	// for Addr's host); CertFile and KeyFile are a client certificate,
	// for a server with tls-auth-clients on.
	TLS                bool
	CAFile, ServerName string
	CertFile, KeyFile  string
	// LockTTL is how long a lock outlives a holder that stopped
	// refreshing it (a crash, a network split); 0 for DefaultLockTTL.
	LockTTL time.Duration
	// LockPoll is how often a waiting Lock tries again; 0 for
	// DefaultLockPoll.
	LockPoll time.Duration
}

// Defaults of Config.
const (
	DefaultKeyPrefix = "redirectd/acme/"
	// DefaultLockTTL: a holder refreshes its lock every third of it, so
	// two refreshes may be lost to a slow or briefly unreachable Redis
	// before the lock is taken for stale. certmagic's FileStorage takes
	// a lock for stale after 10 s without an update.
	DefaultLockTTL = 30 * time.Second
	// DefaultLockPoll is FileStorage's poll interval too: waiting locks
	// are rare (two nodes ordering the same name) and waits are long (an
	// ACME order takes seconds).
	DefaultLockPoll = time.Second
)

// timeout bounds each dial, read and write to Redis, so that an
// unreachable server (packets dropped, not refused) turns into a fallback
// to the local copy within a handshake's time, not the OS's minutes.
const timeout = 2 * time.Second

// options turns c into go-redis's options, reading the TLS files.
func (c Config) options() (*redis.Options, error) {
	o := &redis.Options{
		Addr: c.Addr, Username: c.Username, Password: c.Password, DB: c.DB,
		DialTimeout: timeout, ReadTimeout: timeout, WriteTimeout: timeout, PoolTimeout: timeout,
		// One try: a retry doubles the wait of every read during an
		// outage, and certmagic retries the work that matters itself.
		MaxRetries: -1, DialerRetries: 1,
		// No CLIENT SETINFO at each connection: Redis before 7.2 answers
		// it with an error.
		DisableIdentity: true,
	}
	o.Dialer = dialer(nil)
	if !c.TLS {
		return o, nil
	}
	tc := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: c.ServerName}
	if c.CAFile != "" {
		pem, err := os.ReadFile(c.CAFile)
		if err != nil {
			return nil, fmt.Errorf("cannot read the CA of Redis's certificate: %w", err)
		}
		tc.RootCAs = x509.NewCertPool()
		if !tc.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%s holds no PEM certificate", c.CAFile)
		}
	}
	if c.CertFile != "" || c.KeyFile != "" {
		cert, err := tls.LoadX509KeyPair(c.CertFile, c.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("cannot load the client certificate for Redis: %w", err)
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	o.TLSConfig = tc
	o.Dialer = dialer(tc)
	return o, nil
}
