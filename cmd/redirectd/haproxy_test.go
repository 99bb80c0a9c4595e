package main

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redirectd/redirectd/engine/testport"
	"github.com/redirectd/redirectd/internal/testutil"
)

// fleetExample is the HAProxy backend that the fleet docs give.
const fleetExample = "../../deploy/fleet/haproxy.cfg"

// haproxyNode is where one node of the fleet example is reached: its
// traffic address and its admin port, which the health check asks.
type haproxyNode struct{ traffic, adminPort string }

// fleetBackend returns the example's backend with the example's node
// addresses replaced by nodes' and its check interval shortened, so that
// the tests run the backend as the docs write it. A line of the example
// that no longer holds what is replaced fails the test, rather than
// testing a backend the docs do not give.
func fleetBackend(t *testing.T, nodes []haproxyNode) string {
	t.Helper()
	b, err := os.ReadFile(fleetExample)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	if !strings.Contains(text, "\n    option httpchk GET /readyz\n") {
		t.Fatalf("%s: the health check must be option httpchk GET /readyz, so that a draining node goes down", fleetExample)
	}
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		for i, n := range nodes {
			if !strings.HasPrefix(strings.TrimSpace(line), fmt.Sprintf("server n%d ", i+1)) {
				continue
			}
			for _, r := range [][2]string{{fmt.Sprintf("10.0.1.%d:8080", 11+i), n.traffic}, {"port 9180", "port " + n.adminPort}, {"inter 2s fall 2 rise 2", "inter 200ms fall 2 rise 1"}} {
				if strings.Count(line, r[0]) != 1 {
					t.Fatalf("%s: %q lacks %q: update fleetBackend to the example", fleetExample, line, r[0])
				}
				line = strings.Replace(line, r[0], r[1], 1)
			}
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

func findHAProxy(t *testing.T) string {
	for _, name := range []string{"haproxy", "/usr/sbin/haproxy"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	testutil.Missing(t, "haproxy is not installed (apt-get install haproxy); the fleet example's health check is not run")
	return ""
}

// TestFleetExampleHealthCheck runs the fleet example's backend in front of
// two nodes on loopback: one serving, one whose traffic port is open but
// which is not ready (its [rules] source is down and it has no cache, so
// /readyz answers 503). HAProxy must mark the first up and the second
// down: a TCP connect check would mark both up. Then the first drains
// (SIGTERM while a client's request is unfinished): HAProxy must mark it
// down while it still runs.
func TestFleetExampleHealthCheck(t *testing.T) {
	t.Parallel()
	hap := findHAProxy(t)
	dir := t.TempDir()
	down, err := net.Listen("tcp", "127.0.0.1:0") // a source that refuses
	if err != nil {
		t.Fatal(err)
	}
	downAddr := down.Addr().String()
	down.Close()
	var nodes []haproxyNode
	var logs []*testutil.LockedBuffer
	var cmds []*exec.Cmd
	exited := make([]chan struct{}, 2)
	for i, rules := range []string{
		"[[rule]]\nfrom = \"/a\"\nto = \"/b\"\n",
		fmt.Sprintf("[rules]\nsource = \"http://%s/site.tar.gz\"\npoll = \"1s\"\ncache_dir = %q\n", downAddr, t.TempDir()),
	} {
		traffic, admin := testport.Free(t), testport.Free(t)
		_, adminPort, _ := net.SplitHostPort(admin)
		file := filepath.Join(dir, fmt.Sprintf("n%d.toml", i+1))
		cfg := fmt.Sprintf("[server]\nlisten = %q\nproxy_protocol = true\ntrusted_proxies = [\"127.0.0.1\"]\nshutdown_timeout = \"10s\"\nheader_timeout = \"10s\"\n\n[admin]\nlisten = %q\n\n%s", traffic, admin, rules)
		if err := os.WriteFile(file, []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
		nd := startNode(t, nodeConfig{File: file})
		cmd, stderr := nd.cmd, nd.stderr
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		t.Cleanup(func() { cmd.Process.Kill(); <-done })
		nodes, logs, cmds, exited[i] = append(nodes, haproxyNode{traffic, adminPort}), append(logs, stderr), append(cmds, cmd), done
	}
	sock := filepath.Join(dir, "haproxy.sock")
	front := testport.Free(t)
	hcfg := fmt.Sprintf("global\n\tstats socket %s mode 600 level admin\ndefaults\n\tmode tcp\n\ttimeout connect 2s\n\ttimeout client 10s\n\ttimeout server 10s\nfrontend fe\n\tbind %s\n\tdefault_backend redirectd\n%s\n",
		sock, front, fleetBackend(t, nodes))
	hfile := filepath.Join(dir, "haproxy.cfg")
	os.WriteFile(hfile, []byte(hcfg), 0o644)
	hcmd := exec.Command(hap, "-db", "-f", hfile)
	var hlog bytes.Buffer
	hcmd.Stdout, hcmd.Stderr = &hlog, &hlog
	if err := hcmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { hcmd.Process.Kill(); hcmd.Wait() })

	// show servers state: srv_op_state (the 6th field) is 2 when the
	// server is up, 0 when down.
	waitStates := func(n1, n2 string) {
		t.Helper()
		var got map[string]string
		var err error
		if !testutil.Eventually(testutil.Patience, func() bool {
			var out string
			out, err = haproxy(sock, "show servers state redirectd")
			got = map[string]string{}
			for _, l := range strings.Split(out, "\n") {
				if f := strings.Fields(l); len(f) > 5 && (f[3] == "n1" || f[3] == "n2") {
					got[f[3]] = f[5]
				}
			}
			return err == nil && got["n1"] == n1 && got["n2"] == n2
		}) {
			t.Fatalf("HAProxy's server states %v, want n1 %s and n2 %s (2 up, 0 down): %v\nhaproxy:\n%s\nn1:\n%s\nn2:\n%s", got, n1, n2, err, &hlog, logs[0], logs[1])
		}
	}
	waitStates("2", "0")
	// Through HAProxy, the ready node answers.
	if code, loc, err := firstAnswer(front, "/a", time.Now().Add(2*time.Second)); err != nil || code != 301 || loc != "/b" {
		t.Errorf("through HAProxy: %d %q %v", code, loc, err)
	}

	// A client that has sent half a request keeps n1 draining after
	// SIGTERM (up to shutdown_timeout): /readyz answers 503 meanwhile,
	// and HAProxy must take n1 out before it stops.
	c, err := net.Dial("tcp", nodes[0].traffic)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "PROXY TCP4 127.0.0.1 127.0.0.1 40000 %s\r\nGET /a HTTP/1.1\r\n", strings.TrimPrefix(nodes[0].traffic, "127.0.0.1:"))
	// Accepted and counted before the drain starts. HAProxy checks the
	// admin port, so the open connection on the traffic port is this one.
	testutil.WaitFor(t, testutil.Patience, "n1 holding the half request's connection", func() bool {
		_, m := httpGet(t, "http://127.0.0.1:"+nodes[0].adminPort+"/metrics", "")
		v, _ := testutil.Metric(m, "redirectd_connections_open")
		return v >= 1
	})
	cmds[0].Process.Signal(syscall.SIGTERM)
	waitStates("0", "0")
	select {
	case <-exited[0]:
		t.Fatalf("n1 exited before HAProxy took it out: the drain was not seen\n%s", logs[0])
	default:
	}
}
