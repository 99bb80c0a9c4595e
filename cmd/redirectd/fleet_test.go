package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/redirectd/redirectd/internal/testutil"
)

// The fleet test's network: one bridge in a namespace of its own (the
// switch), and a veth from it to each of the load generator, HAProxy, the
// two nodes and the root namespace (where this process serves the rule
// set). One /24 the host does not route, so no packet leaves the
// namespaces the test creates.
const (
	fleetNet    = "10.213.0."
	fleetSource = fleetNet + "1"  // root namespace: the rule source
	fleetLB     = fleetNet + "2"  // HAProxy
	fleetClient = fleetNet + "10" // the load generator
	fleetRate   = 200             // requests per second through HAProxy
	fleetLength = 30 * time.Second
	fleetChange = 10 * time.Second // the source publishes v2
	fleetBounce = 20 * time.Second // node 1 restarts, the source down
)

var fleetNodes = []string{fleetNet + "11", fleetNet + "12"}

// fleet holds what the test created, so cleanup can remove all of it.
type fleet struct {
	t      *testing.T
	prefix string // every namespace and link name starts with it
	dir    string
}

func (f *fleet) sh(args ...string) {
	f.t.Helper()
	if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
		f.t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// cleanup deletes every namespace and root-side link with the test's
// prefix; deleting a namespace deletes the veth ends and the bridge in it,
// and with them their peers. Safe to call twice.
func (f *fleet) cleanup() {
	out, _ := exec.Command("ip", "netns", "list").Output()
	for _, l := range strings.Split(string(out), "\n") {
		if name, _, _ := strings.Cut(l, " "); strings.HasPrefix(name, f.prefix) {
			exec.Command("ip", "netns", "delete", name).Run()
		}
	}
	exec.Command("ip", "link", "delete", f.prefix+"r").Run()
}

// fleetNeeds skips or fails a fleet drill that cannot run here (it runs
// with REDIRECTD_FLEET=1, as root, with HAProxy), and returns HAProxy's
// path and the redirectd binary.
func fleetNeeds(t *testing.T) (hap, bin string) {
	t.Helper()
	if os.Getenv("REDIRECTD_FLEET") != "1" {
		t.Skip("the fleet test runs with REDIRECTD_FLEET=1: make test-fleet")
	}
	if os.Geteuid() != 0 {
		t.Fatal("the fleet test creates network namespaces: run it as root")
	}
	for _, name := range []string{"haproxy", "/usr/sbin/haproxy"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, buildBinary(t)
		}
	}
	t.Fatal("the fleet test needs HAProxy: apt-get install haproxy")
	return "", ""
}

// fleetAddrs is one drill's /24: the root namespace (the rule source),
// HAProxy, the load generator and the nodes.
type fleetAddrs struct {
	source, lb, client string
	nodes              []string
}

// newFleet creates a drill's network, every name starting with prefix and
// a random suffix: the switch's namespace with its bridge, a namespace
// each for HAProxy (lb), the load generator (lg) and the nodes (n1, n2),
// each joined to the switch at its address in a, as is the root
// namespace. All of it is removed when the test ends.
func newFleet(t *testing.T, prefix string, a fleetAddrs) *fleet {
	t.Helper()
	id := make([]byte, 2)
	rand.Read(id)
	f := &fleet{t: t, prefix: prefix + hex.EncodeToString(id), dir: t.TempDir()}
	t.Cleanup(f.cleanup)
	f.sh("ip", "netns", "add", f.prefix+"sw")
	f.sh("ip", "netns", "exec", f.prefix+"sw", "ip", "link", "add", "br0", "type", "bridge")
	f.sh("ip", "netns", "exec", f.prefix+"sw", "ip", "link", "set", "br0", "up")
	for _, ns := range []string{"lb", "lg", "n1", "n2"} {
		f.sh("ip", "netns", "add", f.prefix+ns)
	}
	f.join("", "r", a.source)
	f.join(f.prefix+"lb", "lb", a.lb)
	f.join(f.prefix+"lg", "lg", a.client)
	for i, addr := range a.nodes {
		short := fmt.Sprintf("n%d", i+1)
		f.join(f.prefix+short, short, addr)
	}
	return f
}

