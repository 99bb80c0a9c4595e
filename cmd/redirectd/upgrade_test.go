package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/redirectd/redirectd/engine/testport"
	"github.com/redirectd/redirectd/internal/testutil"
)

// migrateAcceptQueues asks the kernel to hand connections waiting in a
// closing listener's accept queue to another listener of the same
// SO_REUSEPORT group (net.ipv4.tcp_migrate_req, Linux 5.14+). It reports
// whether the setting is on.
func migrateAcceptQueues() bool {
	const knob = "/proc/sys/net/ipv4/tcp_migrate_req"
	if b, err := os.ReadFile(knob); err == nil && strings.TrimSpace(string(b)) == "1" {
		return true
	}
	return os.WriteFile(knob, []byte("1"), 0o644) == nil
}

// TestZeroDowntimeUpgrade starts a second instance on the same port (both
// bind it with SO_REUSEPORT), stops the first with SIGTERM so that it
// drains, and checks that a client sending requests all along sees no
// failure and is served by both.
func TestZeroDowntimeUpgrade(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	if !migrateAcceptQueues() {
		t.Skip("net.ipv4.tcp_migrate_req cannot be set here: connections queued on the old listener would be reset when it closes (see deploy/README.md)")
	}
	addr, adminAddr, newAdmin := testport.Free(t), testport.Free(t), testport.Free(t)
	// Both configs hold the same [admin] listen, as one config file
	// would: the new instance takes another with -admin-listen, as the
	// procedure in deploy/README.md says.
	start := func(name string, flags ...string) *node {
		return startNode(t, nodeConfig{Args: flags, Config: fmt.Sprintf("[server]\nlisten = %q\nshutdown_timeout = \"5s\"\n\n[admin]\nlisten = %q\n\n[[rule]]\nfrom = \"/a\"\nto = \"/from-%s\"\n", addr, adminAddr, name)})
	}
	old := start("old")

	// The client counts the answers of each instance; the test moves on
	// when they show what it waits for, not after a pause.
	var stop atomic.Bool
	var failed, fromOld, fromNew atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		for !stop.Load() {
			loc, err := oneRequest(addr)
			switch {
			case err != nil:
				failed.Add(1)
				t.Logf("request failed: %v", err)
			case loc == "/from-old":
				fromOld.Add(1)
			case loc == "/from-new":
				fromNew.Add(1)
			}
		}
	}()
	defer func() { stop.Store(true); <-done }()

	testutil.WaitFor(t, testutil.Patience, "the old instance answering the client", func() bool { return fromOld.Load() > 0 })
	start("new", "-upgrade", "-admin-listen", newAdmin)
	testutil.WaitFor(t, testutil.Patience, "the new instance's /readyz 200 on its -admin-listen address", func() bool {
		resp, err := http.Get("http://" + newAdmin + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	})
	testutil.WaitFor(t, testutil.Patience, "the new instance answering the client", func() bool { return fromNew.Load() > 0 })
	old.signal(sigTERM)
	waited := make(chan error, 1)
	go func() { waited <- old.cmd.Wait() }()
	select {
	case err := <-waited:
		if err != nil {
			t.Errorf("old instance exit: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("old instance did not stop")
	}
	after := fromNew.Load()
	testutil.WaitFor(t, testutil.Patience, "answers once the old instance is gone", func() bool { return fromNew.Load() >= after+20 })
	stop.Store(true)
	<-done
	if failed.Load() > 0 {
		t.Fatalf("%d requests failed (%d answered by the old instance, %d by the new); want none", failed.Load(), fromOld.Load(), fromNew.Load())
	}
}

// oneRequest sends GET /a on a new connection and returns the Location
// of a 301; anything else is an error.
func oneRequest(addr string) (string, error) { return locationOf(addr, "x", "/a", 2*time.Second) }

// locationOf sends GET target with Host host on a new connection, within
// limit, and returns the Location of a 301; anything else is an error.
func locationOf(addr, host, target string, limit time.Duration) (string, error) {
	c, err := net.DialTimeout("tcp", addr, testutil.Patience)
	if err != nil {
		return "", err
	}
	return locationOn(c, host, target, limit)
}

// locationOn is locationOf on c, a connection already open (over TLS, in
// another namespace), which it closes.
func locationOn(c net.Conn, host, target string, limit time.Duration) (string, error) {
	defer c.Close()
	c.SetDeadline(time.Now().Add(limit))
	if _, err := io.WriteString(c, "GET "+target+" HTTP/1.1\r\nHost: "+host+"\r\nConnection: close\r\n\r\n"); err != nil {
		return "", err
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return "", err
	}
	resp.Body.Close()
	if resp.StatusCode != 301 {
		return "", fmt.Errorf("status %d", resp.StatusCode)
	}
	return resp.Header.Get("Location"), nil
}

// TestSecondInstanceRefused starts a second instance, with another config,
// on the ports a first one serves: without -upgrade it exits 1 saying,
// once, which address is in use and what to do, before it serves
// anything, and every request still gets the first instance's answer.
// With the admin endpoints on, their address is the one met first.
func TestSecondInstanceRefused(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, admin string
		want        func(addr, admin string) []string
	}{
		{"admin off", "off", func(addr, _ string) []string {
			return []string{"cannot serve on " + addr + ": address already in use", "serve -upgrade"}
		}},
		{"admin on", "", func(_, admin string) []string {
			return []string{"second.toml: [admin]: cannot listen on " + admin + ": address already in use (another redirectd, or another server, listens there): stop it first, or give this one another admin address with serve -admin-listen ADDR"}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			addr, admin := testport.Free(t), tt.admin
			if admin == "" {
				admin = testport.Free(t)
			}
			dir := t.TempDir()
			conf := func(name string) string {
				file := filepath.Join(dir, name+".toml")
				cfg := fmt.Sprintf("[server]\nlisten = %q\n\n[admin]\nlisten = %q\n\n[[rule]]\nfrom = \"/a\"\nto = \"/from-%s\"\n", addr, admin, name)
				if err := os.WriteFile(file, []byte(cfg), 0o644); err != nil {
					t.Fatal(err)
				}
				return file
			}
			startNode(t, nodeConfig{File: conf("first")})
			var stderr bytes.Buffer
			second := exec.Command(buildBinary(t), "serve", "-config", conf("second")) // it must fail: no startNode
			second.Stderr = &stderr
			done := make(chan error, 1)
			if err := second.Start(); err != nil {
				t.Fatal(err)
			}
			go func() { done <- second.Wait() }()
			select {
			case err := <-done:
				var ee *exec.ExitError
				if !errors.As(err, &ee) || ee.ExitCode() != 1 {
					t.Errorf("second instance: %v, want exit 1:\n%s", err, stderr.String())
				}
				for _, w := range tt.want(addr, admin) {
					if !strings.Contains(stderr.String(), w) {
						t.Errorf("second instance's stderr lacks %q:\n%s", w, stderr.String())
					}
				}
				if strings.Contains(stderr.String(), "admin: admin") || strings.Contains(stderr.String(), "[admin]: admin:") {
					t.Errorf("second instance says admin twice:\n%s", stderr.String())
				}
			case <-time.After(3 * time.Minute): // a hang guard, not a bound on how long the refusal takes
				second.Process.Kill()
				t.Fatalf("the second instance is still running:\n%s", stderr.String())
			}
			for range 20 {
				if loc, err := oneRequest(addr); err != nil || loc != "/from-first" {
					t.Fatalf("after the refused start: %q, %v; want every answer from the first instance", loc, err)
				}
			}
		})
	}
}

// TestUpgradeBySignal: SIGUSR2 makes a serving instance start its binary
// again as `serve -upgrade`, as under systemd (NOTIFY_SOCKET, here a
// socket of the test's): the new instance says MAINPID and READY=1,
// stops the old one, which exits 0, answers on the traffic port, and
// takes the configured admin port back once the old one has let it go.
func TestUpgradeBySignal(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	notify := filepath.Join(dir, "notify.sock")
	sock, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: notify, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer sock.Close()
	messages := make(chan string, 16)
	go func() {
		buf := make([]byte, 512)
		for {
			n, err := sock.Read(buf)
			if err != nil {
				close(messages)
				return
			}
			messages <- string(buf[:n])
		}
	}()
	next := func(want string) string {
		t.Helper()
		for {
			select {
			case m, ok := <-messages:
				if !ok {
					t.Fatalf("the notify socket closed before %q", want)
				}
				if strings.Contains(m, want) {
					return m
				}
			case <-time.After(20 * time.Second):
				t.Fatalf("no %q on the notify socket", want)
			}
		}
	}
	addr, adminAddr := testport.Free(t), testport.Free(t)
	file := filepath.Join(dir, "redirectd.toml")
	os.WriteFile(file, []byte(fmt.Sprintf("[server]\nlisten = %q\nshutdown_timeout = \"2s\"\n\n[admin]\nlisten = %q\n\n[access_log]\nenabled = false\n\n[[rule]]\nfrom = \"/a\"\nto = \"/b\"\n", addr, adminAddr)), 0o644)
	logs, err := os.Create(filepath.Join(dir, "stderr")) // a file: the new instance keeps it open after the old exits
	if err != nil {
		t.Fatal(err)
	}
	defer logs.Close()
	old := exec.Command(bin, "serve", "-config", file)
	old.Stdout, old.Stderr = logs, logs
	old.Env = append(os.Environ(), "NOTIFY_SOCKET="+notify)
	if err := old.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { old.Process.Kill(); old.Wait() })
	next("READY=1")

	old.Process.Signal(syscall.SIGUSR2)
	m := next("MAINPID=")
	var pid int
	fmt.Sscanf(m[strings.Index(m, "MAINPID=")+len("MAINPID="):], "%d", &pid)
	if pid <= 0 || pid == old.Process.Pid {
		t.Fatalf("MAINPID %q: want the new instance's PID", m)
	}
	t.Cleanup(func() {
		if p, err := os.FindProcess(pid); err == nil {
			p.Kill()
		}
	})
	waited := make(chan error, 1)
	go func() { waited <- old.Wait() }()
	select {
	case err := <-waited:
		if err != nil {
			t.Errorf("old instance exit: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the old instance did not stop after the new one served")
	}
	if loc, err := locationOf(addr, "x", "/a", 5*time.Second); err != nil || loc != "/b" {
		t.Errorf("after the upgrade, /a: %q, %v", loc, err)
	}
	if !testutil.Eventually(testutil.Patience, func() bool {
		resp, err := http.Get("http://" + adminAddr + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	}) {
		b, _ := os.ReadFile(filepath.Join(dir, "stderr"))
		t.Fatalf("the new instance did not take the configured admin port back:\n%s", b)
	}
}
