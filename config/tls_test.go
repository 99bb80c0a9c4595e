package config_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/internal/testutil"
)

func TestTLSConfig(t *testing.T) {
	file := writeFiles(t, map[string]string{"redirectd.toml": `
[tls]
listen = "0.0.0.0:443"
certificates_dir = "certs"
hsts = "max-age=31536000; includeSubDomains"
post_quantum = true

[[tls.certificate]]
cert = "a.crt"
key = "/abs/a.key"

[[tls.certificate]]
cert = "b.crt"
key = "b.key"

[acme]
email = "ops@example.com"
ca = "https://ca.internal:14000/dir"
ca_root = "ca.pem"
storage = "acme"
hosts = ["A.example.com", "b.example.com"]
on_demand = true
on_demand_rate = "5/30m"
ask = "http://127.0.0.1:9000/allowed"
on_demand_per_domain_week = 20
on_demand_queue = 50
`})
	cfg, err := config.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(file)
	want := config.TLS{
		Listen:          "0.0.0.0:443",
		CertificatesDir: filepath.Join(dir, "certs"),
		HSTS:            "max-age=31536000; includeSubDomains",
		Certificates: []config.TLSCertificate{
			{Cert: filepath.Join(dir, "a.crt"), Key: "/abs/a.key", File: file, Line: 8},
			{Cert: filepath.Join(dir, "b.crt"), Key: filepath.Join(dir, "b.key"), File: file, Line: 12},
		},
		HandshakeTimeout:     config.Duration(10 * time.Second),
		PostQuantum:          true,
		MaxConcurrentStreams: config.DefaultMaxConcurrentStreams,
	}
	if diff := cmp.Diff(want, cfg.TLS); diff != "" {
		t.Errorf("[tls] (-want +got):\n%s", diff)
	}
	wantACME := &config.ACME{Email: "ops@example.com", CA: "https://ca.internal:14000/dir", CARoot: filepath.Join(dir, "ca.pem"),
		Storage:  filepath.Join(dir, "acme"),
		Hosts:    config.ACMEHosts{Names: []string{"a.example.com", "b.example.com"}},
		OnDemand: true, OnDemandRate: config.Rate{N: 5, Per: 30 * time.Minute},
		Ask: "http://127.0.0.1:9000/allowed", OnDemandPerDomainWeek: 20, OnDemandQueue: 50}
	if diff := cmp.Diff(wantACME, cfg.ACME); diff != "" {
		t.Errorf("[acme] (-want +got):\n%s", diff)
	}
}

func TestTLSDefaults(t *testing.T) {
	file := writeFiles(t, map[string]string{"redirectd.toml": `
[tls]
listen = ":443"
[acme]
storage = "/var/lib/redirectd/acme"
`})
	cfg, err := config.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	want := &config.ACME{CA: config.DefaultACMECA, Storage: "/var/lib/redirectd/acme",
		Hosts: config.ACMEHosts{FromRules: true}, OnDemandRate: config.Rate{N: 10, Per: time.Hour},
		OnDemandPerDomainWeek: 40, OnDemandQueue: 100}
	if diff := cmp.Diff(want, cfg.ACME); diff != "" {
		t.Errorf("[acme] (-want +got):\n%s", diff)
	}
	if cfg.TLS.HandshakeTimeout.Std() != 10*time.Second {
		t.Errorf("handshake_timeout = %s, want the default 10s", cfg.TLS.HandshakeTimeout.Std())
	}
	if cfg.TLS.PostQuantum {
		t.Error("post_quantum is on by default, want off")
	}
	if !cfg.TLS.HTTP2On() || cfg.TLS.MaxConcurrentStreams != 100 {
		t.Errorf("http2 = %v, max_concurrent_streams = %d; want the defaults true and 100", cfg.TLS.HTTP2On(), cfg.TLS.MaxConcurrentStreams)
	}
	file = writeFiles(t, map[string]string{"redirectd.toml": "[tls]\nlisten = \":443\"\ncertificates_dir = \"c\"\nhttp2 = false\nmax_concurrent_streams = 250\n"})
	if cfg, err = config.Load(file); err != nil {
		t.Fatal(err)
	}
	if cfg.TLS.HTTP2On() || cfg.TLS.MaxConcurrentStreams != 250 {
		t.Errorf("http2 = %v, max_concurrent_streams = %d; want false and 250 as set", cfg.TLS.HTTP2On(), cfg.TLS.MaxConcurrentStreams)
	}

	// No [tls] at all: off, and no [acme].
	file = writeFiles(t, map[string]string{"redirectd.toml": "[server]\nlisten = \":80\"\n"})
	if cfg, err = config.Load(file); err != nil {
		t.Fatal(err)
	}
	if cfg.TLS.On() || cfg.ACME != nil {
		t.Errorf("TLS on = %v, ACME = %+v; want both off without the tables", cfg.TLS.On(), cfg.ACME)
	}
}

