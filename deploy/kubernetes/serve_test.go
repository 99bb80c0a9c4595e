package kubernetes

import (
	"bufio"
	"bytes"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redirectd/redirectd/engine/testport"
	"github.com/redirectd/redirectd/internal/testutil"
	corev1 "k8s.io/api/core/v1"
)

// TestManifestsServe runs the real binary as the Deployment does: its
// container args and the ConfigMap's config, with only the listen
// addresses moved to free loopback ports. The kubelet's probes, as
// written (path, port, headers), must get 200; the traffic port must
// answer the config's first rule; SIGTERM must end the process within
// shutdown_timeout, so inside the grace period.
func TestManifestsServe(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	fs, err := readFiles(baseDir)
	if err != nil {
		t.Fatal(err)
	}
	m, err := fs.decode()
	if err != nil {
		t.Fatal(err)
	}
	s, err := loadConfig(t.TempDir(), m.ConfigMap)
	if err != nil {
		t.Fatal(err)
	}
	c := &m.Deployment.Spec.Template.Spec.Containers[0]
	httpAddr, adminAddr := testport.Free(t), testport.Free(t)
	text := m.ConfigMap.Data[configKey]
	for _, r := range [][2]string{{s.Listen, httpAddr}, {s.AdminListen, adminAddr}} {
		old := `listen = "` + r[0] + `"`
		if strings.Count(text, old) != 1 {
			t.Fatalf("the config holds %q not once; this test moves it to a loopback port", old)
		}
		text = strings.Replace(text, old, `listen = "`+r[1]+`"`, 1)
	}
	// The Secret's file, as kubelet writes it: the token and a newline.
	dir := t.TempDir()
	const token = "the-secret-token"
	tokenFile := filepath.Join(dir, "token")
	os.WriteFile(tokenFile, []byte(token+"\n"), 0o600)
	if s.TokenFile == "" || strings.Count(text, strconv.Quote(s.TokenFile)) != 1 {
		t.Fatalf("the config names [admin] token_file %q not once; this test moves it to a file of its own", s.TokenFile)
	}
	text = strings.Replace(text, strconv.Quote(s.TokenFile), strconv.Quote(tokenFile), 1)
	file := filepath.Join(dir, configKey)
	os.WriteFile(file, []byte(text), 0o644)
	args := slices.Clone(c.Args)
	args[slices.Index(args, "-config")+1] = file

	bin := filepath.Join(t.TempDir(), "redirectd")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/redirectd").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()

	probe := func(p *corev1.Probe) (int, error) {
		req, _ := http.NewRequest("GET", "http://"+adminAddr+p.HTTPGet.Path, nil)
		for _, h := range p.HTTPGet.HTTPHeaders {
			req.Header.Set(h.Name, h.Value)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, err
		}
		resp.Body.Close()
		return resp.StatusCode, nil
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		code, err := probe(c.ReadinessProbe)
		if code == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("readiness probe: %d %v\n%s", code, err, stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	for name, p := range map[string]*corev1.Probe{"liveness": c.LivenessProbe, "startup": c.StartupProbe} {
		if code, err := probe(p); code != 200 {
			t.Errorf("%s probe %s: %d %v", name, p.HTTPGet.Path, code, err)
		}
	}
	// What the PodMonitor scrapes: /metrics with the Secret's token, and
	// nothing without it.
	for _, tc := range []struct {
		auth string
		want int
	}{{"", 401}, {"Bearer " + token, 200}} {
		req, _ := http.NewRequest("GET", "http://"+adminAddr+"/metrics", nil)
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("/metrics with Authorization %q: %d, want %d", tc.auth, resp.StatusCode, tc.want)
		}
	}
	if status, loc := get(t, httpAddr, "/old"); status != 301 || loc != "https://example.com/new" {
		t.Errorf("GET /old: %d %q, want 301 to https://example.com/new", status, loc)
	}

	start := time.Now()
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit after SIGTERM: %v\n%s", err, stderr.String())
		}
	case <-time.After(s.Shutdown + 5*time.Second):
		t.Fatalf("still running %s after SIGTERM; shutdown_timeout is %s", time.Since(start), s.Shutdown)
	}
}

// get sends one GET as raw bytes and returns the status and Location.
func get(t *testing.T, addr, path string) (int, string) {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, testutil.Patience)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(testutil.Patience))
	conn.Write([]byte("GET " + path + " HTTP/1.1\r\nHost: k8s.test\r\nConnection: close\r\n\r\n"))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Location")
}