// serveOrigin serves origin at addr (on the root namespace's end of the
// network) until the test ends, and returns its address.
func (f *fleet) serveOrigin(addr string, origin *ruleOrigin) net.Addr {
	ln, err := net.Listen("tcp", addr+":0")
	if err != nil {
		f.t.Fatal(err)
	}
	src := httptest.NewUnstartedServer(origin)
	src.Listener.Close()
	src.Listener = ln
	src.Start()
	f.t.Cleanup(src.Close)
	return ln.Addr()
}

// startNodes starts bin in namespaces n1, n2, ... one a node address,
// each with the config config returns for it (n.file and n.log are set
// by then, in a directory of the node's own with a cache directory).
func (f *fleet) startNodes(bin string, addrs []string, config func(n *fleetNode) string) []*fleetNode {
	nodes := make([]*fleetNode, len(addrs))
	for i, addr := range addrs {
		n := &fleetNode{name: fmt.Sprintf("n%d", i+1), ns: f.prefix + fmt.Sprintf("n%d", i+1), addr: addr}
		dir := filepath.Join(f.dir, n.name)
		os.MkdirAll(filepath.Join(dir, "cache"), 0o755)
		n.file, n.log = filepath.Join(dir, "node.toml"), filepath.Join(dir, "access.log")
		os.WriteFile(n.file, []byte(config(n)), 0o644)
		n.start(f.t, bin)
		nodes[i] = n
	}
	return nodes
}

// startHAProxy runs hap in namespace lb with the config config returns
// for its runtime API socket, until the test ends, and waits until each
// of backends has both nodes up. It returns the socket.
func (f *fleet) startHAProxy(hap string, config func(sock string) string, backends ...string) string {
	t := f.t
	t.Helper()
	sock := filepath.Join(f.dir, "haproxy.sock")
	hfile := filepath.Join(f.dir, "haproxy.cfg")
	os.WriteFile(hfile, []byte(config(sock)), 0o644)
	hcmd := exec.Command("ip", "netns", "exec", f.prefix+"lb", hap, "-db", "-f", hfile)
	hlog := &testutil.LockedBuffer{}
	hcmd.Stdout, hcmd.Stderr = hlog, hlog
	if err := hcmd.Start(); err != nil {
		t.Fatal(err)
	}
	hdone := make(chan struct{})
	go func() { hcmd.Wait(); close(hdone) }()
	t.Cleanup(func() { hcmd.Process.Kill(); <-hdone })
	if !testutil.Eventually(testutil.Patience, func() bool {
		for _, b := range backends {
			out, err := haproxy(sock, "show servers state "+b)
			if err != nil || strings.Count(out, " 2 ") < 2 { // srv_op_state 2: running
				return false
			}
		}
		return true
	}) {
		t.Fatalf("HAProxy not up with both nodes in %v\n%s", backends, hlog)
	}
	return sock
}

// join gives namespace ns (the root one when ns is "") a veth to the
// switch with address addr.
func (f *fleet) join(ns, short, addr string) {
	in, out := f.prefix+short, f.prefix+short+"s"
	f.sh("ip", "link", "add", in, "type", "veth", "peer", "name", out)
	f.sh("ip", "link", "set", out, "netns", f.prefix+"sw")
	f.sh("ip", "netns", "exec", f.prefix+"sw", "ip", "link", "set", out, "master", "br0", "up")
	run := []string{}
	if ns != "" {
		f.sh("ip", "link", "set", in, "netns", ns)
		run = []string{"ip", "netns", "exec", ns}
		f.sh(append(run, "ip", "link", "set", "lo", "up")...)
	}
	f.sh(append(run, "ip", "addr", "add", addr+"/24", "dev", in)...)
	f.sh(append(run, "ip", "link", "set", in, "up")...)
}

// inNetns runs fn on an OS thread moved into namespace ns; sockets fn
// creates stay in ns. The thread is never returned to the runtime (the
// goroutine exits locked, so the thread exits with it).
func inNetns(ns string, fn func()) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		fd, err := unix.Open("/var/run/netns/"+ns, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err == nil {
			err = unix.Setns(fd, unix.CLONE_NEWNET)
			unix.Close(fd)
		}
		errc <- err
		if err == nil {
			fn()
		}
	}()
	return <-errc
}