// TestTLSConfigErrors checks that each mistake is refused with its file,
// line and key.
func TestTLSConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
	}{
		{"no certificate", "[tls]\nlisten = \":443\"\n", "redirectd.toml:2: [tls]: listen: no certificate to serve"},
		{"bad listen", "[tls]\nlisten = \"443\"\ncertificates_dir = \"c\"\n", "redirectd.toml:2: [tls]: listen: \"443\" is not host:port"},
		{"missing key", "[tls]\nlisten = \":443\"\n[[tls.certificate]]\ncert = \"a.crt\"\n", "redirectd.toml:3: [[tls.certificate]] #1: key: missing"},
		{"unknown key", "[tls]\nlisten = \":443\"\ncertificates_dir = \"c\"\ncert = \"x\"\n", "redirectd.toml:4: [tls]: cert: unknown key"},
		{"unknown certificate key", "[tls]\nlisten = \":443\"\n[[tls.certificate]]\ncert = \"a\"\nkey = \"b\"\nchain = \"c\"\n", "redirectd.toml:6: [tls.certificate]: chain: unknown key"},
		{"bad hsts", "[tls]\nlisten = \":443\"\ncertificates_dir = \"c\"\nhsts = \"31536000\"\n", "redirectd.toml:4: [tls]: hsts: \"31536000\" is not a Strict-Transport-Security value"},
		{"hsts newline", "[tls]\nlisten = \":443\"\ncertificates_dir = \"c\"\nhsts = \"max-age=1\\r\\nX: y\"\n", "[tls]: hsts:"},
		{"post_quantum not a boolean", "[tls]\nlisten = \":443\"\ncertificates_dir = \"c\"\npost_quantum = \"yes\"\n", "post_quantum"},
		{"bad timeout", "[tls]\nlisten = \":443\"\ncertificates_dir = \"c\"\nhandshake_timeout = 10\n", "handshake_timeout"},
		{"bad http2", "[tls]\nlisten = \":443\"\ncertificates_dir = \"c\"\nhttp2 = \"yes\"\n", "http2"},
		{"too many streams", "[tls]\nlisten = \":443\"\ncertificates_dir = \"c\"\nmax_concurrent_streams = 5000\n", "redirectd.toml:4: [tls]: max_concurrent_streams: 5000 is out of range"},
		{"negative streams", "[tls]\nlisten = \":443\"\ncertificates_dir = \"c\"\nmax_concurrent_streams = -1\n", "max_concurrent_streams: -1 is out of range"},
		{"acme without tls", "[acme]\nstorage = \"s\"\n", "redirectd.toml:1: [acme]: [acme] needs the HTTPS listener"},
		{"acme no storage", "[tls]\nlisten = \":443\"\n[acme]\nemail = \"a@b.c\"\n", "redirectd.toml:3: [acme]: storage: missing"},
		{"acme http ca", "[tls]\nlisten = \":443\"\n[acme]\nstorage = \"s\"\nca = \"http://ca/dir\"\n", "redirectd.toml:5: [acme]: ca: \"http://ca/dir\" is not an https URL"},
		{"acme bad email", "[tls]\nlisten = \":443\"\n[acme]\nstorage = \"s\"\nemail = \"nobody\"\n", "redirectd.toml:5: [acme]: email: \"nobody\" is not an email address"},
		{"acme wildcard host", "[tls]\nlisten = \":443\"\n[acme]\nstorage = \"s\"\nhosts = [\"*.example.com\"]\n", "redirectd.toml:5: [acme]: hosts: \"*.example.com\": a wildcard certificate needs the DNS-01 challenge"},
		{"acme bad host", "[tls]\nlisten = \":443\"\n[acme]\nstorage = \"s\"\nhosts = [\"a b\"]\n", "hosts: \"a b\" is not a host name"},
		{"acme hosts word", "[tls]\nlisten = \":443\"\n[acme]\nstorage = \"s\"\nhosts = \"all\"\n", "\"all\" is not a choice; write \"rules\""},
		{"acme bad rate", "[tls]\nlisten = \":443\"\n[acme]\nstorage = \"s\"\non_demand_rate = \"10 per hour\"\n", "\"10 per hour\" is not a rate"},
		{"acme ask not a url", "[tls]\nlisten = \":443\"\n[acme]\nstorage = \"s\"\non_demand = true\nask = \"127.0.0.1:9000/allowed\"\n", "redirectd.toml:6: [acme]: ask: \"127.0.0.1:9000/allowed\" is not an http or https URL"},
		{"acme ask without on_demand", "[tls]\nlisten = \":443\"\n[acme]\nstorage = \"s\"\nask = \"http://127.0.0.1:9000/allowed\"\n", "redirectd.toml:5: [acme]: ask: set without on_demand = true"},
		{"acme zero per week", "[tls]\nlisten = \":443\"\n[acme]\nstorage = \"s\"\non_demand = true\non_demand_per_domain_week = 0\n", "redirectd.toml:6: acme.on_demand_per_domain_week: 0 is out of range"},
		{"acme per week string", "[tls]\nlisten = \":443\"\n[acme]\nstorage = \"s\"\non_demand = true\non_demand_per_domain_week = \"40\"\n", "redirectd.toml:6: acme.on_demand_per_domain_week: must be a whole number, not a string"},
		{"acme queue too long", "[tls]\nlisten = \":443\"\n[acme]\nstorage = \"s\"\non_demand = true\non_demand_queue = 100000\n", "redirectd.toml:6: [acme]: on_demand_queue: 100000 is over 10000"},
		{"acme negative queue", "[tls]\nlisten = \":443\"\n[acme]\nstorage = \"s\"\non_demand = true\non_demand_queue = -1\n", "redirectd.toml:6: acme.on_demand_queue: -1 is out of range"},
		{"acme zero rate", "[tls]\nlisten = \":443\"\n[acme]\nstorage = \"s\"\non_demand_rate = \"0/1h\"\n", "\"0/1h\" is not a rate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := writeFiles(t, map[string]string{"redirectd.toml": tc.src})
			_, err := config.Load(file)
			if err == nil {
				t.Fatalf("loaded; want an error containing %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error:\n%v\nwant it to contain %q", err, tc.want)
			}
		})
	}
}

