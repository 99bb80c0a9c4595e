package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/internal/testutil"
)

// The generated certificate is ECDSA P-256 for the names the checks and
// wrk ask for, its three files load as servers load them, and a real
// handshake with it passes the harness's check while one with another
// certificate fails it.
func TestWriteTLSFiles(t *testing.T) {
	f, err := writeTLSFiles(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	pair, err := tls.LoadX509KeyPair(f.Cert, f.Key)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tls.LoadX509KeyPair(f.Combined, f.Combined); err != nil {
		t.Errorf("HAProxy's combined file: %v", err)
	}
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	pub, ok := leaf.PublicKey.(*ecdsa.PublicKey)
	if !ok || pub.Curve != elliptic.P256() {
		t.Errorf("public key %T, want ECDSA P-256", leaf.PublicKey)
	}
	if !cmp.Equal(leaf.DNSNames, []string{tlsServerName}) || len(leaf.IPAddresses) != 1 || !leaf.IPAddresses[0].Equal(net.IPv4(127, 0, 0, 1)) {
		t.Errorf("names %v %v", leaf.DNSNames, leaf.IPAddresses)
	}

	other, err := writeTLSFiles(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{pair}})
	if err != nil {
		t.Fatal(err)
	}
	testutil.ServeOn(t, ln, func(c net.Conn) {
		defer c.Close()
		c.SetDeadline(time.Now().Add(testutil.Patience))
		buf := make([]byte, 4096)
		if n, _ := c.Read(buf); n > 0 {
			c.Write([]byte("HTTP/1.1 301 Moved Permanently\r\nLocation: https://example.com/new/9\r\nContent-Length: 0\r\n\r\n"))
		}
	})
	req := Req{Path: "/exact/9", Raw: simpleRequest("/exact/9", false), Want: Want{Status: 301, Location: "https://example.com/new/9"}}
	if err := waitTLS(ln.Addr().String(), f, req, 5*time.Second); err != nil {
		t.Errorf("the server with the run's certificate: %v", err)
	}
	if err := waitTLS(ln.Addr().String(), other, req, 300*time.Millisecond); err == nil {
		t.Error("a server with another certificate passed the check")
	}
}

// SCENARIOS=tls chooses the three HTTPS scenarios, which run on the TLS
// instance only; TLS_IDLE_CONNS sets tls-idle's connections.
func TestTLSSettings(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	s, err := settingsFromEnv(env(map[string]string{"SCENARIOS": "tls", "TLS_IDLE_CONNS": "500"}))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, sc := range selectedScenarios(s) {
		names = append(names, sc.Name)
		if !sc.TLS || sc.onMain() || sc.forwards() {
			t.Errorf("%s: %+v", sc.Name, sc)
		}
	}
	if !cmp.Equal(names, []string{"tls-exact", "tls-churn", "tls-full", "tls-idle"}) || s.TLSIdle != 500 || selectionTag(s.Selected) != "tls" {
		t.Errorf("SCENARIOS=tls: %v, %d connections, tag %q", names, s.TLSIdle, selectionTag(s.Selected))
	}
	if s, _ := settingsFromEnv(env(nil)); s.TLSIdle != 2000 || !s.selected("tls-churn") {
		t.Errorf("defaults: %d idle connections, tls-churn selected %v", s.TLSIdle, s.selected("tls-churn"))
	}
	if _, err := settingsFromEnv(env(map[string]string{"TLS_IDLE_CONNS": "3"})); err == nil || !strings.Contains(err.Error(), "TLS_IDLE_CONNS") {
		t.Errorf("TLS_IDLE_CONNS=3: %v", err)
	}
}