// fleetNode is one redirectd in its namespace.
type fleetNode struct {
	name, ns, addr string
	file, log      string
	cmd            *exec.Cmd
	stderr         *testutil.LockedBuffer
	done           chan struct{}
}

func (n *fleetNode) start(t *testing.T, bin string) {
	n.cmd = exec.Command("ip", "netns", "exec", n.ns, bin, "serve", "-config", n.file)
	n.stderr = &testutil.LockedBuffer{}
	n.cmd.Stderr = n.stderr
	if err := n.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	n.done = make(chan struct{})
	go func(c *exec.Cmd, done chan struct{}) { c.Wait(); close(done) }(n.cmd, n.done)
	cmd, done := n.cmd, n.done
	t.Cleanup(func() { cmd.Process.Kill(); <-done })
}

// admin makes a request to the node's admin listener (with its token,
// since it listens on a non-loopback address).
func (n *fleetNode) admin(path string) (int, []byte, error) {
	req, _ := http.NewRequest("GET", "http://"+n.addr+":9180"+path, nil)
	req.Header.Set("Authorization", "Bearer fleet-admin")
	c := &http.Client{Timeout: time.Second}
	resp, err := c.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// serving returns the hash of the version the node serves, per /versions.
func (n *fleetNode) serving() string {
	code, b, err := n.admin("/versions")
	if err != nil || code != 200 {
		return ""
	}
	var vs []struct {
		Hash    string `json:"hash"`
		Serving bool   `json:"serving"`
		ETag    string `json:"etag"`
	}
	json.Unmarshal(b, &vs)
	for _, v := range vs {
		if v.Serving {
			return v.Hash
		}
	}
	return ""
}

// haproxy sends one command to HAProxy's runtime API.
func haproxy(sock, cmd string) (string, error) {
	c, err := net.DialTimeout("unix", sock, testutil.Patience)
	if err != nil {
		return "", err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(testutil.Patience))
	io.WriteString(c, cmd+"\n")
	b, err := io.ReadAll(c)
	return string(b), err
}

// TestFleet runs a fleet as deploy/README.md describes it: two nodes behind HAProxy (PROXY v2,
// round robin) pulling rules from one source, under load at a fixed rate
// for 30 s; the rules change at the source at 10 s, and node 1 restarts
// with the source down at 20 s. It needs root, ip and haproxy, and runs
// only with REDIRECTD_FLEET=1 (make test-fleet).
func TestFleet(t *testing.T) {
	hap, bin := fleetNeeds(t)
	f := newFleet(t, "rdf", fleetAddrs{fleetSource, fleetLB, fleetClient, fleetNodes})

	// The rule source, on the root namespace's end only.
	origin := &ruleOrigin{}
	origin.publish(t, map[string]string{"redirectd.toml": "[[rule]]\nfrom = \"/fleet\"\nto = \"/v1\"\n"})
	srcAddr := f.serveOrigin(fleetSource, origin)

	// The nodes.
	nodes := f.startNodes(bin, fleetNodes, func(n *fleetNode) string {
		return fmt.Sprintf(`[server]
listen = "%[1]s:8080"
proxy_protocol = true
trusted_proxies = [%[2]q]

[admin]
listen = "%[1]s:9180"
token = "fleet-admin"

[access_log]
path = %[3]q
format = "json"

[rules]
source = "http://%[4]s/site.tar.gz"
poll = "1s"
cache_dir = "cache"
source_header = "Authorization: Bearer fleet"
`, n.addr, fleetLB, n.log, srcAddr)
	})
	v1 := waitServing(t, nodes, "", 10*time.Second)

	// HAProxy: the fleet example's backend (deploy/fleet/haproxy.cfg):
	// TCP mode, PROXY v2 to each node, round robin, its health check
	// GET /readyz on the admin port (the traffic port needs a PROXY
	// header). The runtime API drains a node before its restart.
	backend := fleetBackend(t, []haproxyNode{{fleetNodes[0] + ":8080", "9180"}, {fleetNodes[1] + ":8080", "9180"}})
	sock := f.startHAProxy(hap, func(sock string) string {
		return fmt.Sprintf(`global
	stats socket %s mode 600 level admin
	maxconn 4096
defaults
	mode tcp
	timeout connect 2s
	timeout client 10s
	timeout server 10s
	retries 3
	option redispatch
frontend fe
	bind %s:8080
	default_backend redirectd
%s
`, sock, fleetLB, backend)
	}, "redirectd")

	// The load: fleetRate requests a second, each on its own connection
	// (so round robin spreads them), from goroutines whose threads are in
	// the load generator's namespace.
	var sent, failed, answeredV1, answeredV2, late atomic.Int64
	var failMu sync.Mutex
	var failures []string
	// Open loop: every request has its send time, and one the workers
	// cannot take at once waits in the queue and is counted late, rather
	// than dropped, so a stall of a busy machine shows as lateness.
	total := int(fleetRate * fleetLength / time.Second)
	ticks := make(chan time.Time, total)
	var workers sync.WaitGroup
	for range 64 {
		workers.Add(1)
		err := inNetns(f.prefix+"lg", func() {
			defer workers.Done()
			for due := range ticks {
				if time.Since(due) > 100*time.Millisecond {
					late.Add(1)
				}
				loc, err := fleetGet(fleetLB + ":8080")
				sent.Add(1)
				switch {
				case err != nil:
					failed.Add(1)
					failMu.Lock()
					failures = append(failures, fmt.Sprintf("%s: %v", time.Now().Format("15:04:05.000"), err))
					failMu.Unlock()
				case loc == "/v1":
					answeredV1.Add(1)
				case loc == "/v2":
					answeredV2.Add(1)
				}
			}
		})
		if err != nil {
			workers.Done()
			close(ticks)
			t.Fatalf("into the load generator's namespace: %v", err)
		}
	}
	start := time.Now()
	loadDone := make(chan struct{})
	go func() {
		defer close(loadDone)
		// Each request's send time is fixed from the start (a
		// time.Ticker would drop ticks on a busy machine).
		for i := range total {
			due := start.Add(time.Duration(i) * time.Second / fleetRate)
			time.Sleep(time.Until(due))
			ticks <- due
		}
		close(ticks)
		workers.Wait()
	}()

	// Second 10: v2 at the source; both nodes must serve it within 5 s.
	time.Sleep(time.Until(start.Add(fleetChange)))
	origin.publish(t, map[string]string{"redirectd.toml": "[[rule]]\nfrom = \"/fleet\"\nto = \"/v2\"\n"})
	changed := time.Now()
	switched := make([]time.Duration, len(nodes))
	for i, n := range nodes {
		for {
			if h := n.serving(); h != "" && h != v1 {
				switched[i] = time.Since(changed)
				break
			}
			if time.Since(changed) > 5*time.Second {
				t.Fatalf("%s still serves %s 5 s after the change\n%s", n.name, v1, n.stderr)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	v2 := nodes[0].serving()
	if h := nodes[1].serving(); h != v2 {
		t.Fatalf("the nodes serve different versions: %s and %s", v2, h)
	}

	// Second 20: the source goes down, node 1 is drained at HAProxy,
	// stopped, started again, and put back once it serves.
	time.Sleep(time.Until(start.Add(fleetBounce)))
	origin.setDown(true)
	n1 := nodes[0]
	if out, err := haproxy(sock, "set server redirectd/n1 state drain"); err != nil || strings.TrimSpace(out) != "" {
		t.Fatalf("draining n1: %v %q", err, out)
	}
	time.Sleep(300 * time.Millisecond) // the connections in flight finish
	stopped := time.Now()
	n1.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-n1.done:
	case <-time.After(15 * time.Second):
		t.Fatalf("n1 did not exit after SIGTERM\n%s", n1.stderr)
	}
	if !n1.cmd.ProcessState.Success() {
		t.Fatalf("n1 exit after SIGTERM: %v\n%s", n1.cmd.ProcessState, n1.stderr)
	}
	requestsBefore, _ := origin.counts()
	n1.start(t, bin)
	var back time.Duration
	for {
		if code, _, err := n1.admin("/readyz"); err == nil && code == 200 {
			if h := n1.serving(); h == v2 {
				back = time.Since(stopped)
				break
			} else if h != "" {
				t.Fatalf("n1 restarted with the source down serves %s, want the cached %s", h, v2)
			}
		}
		if time.Since(stopped) > 10*time.Second {
			t.Fatalf("n1 not serving 10 s after its restart\n%s", n1.stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if out, err := haproxy(sock, "set server redirectd/n1 state ready"); err != nil || strings.TrimSpace(out) != "" {
		t.Fatalf("putting n1 back: %v %q", err, out)
	}
	restartedAt := time.Now()

	<-loadDone
	requestsAfter, _ := origin.counts()
	if requestsAfter == requestsBefore {
		t.Errorf("the restarted node did not ask the source (down) at all")
	}
	if n1.serving() != v2 {
		t.Errorf("n1 does not serve %s at the end", v2)
	}

	// The access logs name the load generator, never HAProxy. SIGTERM
	// flushes them.
	for _, n := range nodes {
		n.cmd.Process.Signal(syscall.SIGTERM)
		<-n.done
	}
	perNode := make([]int, len(nodes))
	var n1AfterRestart int
	for i, n := range nodes {
		b, err := os.ReadFile(n.log)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var e struct {
				Time     time.Time `json:"time"`
				Client   string    `json:"client"`
				Location string    `json:"location"`
			}
			if err := json.Unmarshal([]byte(l), &e); err != nil {
				t.Fatalf("%s access log line %q: %v", n.name, l, err)
			}
			if host, _, _ := strings.Cut(e.Client, ":"); host != fleetClient {
				t.Errorf("%s logged client %q, want the load generator's %s", n.name, e.Client, fleetClient)
				break
			}
			perNode[i]++
			// Times in the log are the loops' coarse clock (100 ms).
			if e.Location == "/v1" && e.Time.After(changed.Add(switched[i]+300*time.Millisecond)) {
				t.Errorf("%s answered /v1 at %s, after it served v2 (%s)", n.name, e.Time.Format("15:04:05.000"), changed.Add(switched[i]).Format("15:04:05.000"))
			}
			if i == 0 && e.Time.After(restartedAt.Add(-200*time.Millisecond)) && e.Location == "/v2" {
				n1AfterRestart++
			}
		}
	}
	if logged := perNode[0] + perNode[1]; int64(logged) != sent.Load() {
		t.Errorf("the access logs hold %d lines for %d requests sent", logged, sent.Load())
	}
	if n1AfterRestart == 0 {
		t.Errorf("n1 answered nothing through HAProxy after its restart")
	}

	t.Logf("fleet: %d requests in %s at %d/s (%d sent over 100 ms late), %d failed; answered /v1 %d, /v2 %d",
		sent.Load(), fleetLength, fleetRate, late.Load(), failed.Load(), answeredV1.Load(), answeredV2.Load())
	t.Logf("fleet: per node (access logs) n1 %d, n2 %d, all from client %s; n1 after its restart %d",
		perNode[0], perNode[1], fleetClient, n1AfterRestart)
	t.Logf("fleet: v1 %s -> v2 %s; n1 served v2 %s after the change, n2 %s",
		v1, v2, switched[0].Round(time.Millisecond), switched[1].Round(time.Millisecond))
	t.Logf("fleet: n1 restarted with the source down: serving the cached %s %s after SIGTERM",
		v2, back.Round(time.Millisecond))
	if failed.Load() != 0 {
		t.Errorf("%d requests failed, the first: %v", failed.Load(), failures[:min(5, len(failures))])
	}
	if got := sent.Load(); got != int64(total) {
		t.Errorf("sent %d requests, want %d", got, total)
	}
}

// waitServing waits until every node serves one version other than not,
// and returns it.
func waitServing(t *testing.T, nodes []*fleetNode, not string, within time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		h0 := nodes[0].serving()
		ok := h0 != "" && h0 != not
		for _, n := range nodes[1:] {
			ok = ok && n.serving() == h0
		}
		if ok {
			return h0
		}
		if time.Now().After(deadline) {
			t.Fatalf("the nodes do not serve one version after %s:\n%s\n%s", within, nodes[0].stderr, nodes[1].stderr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// fleetGet sends GET /fleet on a new connection and returns the Location
// of a 301; anything else is an error.
func fleetGet(addr string) (string, error) {
	return locationOf(addr, "fleet.example", "/fleet", 5*time.Second)
}
