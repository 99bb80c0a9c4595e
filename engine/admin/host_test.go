package admin

import "testing"

func TestIsLoopbackHost(t *testing.T) {
	for _, h := range []string{
		"localhost", "LocalHost", "localhost:9180", "localhost:",
		"127.0.0.1", "127.0.0.1:9180", "127.1.2.3:80", "127.255.255.254",
		"[::1]", "[::1]:9180", "[0:0:0:0:0:0:0:1]:1", "[::ffff:127.0.0.1]:9180",
	} {
		if !isLoopbackHost(h) {
			t.Errorf("isLoopbackHost(%q) = false, want true", h)
		}
	}
	for _, h := range []string{
		"", "evil.example", "evil.example:9180", "localhost.evil.example", "localhost.",
		"127.0.0.1.evil.example", "127.0.0.1.nip.io:9180", "a.localhost",
		"127.0.0.1:80:80", "127.0.0.1:abc", "localhost:-1", "localhost:9180x",
		"::1", "[::1", "[::1]x", "[::1]:80x", "[::2]", "[::]", "[127.0.0.1]", "[localhost]",
		"[::1%25lo]:80", "10.0.0.1", "0.0.0.0", "128.0.0.1", "0x7f.0.0.1", "2130706433", "017700000001",
	} {
		if isLoopbackHost(h) {
			t.Errorf("isLoopbackHost(%q) = true, want false", h)
		}
	}
}