// The HTTPS targets, each met and missed, and the idle memory table.
func TestTLSVerdicts(t *testing.T) {
	sc := func(name string, rps, cpu float64) *ScenarioResult {
		return &ScenarioResult{Name: name, RPS: rps, CPUPerReqUS: cpu, P99US: 100}
	}
	idle := func(kib float64) *IdleResult {
		return &IdleResult{Conns: 2000, Before: Mem{PSS: 20}, After: Mem{PSS: 20 + kib*2000/1024}, PSSPerConnKiB: kib, RSSPerConnKiB: kib}
	}
	tests := []struct {
		name            string
		own, ngx, hap   []*ScenarioResult
		want            []string // target: verdict
		ownIdle, hpIdle *IdleResult
		lines           []string
	}{
		{"all met",
			[]*ScenarioResult{sc("tls-exact", 100000, 8), sc("tls-churn", 7000, 100)},
			[]*ScenarioResult{sc("tls-exact", 90000, 9), sc("tls-churn", 3000, 250)},
			[]*ScenarioResult{sc("tls-exact", 80000, 10), sc("tls-churn", 1500, 300)},
			[]string{"tls-exact req/s >= best peer: met", "tls-exact CPU per request <= best peer: met", "tls-churn handshakes/s >= 2x nginx: met"},
			idle(30), idle(12),
			[]string{"| tls-exact req/s >= best peer | 100000 | 90000 (nginx) | 1.11 | met |", "| PSS per idle TLS connection (KiB) | 30.0 | - | 12.0 | 2.50 |"}},
		{"missed against the best peer, which is HAProxy for CPU",
			[]*ScenarioResult{sc("tls-exact", 85000, 9.5), sc("tls-churn", 4000, 220)},
			[]*ScenarioResult{sc("tls-exact", 90000, 9.8), sc("tls-churn", 3000, 250)},
			[]*ScenarioResult{sc("tls-exact", 80000, 9), sc("tls-churn", 1500, 300)},
			[]string{"tls-exact req/s >= best peer: **missed**", "tls-exact CPU per request <= best peer: **missed**", "tls-churn handshakes/s >= 2x nginx: **missed**"},
			nil, nil,
			[]string{"| tls-exact CPU per request <= best peer | 9.5 us | 9.0 us (haproxy) | 1.06 | **missed** |", "| tls-churn handshakes/s >= 2x nginx | 4000 | 3000 (nginx) | 1.33 | **missed** |"}},
		{"no churn figure for nginx: that target is left out",
			[]*ScenarioResult{sc("tls-exact", 85000, 9.5), sc("tls-churn", 4000, 220)},
			[]*ScenarioResult{sc("tls-exact", 90000, 9.8), {Name: "tls-churn", Failed: "wrong answer"}},
			nil,
			[]string{"tls-exact req/s >= best peer: **missed**", "tls-exact CPU per request <= best peer: met"},
			nil, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := &Results{Date: "2026-12-01", Commit: "abc", Versions: map[string]string{"wrk": "4.1"}, Servers: []*ServerResult{
				{Name: "redirectd", Scenarios: tt.own, TLSIdle: tt.ownIdle},
				{Name: "nginx", Scenarios: tt.ngx},
				{Name: "haproxy", Scenarios: tt.hap, TLSIdle: tt.hpIdle},
			}}
			var got []string
			for _, v := range tlsVerdicts(res) {
				got = append(got, v.Target+": "+v.Verdict)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("verdicts (-want +got):\n%s", diff)
			}
			out := renderTable(res)
			for _, l := range tt.lines {
				if !strings.Contains(out, l) {
					t.Errorf("table lacks %q:\n%s", l, out)
				}
			}
			if !strings.Contains(out, "| tls-exact |") || strings.Contains(out, "| tls-idle |") != (tt.ownIdle != nil) {
				t.Errorf("table rows:\n%s", out)
			}
		})
	}
}

// Every server started with the run's certificate answers the HTTPS
// scenarios right (the h2-* ones over HTTP/2), and keeps idle TLS and
// HTTP/2 connections open for tls-idle and h2-idle.
func TestServersAnswerOverTLS(t *testing.T) {
	h, bin := testHarness(t)
	f, err := writeTLSFiles(h.work)
	if err != nil {
		t.Fatal(err)
	}
	h.tlsFiles = f
	other, err := writeTLSFiles(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, srv := range allServers(bin) {
		t.Run(srv.Name(), func(t *testing.T) {
			if srv.Package() != "" {
				if _, err := exec.LookPath(srv.Program()); err != nil {
					testutil.Missing(t, fmt.Sprintf("%s is not installed (apt-get install %s)", srv.Program(), srv.Package()))
				}
			}
			p, _, _, err := h.launch(srv, Instance{Spec: h.s.Spec, TLS: f}, "test-tls")
			if err != nil {
				t.Fatal(err)
			}
			defer p.Stop()
			if err := waitTLS(p.TLSAddr, f, exactReq(h.s.Spec, false), 20*time.Second); err != nil {
				t.Fatal(err)
			}
			for _, sc := range TLSScenarios(h.s.Spec) {
				verify := verifyTLS
				if sc.H2 {
					verify = verifyH2 // over HTTP/2: ALPN h2 must be on
				}
				if err := verify(p.TLSAddr, sc, f); err != nil {
					t.Errorf("%s: %v", sc.Name, err)
				}
				if err := verify(p.TLSAddr, sc, other); err == nil {
					t.Errorf("%s: the check passed with a certificate the server does not have", sc.Name)
				}
			}
			if r := h.idleTLS(p, p.TLSAddr, 50); r.Failed != "" || r.After.PSS <= 0 || r.Before.PSS <= 0 {
				t.Errorf("tls-idle: %+v", r)
			}
			if r := h.idleH2(p, p.TLSAddr, 50); r.Failed != "" || r.After.PSS <= 0 || r.Before.PSS <= 0 {
				t.Errorf("h2-idle: %+v", r)
			}
		})
	}
}
