package testutil

import (
	"net"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redirectd/redirectd/engine/testport"
)

// Redis is a redis-server a test started on a loopback port, without
// persistence (--save "" --appendonly no), so that a stop and a start
// give an empty server, as a node that lost its data does.
type Redis struct {
	// Addr is host:port, plain or TLS as it was started.
	Addr string

	tb   testing.TB
	bin  string
	args []string

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{}
	stderr *LockedBuffer
}

// FindRedis returns the redis-server binary, skipping the test where
// there is none.
func FindRedis(tb testing.TB) string {
	tb.Helper()
	return FindProgram(tb, "redis-server is not installed: install Debian's redis-server (apt-get install redis-server)", "redis-server", "/usr/bin/redis-server")
}

// RunRedis starts redis-server on a free loopback port with args added
// (such as "--requirepass", "x") and returns once it accepts
// connections; it is killed when the test ends.
func RunRedis(tb testing.TB, args ...string) *Redis {
	tb.Helper()
	_, port := testport.Addr(tb)
	return runRedis(tb, port, append([]string{"--port", strconv.Itoa(port)}, args...))
}

// RunRedisTLS starts redis-server with TLS only on a free loopback port:
// cert and key are its certificate, ca the CA its clients' certificates
// must chain to (tls-auth-clients is set to optional: a client without a
// certificate is let in).
func RunRedisTLS(tb testing.TB, cert, key, ca string, args ...string) *Redis {
	tb.Helper()
	_, port := testport.Addr(tb)
	base := []string{"--port", "0", "--tls-port", strconv.Itoa(port), "--tls-cert-file", cert,
		"--tls-key-file", key, "--tls-ca-cert-file", ca, "--tls-auth-clients", "optional"}
	return runRedis(tb, port, append(base, args...))
}

func runRedis(tb testing.TB, port int, args []string) *Redis {
	tb.Helper()
	r := &Redis{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), tb: tb, bin: FindRedis(tb),
		args: append([]string{"--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", tb.TempDir()}, args...)}
	r.Start()
	tb.Cleanup(r.Stop)
	return r
}

// Start starts the server again on the same port after Stop; it
// returns once the port accepts connections and fails the test, with
// the server's output, when it exits or does not listen within 10 s.
func (r *Redis) Start() {
	r.tb.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cmd != nil {
		return
	}
	cmd := exec.Command(r.bin, r.args...)
	r.stderr = &LockedBuffer{}
	cmd.Stdout, cmd.Stderr = r.stderr, r.stderr
	if err := cmd.Start(); err != nil {
		r.tb.Fatalf("starting redis-server: %v", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	r.cmd, r.exited = cmd, exited
	deadline := time.Now().Add(10 * time.Second)
	for {
		if c, err := net.Dial("tcp", r.Addr); err == nil {
			c.Close()
			return
		}
		select {
		case <-exited:
			r.cmd = nil
			r.tb.Fatalf("redis-server %s exited:\n%s", strings.Join(r.args, " "), r.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			r.tb.Fatalf("redis-server does not listen on %s:\n%s", r.Addr, r.stderr.String())
		}
		time.Sleep(pollEvery)
	}
}

// Stop kills the server (SIGKILL: a crash, not a shutdown) and waits
// for it to exit. Its data is gone.
func (r *Redis) Stop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cmd == nil {
		return
	}
	r.cmd.Process.Kill()
	<-r.exited
	r.cmd = nil
}
