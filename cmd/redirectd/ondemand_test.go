package main

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/engine/testport"
	"github.com/redirectd/redirectd/internal/testutil"
	"github.com/redirectd/redirectd/internal/testutil/acmetest"
)

// TestServeOnDemand runs the binary with [acme] hosts = [] and
// on_demand = true against an in-process Pebble that validates on the
// binary's own ports: a host the rules name gets its certificate at its
// first handshake (ordered once) and answers over it; a name outside the
// rules is refused with unrecognized_name and never ordered; a host a
// SIGHUP adds gets one, and a host a SIGHUP removes is refused. After a
// restart the certificates in storage serve without an order and without
// spending on_demand_rate.
func TestServeOnDemand(t *testing.T) {
	t.Parallel()
	addr, tlsAddr, adminAddr := testport.Free(t), testport.Free(t), testport.Free(t)
	port := func(a string) int {
		_, p, _ := net.SplitHostPort(a)
		n, _ := strconv.Atoi(p)
		return n
	}
	pb := acmetest.Start(t, acmetest.Options{HTTPPort: port(addr), TLSPort: port(tlsAddr), Validity: acmetest.NoRenewal})
	dir := t.TempDir()
	file := filepath.Join(dir, "r.toml")
	write := func(hosts ...string) {
		conf := fmt.Sprintf(`[server]
listen = %q

[admin]
listen = %q

[tls]
listen = %q

[acme]
storage = "acme"
ca = %q
ca_root = %q
hosts = []
on_demand = true
`, addr, adminAddr, tlsAddr, pb.DirURL, pb.CARootFile)
		for _, h := range hosts {
			conf += fmt.Sprintf("\n[[rule]]\nhost = %q\nfrom = \"/old\"\nto = \"/new\"\n", h)
		}
		if err := os.WriteFile(file, []byte(conf), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("exact.example.com", "*.wild.example.com")
	nd := startNode(t, nodeConfig{File: file})
	cmd, stderr := nd.cmd, nd.stderr
	metrics := func() string {
		_, m := httpGet(t, "http://"+adminAddr+"/metrics", "")
		return m
	}
	reload := func(hosts ...string) {
		t.Helper()
		before, _ := testutil.Metric(metrics(), `redirectd_config_reloads_total{result="ok"}`)
		write(hosts...)
		cmd.Process.Signal(syscall.SIGHUP)
		if !testutil.Eventually(testutil.Patience, func() bool {
			v, _ := testutil.Metric(metrics(), `redirectd_config_reloads_total{result="ok"}`)
			return v > before
		}) {
			t.Fatalf("no reload after SIGHUP\n%s", stderr.String())
		}
	}
	// get handshakes as name (verified against Pebble's root) and asks
	// GET /old over the connection.
	get := func(name string) (string, error) {
		c, err := tls.DialWithDialer(&net.Dialer{Timeout: testutil.Patience}, "tcp", tlsAddr, &tls.Config{ServerName: name, RootCAs: pb.Roots})
		if err != nil {
			return "", err
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(testutil.Patience))
		fmt.Fprintf(c, "GET /old HTTP/1.1\r\nHost: %s\r\n\r\n", name)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			return "", err
		}
		resp.Body.Close()
		return resp.Header.Get("Location"), nil
	}
	wantServed := func(name string) {
		t.Helper()
		if loc, err := get(name); err != nil || loc != "/new" {
			t.Errorf("%s over TLS: Location %q, err %v; want /new over an on-demand certificate\n%s", name, loc, err, stderr.String())
		}
	}
	wantRefused := func(name string) {
		t.Helper()
		start := time.Now()
		_, err := get(name)
		if err == nil || !strings.Contains(err.Error(), "unrecognized name") {
			t.Errorf("%s: err = %v, want the alert unrecognized_name", name, err)
		}
		// A handshake that waited for an order would be held to the
		// handshake timeout: half of it tells "at once" from that with a
		// margin a loaded machine never needs.
		if took := time.Since(start); took > config.DefaultHandshakeTimeout/2 {
			t.Errorf("%s: refused after %s, want at once", name, took)
		}
		if n := pb.Orders(name); n != 0 {
			t.Errorf("%s: Pebble saw %d orders, want none", name, n)
		}
	}

	wantServed("exact.example.com")
	wantServed("exact.example.com")
	wantServed("a.wild.example.com")
	wantRefused("other.example.com")
	wantRefused("wild.example.com")
	reload("exact.example.com", "*.wild.example.com", "added.example.com")
	wantServed("added.example.com")
	reload("added.example.com", "*.wild.example.com")
	if _, err := get("exact.example.com"); err == nil || !strings.Contains(err.Error(), "unrecognized name") {
		t.Errorf("exact.example.com, removed by a reload: err = %v, want unrecognized_name", err)
	}
	for _, name := range []string{"exact.example.com", "a.wild.example.com", "added.example.com"} {
		if n := pb.Orders(name); n != 1 {
			t.Errorf("%s: %d orders, want exactly 1", name, n)
		}
	}
	// A refused handshake is counted after the alert that tells the
	// client: the last one may still be on its way.
	var m string
	testutil.Eventually(testutil.Patience, func() bool {
		m = metrics()
		v, _ := testutil.Metric(m, `redirectd_tls_handshake_failures_total{reason="unknown_sni"}`)
		return v >= 3
	})
	for name, want := range map[string]float64{
		`redirectd_tls_on_demand_total{result="issued"}`:                                   3,
		`redirectd_tls_on_demand_total{result="refused"}`:                                  3,
		`redirectd_tls_handshake_failures_total{reason="unknown_sni"}`:                     3,
		`redirectd_acme_obtain_total{result="ok"}`:                                         3,
		`redirectd_tls_on_demand_total{result="rate_limited"}`:                             0,
		`redirectd_tls_certificate_expiry_seconds{name="exact.example.com",source="acme"}`: -1, // gone: not renewed
	} {
		v, ok := testutil.Metric(m, name)
		switch {
		case want == -1 && ok:
			t.Errorf("%s = %v, want it gone", name, v)
		case want >= 0 && v != want:
			t.Errorf("%s = %v, want %v", name, v, want)
		}
	}
	if !strings.Contains(m, "# HELP redirectd_tls_on_demand_total") {
		t.Error("/metrics has no HELP for redirectd_tls_on_demand_total")
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Errorf("exit: %v\n%s", err, stderr.String())
	}

	// Restarted, with on_demand_rate 2/1h: the certificates in storage
	// are served without an order and without spending the rate (names
	// only a wildcard covers may take half of it, one).
	write("added.example.com", "*.wild.example.com")
	conf, _ := os.ReadFile(file)
	os.WriteFile(file, []byte(strings.Replace(string(conf), "on_demand = true\n", "on_demand = true\non_demand_rate = \"2/1h\"\n", 1)), 0o644)
	nd = startNode(t, nodeConfig{File: file})
	cmd, stderr = nd.cmd, nd.stderr
	wantServed("added.example.com")
	wantServed("a.wild.example.com")
	wantServed("b.wild.example.com") // the one new wildcard name the rate allows
	for name, want := range map[string]int{"added.example.com": 1, "a.wild.example.com": 1, "b.wild.example.com": 1} {
		if n := pb.Orders(name); n != want {
			t.Errorf("after the restart, %s: %d orders, want %d", name, n, want)
		}
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Errorf("exit after the restart: %v\n%s", err, stderr.String())
	}
}
