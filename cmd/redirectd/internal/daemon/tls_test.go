package daemon

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/engine/tlsconf"
	"github.com/redirectd/redirectd/engine/tlsconf/redisstore"
)

// TestTLSSettings checks the conversion of [tls] and [acme] into
// engine/tlsconf's terms: paths resolved by the config, entries located,
// hosts = "rules" resolved into the rules' exact hosts, the on-demand
// rate's default, a list of hosts passed as it is, and post_quantum.
func TestTLSSettings(t *testing.T) {
	const head = `[server]
listen = "127.0.0.1:8080"

[tls]
listen = "127.0.0.1:8443"
certificates_dir = "certs"
post_quantum = true

[[tls.certificate]]
cert = "a.crt"
key = "a.key"

[[rule]]
host = "b.example.com"
from = "/x"
to = "/y"

[[rule]]
host = "a.example.com"
from = "/x"
to = "/y"

[acme]
storage = "acme"
`
	for _, tc := range []struct {
		name  string
		acme  string
		names []string
		od    bool
		n     int
		per   time.Duration
		ask   string
		week  int
		queue int
		redis *redisstore.Config
	}{
		{"rules", ``, []string{"a.example.com", "b.example.com"}, false, 10, time.Hour, "", 40, 100, nil},
		{"list", "hosts = [\"c.example.com\"]\non_demand = true\non_demand_rate = \"3/1m\"\n", []string{"c.example.com"}, true, 3, time.Minute, "", 40, 100, nil},
		{"on demand only", "hosts = []\non_demand = true\nask = \"http://127.0.0.1:9000/allowed\"\non_demand_per_domain_week = 7\non_demand_queue = 9\n",
			[]string{}, true, 10, time.Hour, "http://127.0.0.1:9000/allowed", 7, 9, nil},
		{"redis", "[acme.redis]\naddress = \"r:6379\"\nusername = \"u\"\npassword = \"p\"\ndb = 1\ntls = { server_name = \"r.internal\" }\n",
			[]string{"a.example.com", "b.example.com"}, false, 10, time.Hour, "", 40, 100,
			&redisstore.Config{Addr: "r:6379", Username: "u", Password: "p", DB: 1, KeyPrefix: config.DefaultRedisKeyPrefix, TLS: true, ServerName: "r.internal"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "r.toml")
			if err := os.WriteFile(file, []byte(head+tc.acme), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg, err := config.Load(file)
			if err != nil {
				t.Fatal(err)
			}
			got := tlsSettings(cfg)
			want := &tlsconf.Settings{
				File:            file,
				HTTPListen:      "127.0.0.1:8080",
				TLSListen:       "127.0.0.1:8443",
				Certificates:    []tlsconf.Certificate{{Cert: filepath.Join(dir, "a.crt"), Key: filepath.Join(dir, "a.key"), File: file, Line: 9}},
				CertificatesDir: filepath.Join(dir, "certs"),
				PostQuantum:     true,
				ACME: &tlsconf.ACME{CA: config.DefaultACMECA, Storage: filepath.Join(dir, "acme"),
					Names: tc.names, OnDemand: tc.od, OnDemandN: tc.n, OnDemandPer: tc.per,
					Ask: tc.ask, PerDomainWeek: tc.week, Queue: tc.queue, Redis: tc.redis},
			}
			sortNames := cmp.Transformer("sort", func(in []string) []string {
				out := append([]string(nil), in...)
				slices.Sort(out)
				return out
			})
			if diff := cmp.Diff(want, got, sortNames); diff != "" {
				t.Errorf("tlsSettings (-want +got):\n%s", diff)
			}
			if c := certSettings(cfg); c.ACME != nil || !cmp.Equal(c.Certificates, want.Certificates) {
				t.Errorf("certSettings = %+v, want the certificates without [acme]", c)
			}
		})
	}
}

// TestTLSCertErrorText checks that a certificate that does not load is
// reported in the config's own error form, so that `redirectd check` and
// a refused reload print it as they print a config error.
func TestTLSCertErrorText(t *testing.T) {
	for _, tc := range []struct {
		cert tlsconf.CertError
		conf config.Error
	}{
		{tlsconf.CertError{File: "r.toml", Line: 12, Entry: 2, Msg: "cannot read the certificate: gone"},
			config.Error{File: "r.toml", Line: 12, What: "[[tls.certificate]] #2", Key: "cert", Msg: "cannot read the certificate: gone"}},
		{tlsconf.CertError{File: "/etc/certs/a.pem", Msg: "a key without a certificate"},
			config.Error{File: "/etc/certs/a.pem", Msg: "a key without a certificate"}},
	} {
		if got, want := tc.cert.Error(), tc.conf.Error(); got != want {
			t.Errorf("CertError = %q, want %q", got, want)
		}
	}
	dir := t.TempDir()
	missing := filepath.Join(dir, "none.crt")
	cfg := &config.Config{TLS: config.TLS{Certificates: []config.TLSCertificate{{Cert: missing, Key: missing, File: "r.toml", Line: 4}}}}
	err := tlsconf.CheckCertificates(certSettings(cfg))
	if err == nil || !strings.HasPrefix(err.Error(), "r.toml:4: [[tls.certificate]] #1: cert: cannot read the certificate: ") {
		t.Errorf("CheckCertificates = %v, want it to name r.toml:4 and the entry", err)
	}
}
