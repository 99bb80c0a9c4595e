package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redirectd/redirectd/internal/testutil"
)

// netnsEnv, set to the binary's path, tells the test binary that it runs
// in a network namespace of its own (see TestPerIPLimitIPv6Prefix).
const netnsEnv = "REDIRECTD_TEST_NETNS_BIN"

// TestPerIPLimitIPv6Prefix checks that max_connections_per_ip counts an
// IPv6 client by its /64 (or the prefix ipv6_prefix sets), so a client
// cannot pass the limit by rotating through its addresses. The clients need several IPv6 addresses on the loopback interface,
// so the test runs itself again in a network namespace of its own
// (`unshare -rn`, or `-n` as root), where it may add them without touching
// the machine's; it skips, saying why, where that is not allowed.
func TestPerIPLimitIPv6Prefix(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	if bin := os.Getenv(netnsEnv); bin != "" {
		perIPLimitIPv6(t, bin)
		return
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("no unshare command")
	}
	bin := buildBinary(t)
	var out []byte
	for _, flags := range []string{"-rn", "-n"} {
		cmd := exec.Command(unshare, flags, os.Args[0], "-test.run=^TestPerIPLimitIPv6Prefix$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), netnsEnv+"="+bin)
		out, err = cmd.CombinedOutput()
		if strings.Contains(string(out), "=== RUN") {
			break
		}
	}
	switch {
	case !strings.Contains(string(out), "=== RUN"):
		t.Skipf("cannot run in a network namespace of its own: %v\n%s", err, out)
	case strings.Contains(string(out), "--- SKIP"):
		t.Skipf("skipped in the network namespace:\n%s", out)
	case err != nil:
		t.Fatalf("in the network namespace: %v\n%s", err, out)
	}
	t.Logf("in the network namespace:\n%s", out)
}

// perIPLimitIPv6 is TestPerIPLimitIPv6Prefix's body, run in a network
// namespace of its own.
func perIPLimitIPv6(t *testing.T, bin string) {
	ip := func(args ...string) {
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Skipf("ip %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	ip("link", "set", "lo", "up")
	for _, a := range []string{"2001:db8:1:1::1", "2001:db8:1:1::2", "2001:db8:1:1::3", "2001:db8:1:2::1", "2001:db8:2::1"} {
		ip("-6", "addr", "add", a+"/64", "dev", "lo", "nodad")
	}
	free := func() string {
		ln, err := net.Listen("tcp", "[::1]:0")
		if err != nil {
			t.Skipf("no IPv6 loopback: %v", err)
		}
		defer ln.Close()
		return ln.Addr().String()
	}
	tests := []struct {
		name   string
		prefix string   // the ipv6_prefix line, if any
		from   []string // client addresses, connected in this order and kept open
		want   []bool   // whether each is served
	}{
		{"default /64", "",
			[]string{"2001:db8:1:1::1", "2001:db8:1:1::2", "2001:db8:1:1::3", "2001:db8:1:2::1"},
			[]bool{true, true, false, true}},
		{"/48", "ipv6_prefix = 48\n",
			[]string{"2001:db8:1:1::1", "2001:db8:1:2::1", "2001:db8:1:1::3", "2001:db8:2::1"},
			[]bool{true, true, false, true}},
		{"/128", "ipv6_prefix = 128\n",
			[]string{"2001:db8:1:1::1", "2001:db8:1:1::1", "2001:db8:1:1::1", "2001:db8:1:1::2"},
			[]bool{true, true, false, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			addr, adminAddr := free(), free()
			file := filepath.Join(t.TempDir(), "r.toml")
			os.WriteFile(file, []byte(fmt.Sprintf("[server]\nlisten = %q\nmax_connections_per_ip = 2\n%s\n[admin]\nlisten = %q\n\n"+
				"[access_log]\nenabled = false\n\n[[rule]]\nfrom = \"/hit\"\nto = \"/there\"\n", addr, tt.prefix, adminAddr)), 0o644)
			nd := startNode(t, nodeConfig{File: file, Bin: bin})
			stderr := nd.stderr
			if status, _, err := firstAnswer(addr, "/hit", time.Now().Add(10*time.Second)); err != nil || status != 301 {
				t.Fatalf("first answer: %d %v\n%s", status, err, stderr.String())
			}
			rejected := 0
			for i, from := range tt.from {
				d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 2 * time.Second}
				c, err := d.Dial("tcp", addr)
				if err != nil {
					t.Fatalf("dial from %s: %v", from, err)
				}
				defer c.Close()
				c.SetDeadline(time.Now().Add(testutil.Patience))
				io.WriteString(c, "GET /hit HTTP/1.1\r\nHost: localhost\r\n\r\n")
				resp, err := http.ReadResponse(bufio.NewReader(c), nil)
				served := err == nil && resp.StatusCode == 301
				if served != tt.want[i] {
					t.Errorf("connection %d from %s: served %v (%v), want %v", i+1, from, served, err, tt.want[i])
				}
				if !tt.want[i] {
					rejected++
				}
			}
			resp, err := http.Get("http://" + adminAddr + "/metrics")
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if want := fmt.Sprintf(`redirectd_connections_rejected_total{reason="per_ip_limit"} %d`, rejected); !strings.Contains(string(body), want) {
				t.Errorf("/metrics lacks %s", want)
			}
		})
	}
}
