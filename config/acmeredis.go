package config

import (
	"fmt"
	"net"
	"os"
	"strings"
)

// ACMERedis is [acme.redis]: the ACME account, certificates, challenge
// data and issuance locks kept in Redis and shared by a fleet, with
// [acme] storage as each node's local copy (engine/tlsconf/redisstore).
type ACMERedis struct {
	// Address is the server's host:port.
	Address string `toml:"address"`
	// Username is an ACL user; empty for the default user.
	Username string `toml:"username"`
	// Password, or PasswordFile naming a file that holds it (read at
	// every load, as [admin] token_file is); both empty for none.
	Password     string `toml:"password"`
	PasswordFile string `toml:"password_file"`
	// DB is the database number (default 0).
	DB int `toml:"db"`
	// KeyPrefix begins every key (default DefaultRedisKeyPrefix), so that
	// one Redis may hold several fleets.
	KeyPrefix string `toml:"key_prefix"`
	// TLS is tls = true (verified against the system's roots) or a
	// [acme.redis.tls] table.
	TLS RedisTLS `toml:"tls"`
}

// DefaultRedisKeyPrefix is [acme.redis] key_prefix's default.
const DefaultRedisKeyPrefix = "redirectd/acme/"

// RedisTLS is [acme.redis] tls: a boolean, or a table whose presence
// turns TLS on.
type RedisTLS struct {
	On bool
	// CAFile is a PEM file of the CA that signed Redis's certificate;
	// empty trusts the system's roots.
	CAFile string `toml:"ca_file"`
	// ServerName is the name Redis's certificate must hold; empty for
	// address's host.
	ServerName string `toml:"server_name"`
	// CertFile and KeyFile are a client certificate, for a Redis with
	// tls-auth-clients on.
	CertFile string `toml:"cert_file"`
	KeyFile  string `toml:"key_file"`
}

// UnmarshalTOML implements toml.Unmarshaler. Unknown keys of the table
// are reported by checkKeys.
func (t *RedisTLS) UnmarshalTOML(v any) error {
	switch v := v.(type) {
	case bool:
		t.On = v
		return nil
	case map[string]any:
		t.On = true
		for key, dst := range map[string]*string{"ca_file": &t.CAFile, "server_name": &t.ServerName,
			"cert_file": &t.CertFile, "key_file": &t.KeyFile} {
			x, ok := v[key]
			if !ok {
				continue
			}
			s, ok := x.(string)
			if !ok {
				return fmt.Errorf("%s must be a string in quotes, not %s", key, tomlType(x))
			}
			*dst = s
		}
		return nil
	}
	return fmt.Errorf("must be true, false or a table such as { ca_file = \"/etc/redirectd/redis-ca.pem\" }, not %s", tomlType(v))
}

// checkACMERedis validates [acme.redis], reads its password_file and
// resolves its paths.
func checkACMERedis(file string, r *ACMERedis, fl files, loc *locator, errs *errorList) {
	bad := func(key, format string, args ...any) {
		errs.add(&Error{File: file, Line: loc.line("acme.redis", 0, key), What: "[acme.redis]", Key: key, Msg: fmt.Sprintf(format, args...)})
	}
	if r.Address == "" {
		bad("address", "missing; name the Redis server, such as \"127.0.0.1:6379\"")
	} else if host, port, err := net.SplitHostPort(r.Address); err != nil || host == "" || port == "" {
		bad("address", "%q is not host:port; write it as \"redis.internal:6379\"", cut(r.Address))
	}
	if r.DB < 0 {
		bad("db", "%d is not a database number; Redis numbers them from 0", r.DB)
	}
	if r.KeyPrefix == "" {
		r.KeyPrefix = DefaultRedisKeyPrefix
	}
	if strings.ContainsFunc(r.KeyPrefix, func(c rune) bool { return c < ' ' || c == 0x7f }) {
		bad("key_prefix", "%q holds control characters", cut(r.KeyPrefix))
	}
	if r.PasswordFile != "" {
		if r.Password != "" {
			bad("password_file", "set password or password_file, not both")
		} else {
			r.PasswordFile = secretPath(file, r.PasswordFile)
			p, err := readSecret(r.PasswordFile)
			if err != nil {
				bad("password_file", "%v", err)
			}
			r.Password = p
		}
	}
	t := &r.TLS
	if (t.CertFile == "") != (t.KeyFile == "") {
		errs.add(&Error{File: file, Line: loc.line("acme.redis.tls", 0, "cert_file"), What: "[acme.redis] tls", Key: "cert_file",
			Msg: "give both cert_file and key_file for a client certificate, or neither"})
	}
	for _, f := range []struct {
		key string
		p   *string
	}{{"ca_file", &t.CAFile}, {"cert_file", &t.CertFile}, {"key_file", &t.KeyFile}} {
		if *f.p == "" {
			continue
		}
		*f.p = fl.resolve(*f.p)
		if _, err := os.Stat(*f.p); err != nil {
			line := loc.line("acme.redis.tls", 0, f.key)
			if line == 0 {
				line = loc.line("acme.redis", 0, "tls")
			}
			errs.add(&Error{File: file, Line: line, What: "[acme.redis] tls", Key: f.key, Msg: fmt.Sprintf("cannot read %s: %v", *f.p, unwrapPath(err))})
		}
	}
}
