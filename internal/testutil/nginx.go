package testutil

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// FindNginx returns the nginx binary to compare with, skipping the test
// where there is none (Debian's package puts it in /usr/sbin, which a
// user's PATH may not hold).
func FindNginx(tb testing.TB) string {
	tb.Helper()
	return FindProgram(tb, "nginx is not installed (apt-get install nginx); the comparison with a real nginx is skipped", "nginx", "/usr/sbin/nginx")
}

// RunNginx runs nginx on the config file conf, with dir as its prefix
// (where its error.log goes), until the test ends; it returns once nginx listens on
// every one of addrs, and fails the test, with nginx's error log, when
// nginx exits or does not listen within 10 s. dir and the temporary
// directories above it are opened to every user first: nginx's workers
// may run as another (nobody, when the test runs as root), who must reach
// the prefix to answer 404 rather than 403.
func RunNginx(tb testing.TB, bin, dir, conf string, addrs ...string) {
	tb.Helper()
	for d := dir; d != filepath.Dir(d) && strings.HasPrefix(d, os.TempDir()+string(filepath.Separator)); d = filepath.Dir(d) {
		os.Chmod(d, 0o755)
	}
	cmd := exec.Command(bin, "-p", dir, "-c", conf, "-g", "daemon off;")
	var stderr LockedBuffer
	cmd.Stderr = &stderr
	// A group of its own, killed whole: a worker whose master is killed
	// alone lives on, holding the test's port, for good.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		tb.Fatalf("starting nginx: %v", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	tb.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
	})
	log := func() string {
		b, _ := os.ReadFile(filepath.Join(dir, "error.log"))
		return strings.TrimSpace(stderr.String() + "\n" + string(b))
	}
	deadline := time.Now().Add(10 * time.Second)
	for _, addr := range addrs {
		for {
			if c, err := net.Dial("tcp", addr); err == nil {
				c.Close()
				break
			}
			select {
			case <-exited:
				tb.Fatalf("nginx exited:\n%s", log())
			default:
			}
			if time.Now().After(deadline) {
				tb.Fatalf("nginx does not listen on %s:\n%s", addr, log())
			}
			time.Sleep(pollEvery)
		}
	}
}

// NginxHTTPHead is the start of a test nginx's main file with dir as its
// prefix: one worker, its pid, error log and temporary files under dir,
// no access log, and the http block opened for the caller to fill and
// close.
func NginxHTTPHead(dir string) string {
	return fmt.Sprintf("worker_processes 1;\npid %[1]s/nginx.pid;\nerror_log %[1]s/error.log;\nevents { worker_connections 64; }\n"+
		"http {\naccess_log off;\nclient_body_temp_path %[1]s/body;\nproxy_temp_path %[1]s/proxy;\nfastcgi_temp_path %[1]s/fastcgi;\n"+
		"uwsgi_temp_path %[1]s/uwsgi;\nscgi_temp_path %[1]s/scgi;\n", dir)
}