// FuzzRate checks that an accepted on_demand_rate is positive and reads
// back the same when written out again.
func FuzzRate(f *testing.F) {
	for _, s := range []string{"10/1h", "1/1s", " 5 / 30m ", "0/1h", "-1/1h", "10/-1h", "10", "/", "1/1h/2", "999999999999999999999/1h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var r config.Rate
		if err := r.UnmarshalTOML(s); err != nil {
			if !strings.Contains(err.Error(), "is not a rate") {
				t.Fatalf("%q: error %q does not say what is wrong", s, err)
			}
			return
		}
		if r.N <= 0 || r.Per <= 0 {
			t.Fatalf("%q accepted as %+v", s, r)
		}
		var again config.Rate
		if err := again.UnmarshalTOML(strconv.Itoa(r.N) + "/" + r.Per.String()); err != nil || again != r {
			t.Fatalf("%q = %+v does not read back: %+v, %v", s, r, again, err)
		}
	})
}

// TestACMEOnDemandExample loads the on-demand example of config/README.md.
func TestACMEOnDemandExample(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	block := testutil.FencedBlock(t, string(readme), "## `[acme]`\n", "toml")
	cfg, err := config.Load(writeFiles(t, map[string]string{"redirectd.toml": block}))
	if err != nil {
		t.Fatalf("the README's on-demand example: %v", err)
	}
	want := &config.ACME{Email: "ops@example.com", CA: config.DefaultACMECA, Storage: "/var/lib/redirectd/acme",
		Hosts: config.ACMEHosts{Names: []string{}}, OnDemand: true, Ask: "http://127.0.0.1:9000/allowed",
		OnDemandRate: config.Rate{N: 10, Per: time.Hour}, OnDemandPerDomainWeek: 40, OnDemandQueue: 100}
	if diff := cmp.Diff(want, cfg.ACME); diff != "" {
		t.Errorf("[acme] (-want +got):\n%s", diff)
	}
}
