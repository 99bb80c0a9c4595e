package config

import (
	"net"
	"strconv"
	"strings"
	"testing"
)

// FuzzParseTarget: an accepted server has a dialable host:port with a
// port from 1 to 65535, is TLS only when written https://, and parsing
// its address again (as host:port) gives the same address.
func FuzzParseTarget(f *testing.F) {
	for _, s := range []string{"127.0.0.1:8081", "https://blog.example.net", "http://10.0.0.5", "https://[::1]:8443",
		"https://a:0", "ftp://x", "https://a/b", "[::1]", "a:65536", "http://:80", "https://a@b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 300 {
			return
		}
		tg, msg := parseTarget(s)
		if msg != "" {
			return
		}
		host, port, err := net.SplitHostPort(tg.Addr)
		if err != nil || host != tg.Host || host == "" {
			t.Fatalf("%q: address %q does not split into its host %q: %v", s, tg.Addr, tg.Host, err)
		}
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			t.Fatalf("%q: port %q", s, port)
		}
		if tg.TLS != strings.HasPrefix(s, "https://") {
			t.Fatalf("%q: TLS = %v", s, tg.TLS)
		}
		if again, msg := parseTarget(tg.Addr); msg != "" || again.Addr != tg.Addr || again.TLS {
			t.Fatalf("%q: its address %q parses as %+v %q", s, tg.Addr, again, msg)
		}
	})
}
