package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/config"
)

// TestACMERedis loads each form of [acme.redis]: the defaults, a
// password file read at each load, tls = true and the tls table.
func TestACMERedis(t *testing.T) {
	head := "[tls]\nlisten = \":443\"\n[acme]\nstorage = \"acme\"\n"
	for _, tc := range []struct {
		name, src string
		files     map[string]string
		want      func(dir string) *config.ACMERedis
	}{
		{"defaults", "[acme.redis]\naddress = \"127.0.0.1:6379\"\n", nil, func(string) *config.ACMERedis {
			return &config.ACMERedis{Address: "127.0.0.1:6379", KeyPrefix: config.DefaultRedisKeyPrefix}
		}},
		{"every key", `[acme.redis]
address = "redis.internal:6380"
username = "fleet"
password_file = "redis.pass"
db = 2
key_prefix = "{edge}/acme/"
tls = { ca_file = "ca.pem", server_name = "redis.internal", cert_file = "c.crt", key_file = "c.key" }
`, map[string]string{"redis.pass": "s3cret\n", "ca.pem": "x", "c.crt": "x", "c.key": "x"}, func(dir string) *config.ACMERedis {
			return &config.ACMERedis{Address: "redis.internal:6380", Username: "fleet", Password: "s3cret",
				PasswordFile: filepath.Join(dir, "redis.pass"), DB: 2, KeyPrefix: "{edge}/acme/",
				TLS: config.RedisTLS{On: true, CAFile: filepath.Join(dir, "ca.pem"), ServerName: "redis.internal",
					CertFile: filepath.Join(dir, "c.crt"), KeyFile: filepath.Join(dir, "c.key")}}
		}},
		{"tls true", "[acme.redis]\naddress = \"r:6379\"\npassword = \"p\"\ntls = true\n", nil, func(string) *config.ACMERedis {
			return &config.ACMERedis{Address: "r:6379", Password: "p", KeyPrefix: config.DefaultRedisKeyPrefix, TLS: config.RedisTLS{On: true}}
		}},
		{"tls table", "[acme.redis]\naddress = \"r:6379\"\n[acme.redis.tls]\nserver_name = \"r.internal\"\n", nil, func(string) *config.ACMERedis {
			return &config.ACMERedis{Address: "r:6379", KeyPrefix: config.DefaultRedisKeyPrefix, TLS: config.RedisTLS{On: true, ServerName: "r.internal"}}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := map[string]string{"redirectd.toml": head + tc.src}
			for k, v := range tc.files {
				fs[k] = v
			}
			file := writeFiles(t, fs)
			cfg, err := config.Load(file)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want(filepath.Dir(file)), cfg.ACME.Redis); d != "" {
				t.Errorf("[acme.redis] (-want +got):\n%s", d)
			}
		})
	}
}

// TestACMERedisPasswordFileReread checks that password_file is read at
// each load, so that a reload picks up a rotated password.
func TestACMERedisPasswordFileReread(t *testing.T) {
	file := writeFiles(t, map[string]string{"redirectd.toml": "[tls]\nlisten = \":443\"\n[acme]\nstorage = \"acme\"\n[acme.redis]\naddress = \"r:1\"\npassword_file = \"p\"\n", "p": "one"})
	for _, want := range []string{"one", "two"} {
		if err := os.WriteFile(filepath.Join(filepath.Dir(file), "p"), []byte(want+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, err := config.Load(file)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.ACME.Redis.Password != want {
			t.Errorf("password = %q, want %q", cfg.ACME.Redis.Password, want)
		}
	}
}

// TestACMERedisErrors checks that each mistake in [acme.redis] is refused
// naming the file, line and key.
func TestACMERedisErrors(t *testing.T) {
	head := "[tls]\nlisten = \":443\"\n[acme]\nstorage = \"s\"\n[acme.redis]\n" // [acme.redis] on line 5
	for _, tc := range []struct {
		name, src, want string
	}{
		{"no address", "db = 1\n", "redirectd.toml:5: [acme.redis]: address: missing"},
		{"bad address", "address = \"redis\"\n", "redirectd.toml:6: [acme.redis]: address: \"redis\" is not host:port"},
		{"negative db", "address = \"r:1\"\ndb = -1\n", "redirectd.toml:7: [acme.redis]: db: -1 is not a database number"},
		{"both passwords", "address = \"r:1\"\npassword = \"a\"\npassword_file = \"p\"\n", "redirectd.toml:8: [acme.redis]: password_file: set password or password_file, not both"},
		{"missing password file", "address = \"r:1\"\npassword_file = \"nope\"\n", "redirectd.toml:7: [acme.redis]: password_file: cannot read"},
		{"unknown key", "address = \"r:1\"\nhost = \"r\"\n", "redirectd.toml:7: [acme.redis]: host: unknown key"},
		{"tls word", "address = \"r:1\"\ntls = \"yes\"\n", "tls"},
		{"unknown tls key", "address = \"r:1\"\n[acme.redis.tls]\nca = \"x\"\n", "redirectd.toml:8: [acme.redis.tls]: ca: unknown key"},
		{"missing ca file", "address = \"r:1\"\n[acme.redis.tls]\nca_file = \"nope.pem\"\n", "redirectd.toml:8: [acme.redis] tls: ca_file: cannot read"},
		{"cert without key", "address = \"r:1\"\ntls = { cert_file = \"c\" }\n", "[acme.redis] tls: cert_file: give both cert_file and key_file"},
		{"prefix with newline", "address = \"r:1\"\nkey_prefix = \"a\\nb\"\n", "redirectd.toml:7: [acme.redis]: key_prefix: \"a\\nb\" holds control characters"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := writeFiles(t, map[string]string{"redirectd.toml": head + tc.src})
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
