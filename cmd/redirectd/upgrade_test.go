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
	bin := buildBinary(t)
	addr, adminAddr, newAdmin := testport.Free(t), testport.Free(t), testport.Free(t)
	dir := t.TempDir()
	// Both configs hold the same [admin] listen, as one config file
	// would: the new instance takes another with -admin-listen, as the
	// procedure in deploy/README.md says.
	start := func(name string, flags ...string) *exec.Cmd {
		file := filepath.Join(dir, name+".toml")
		cfg := fmt.Sprintf("[server]\nlisten = %q\nshutdown_timeout = \"5s\"\n\n[admin]\nlisten = %q\n\n[[rule]]\nfrom = \"/a\"\nto = \"/from-%s\"\n", addr, adminAddr, name)
		os.WriteFile(file, []byte(cfg), 0o644)
		cmd := exec.Command(bin, append([]string{"serve", "-config", file}, flags...)...)
		cmd.Stderr = io.Discard
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		return cmd
	}
	old := start("old")
	if _, _, err := firstAnswer(addr, "/a", time.Now().Add(10*time.Second)); err != nil {
		t.Fatal(err)
	}

	var stop atomic.Bool
	var ok, failed atomic.Int64
	seen := make(chan string, 100000)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for !stop.Load() {
			loc, err := oneRequest(addr)
			if err != nil {
				failed.Add(1)
				t.Logf("request failed: %v", err)
				continue
			}
			ok.Add(1)
			select {
			case seen <- loc:
			default:
			}
		}
	}()

	time.Sleep(300 * time.Millisecond)
	start("new", "-upgrade", "-admin-listen", newAdmin)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if resp, err := http.Get("http://" + newAdmin + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("the new instance's /readyz did not answer 200 on its -admin-listen address")
		}
	}
	time.Sleep(300 * time.Millisecond) // both instances serve
	old.Process.Signal(sigTERM)
	waited := make(chan error, 1)
	go func() { waited <- old.Wait() }()
	select {
	case err := <-waited:
		if err != nil {
			t.Errorf("old instance exit: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("old instance did not stop")
	}
	time.Sleep(300 * time.Millisecond)
	stop.Store(true)
	<-done
	close(seen)
	by := map[string]int{}
	for l := range seen {
		by[l]++
	}
	if failed.Load() > 0 || by["/from-old"] == 0 || by["/from-new"] == 0 {
		t.Fatalf("%d requests answered (%v), %d failed; want none failed and both instances answering", ok.Load(), by, failed.Load())
	}
}

// oneRequest sends GET /a on a new connection and returns the Location
// of a 301; anything else is an error.
func oneRequest(addr string) (string, error) { return locationOf(addr, "x", "/a", 2*time.Second) }

// locationOf sends GET target with Host host on a new connection, within
// limit, and returns the Location of a 301; anything else is an error.
func locationOf(addr, host, target string, limit time.Duration) (string, error) {
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
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
// on the port a first one serves: without -upgrade it exits 1 saying the
// address is in use, before it serves anything, and every request still
// gets the first instance's answer.
func TestSecondInstanceRefused(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	addr := testport.Free(t)
	dir := t.TempDir()
	conf := func(name string) string {
		file := filepath.Join(dir, name+".toml")
		cfg := fmt.Sprintf("[server]\nlisten = %q\n\n[admin]\nlisten = \"off\"\n\n[[rule]]\nfrom = \"/a\"\nto = \"/from-%s\"\n", addr, name)
		if err := os.WriteFile(file, []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
		return file
	}
	first := exec.Command(bin, "serve", "-config", conf("first"))
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { first.Process.Kill(); first.Wait() })
	if _, _, err := firstAnswer(addr, "/a", time.Now().Add(10*time.Second)); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	second := exec.Command(bin, "serve", "-config", conf("second"))
	second.Stderr = &stderr
	done := make(chan error, 1)
	if err := second.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- second.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(stderr.String(), "address already in use") || !strings.Contains(stderr.String(), "-upgrade") {
			t.Errorf("second instance: %v, want exit 1 saying the address is in use and naming -upgrade:\n%s", err, stderr.String())
		}
	case <-time.After(10 * time.Second):
		second.Process.Kill()
		t.Fatalf("the second instance is still running:\n%s", stderr.String())
	}
	for range 20 {
		if loc, err := oneRequest(addr); err != nil || loc != "/from-first" {
			t.Fatalf("after the refused start: %q, %v; want every answer from the first instance", loc, err)
		}
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
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		resp, err := http.Get("http://" + adminAddr + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(filepath.Join(dir, "stderr"))
			t.Fatalf("the new instance did not take the configured admin port back:\n%s", b)
		}
	}
}
