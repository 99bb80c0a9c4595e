package config

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"strings"
)

// UpstreamTLS are the keys of an upstream group that say how its
// https:// servers are reached.
type UpstreamTLS struct {
	// TLSServerName is sent in SNI and verified in the server's
	// certificate; default: each server's own host.
	TLSServerName string `toml:"tls_server_name"`
	// CAFile is a PEM bundle of the roots a server's certificate must
	// chain to, instead of the system's (relative to the config's
	// folder).
	CAFile string `toml:"ca_file"`
	// ClientCertFile and ClientKeyFile are a PEM certificate and key
	// presented to servers that ask for one (both or neither).
	ClientCertFile string `toml:"client_cert_file"`
	ClientKeyFile  string `toml:"client_key_file"`
	// TLSInsecureSkipVerify accepts any certificate: the connection is
	// encrypted but anyone on the path can read and change it.
	TLSInsecureSkipVerify bool `toml:"tls_insecure_skip_verify"`

	// The files' contents as read at this load, so that a reload that
	// finds them changed (a rotated certificate) is told apart.
	caPEM, certPEM, keyPEM []byte
}

// ClientTLS returns the TLS client settings of u's https:// servers,
// for the server named host (its SNI and the name verified unless
// tls_server_name says another). The files were read and checked at
// load, so an error here means they changed meaning since, which load
// would have refused.
func (u *UpstreamTLS) ClientTLS(host string) (*tls.Config, error) {
	c := &tls.Config{ServerName: host, MinVersion: tls.VersionTLS12, InsecureSkipVerify: u.TLSInsecureSkipVerify}
	if u.TLSServerName != "" {
		c.ServerName = u.TLSServerName
	}
	if len(u.caPEM) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(u.caPEM) {
			return nil, errors.New("ca_file holds no PEM certificate")
		}
		c.RootCAs = pool
	}
	if len(u.certPEM) > 0 {
		cert, err := tls.X509KeyPair(u.certPEM, u.keyPEM)
		if err != nil {
			return nil, err
		}
		c.Certificates = []tls.Certificate{cert}
	}
	return c, nil
}

// checkUpstreamTLS reads u's TLS files and checks its TLS keys, which
// apply only to https:// servers.
func checkUpstreamTLS(u *Upstream, fl files, bad func(key, format string, args ...any)) {
	t := &u.UpstreamTLS
	anyTLS := false
	for _, s := range u.Targets {
		anyTLS = anyTLS || s.TLS
	}
	for _, k := range []struct{ key, v string }{{"tls_server_name", t.TLSServerName}, {"ca_file", t.CAFile},
		{"client_cert_file", t.ClientCertFile}, {"client_key_file", t.ClientKeyFile}} {
		if k.v != "" && !anyTLS && len(u.Targets) == len(u.Servers) {
			bad(k.key, "applies to https:// servers only, and servers lists none; write the servers that speak TLS as \"https://host[:port]\"")
		}
	}
	if t.TLSInsecureSkipVerify && !anyTLS && len(u.Targets) == len(u.Servers) {
		bad("tls_insecure_skip_verify", "applies to https:// servers only, and servers lists none")
	}
	if t.TLSServerName != "" {
		if msg := checkHost(strings.ToLower(t.TLSServerName)); msg != "" || strings.HasPrefix(t.TLSServerName, "*.") {
			bad("tls_server_name", "%q is not a host name; give the name the server's certificate is for, such as \"blog.example.net\"", cut(t.TLSServerName))
		}
	}
	read := func(key, name string) []byte {
		if name == "" {
			return nil
		}
		b, err := fl.read(fl.resolve(name))
		if err != nil {
			bad(key, "cannot read %s: %v", fl.resolve(name), unwrapPath(err))
		}
		return b
	}
	t.caPEM = read("ca_file", t.CAFile)
	if t.CAFile != "" && t.caPEM != nil && !x509.NewCertPool().AppendCertsFromPEM(t.caPEM) {
		bad("ca_file", "%s holds no PEM certificate (\"-----BEGIN CERTIFICATE-----\")", fl.resolve(t.CAFile))
	}
	if (t.ClientCertFile == "") != (t.ClientKeyFile == "") {
		key := "client_key_file"
		if t.ClientCertFile == "" {
			key = "client_cert_file"
		}
		bad(key, "missing: give client_cert_file and client_key_file together, or neither")
		return
	}
	t.certPEM, t.keyPEM = read("client_cert_file", t.ClientCertFile), read("client_key_file", t.ClientKeyFile)
	if t.certPEM != nil && t.keyPEM != nil {
		if _, err := tls.X509KeyPair(t.certPEM, t.keyPEM); err != nil {
			bad("client_cert_file", "cannot use %s with %s: %v", fl.resolve(t.ClientCertFile), fl.resolve(t.ClientKeyFile), err)
		}
	}
}
