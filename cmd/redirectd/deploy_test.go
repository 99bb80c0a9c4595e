package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestInstall runs `make install` into a temporary DESTDIR and checks the
// layout, the paths written into the unit, and that the installed config
// is valid.
func TestInstall(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	dest := t.TempDir()
	cmd := exec.Command("make", "-C", "../..", "install", "DESTDIR="+dest, "PREFIX=/usr")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make install: %v\n%s", err, out)
	}
	for _, f := range []string{"usr/bin/redirectd", "etc/systemd/system/redirectd.service",
		"etc/redirectd/redirectd.toml", "etc/logrotate.d/redirectd", "etc/sysctl.d/90-redirectd.conf"} {
		if _, err := os.Stat(filepath.Join(dest, f)); err != nil {
			t.Errorf("not installed: %s", f)
		}
	}
	unit, _ := os.ReadFile(filepath.Join(dest, "etc/systemd/system/redirectd.service"))
	if !strings.Contains(string(unit), "ExecStart=/usr/bin/redirectd serve -config /etc/redirectd/redirectd.toml") {
		t.Errorf("unit does not run the installed binary:\n%s", unit)
	}
	if code, out, errs := runCmd("check", "-config", filepath.Join(dest, "etc/redirectd/redirectd.toml")); code != 0 {
		t.Errorf("installed config does not check: %s %s", out, errs)
	}
}

// TestSystemdUnit checks deploy/redirectd.service with systemd-analyze
// verify, pointed at a built binary and the shipped config.
func TestSystemdUnit(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("systemd-analyze"); err != nil {
		t.Skip("systemd-analyze is not installed; the unit is not verified here")
	}
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	cfg, _ := filepath.Abs("../../deploy/redirectd.toml")
	unit, err := os.ReadFile("../../deploy/redirectd.service")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(unit), "/usr/local/bin/redirectd", bin)
	text = strings.ReplaceAll(text, "/etc/redirectd/redirectd.toml", cfg)
	file := filepath.Join(t.TempDir(), "redirectd.service")
	os.WriteFile(file, []byte(text), 0o644)
	out, err := exec.Command("systemd-analyze", "verify", file).CombinedOutput()
	if err != nil || len(strings.TrimSpace(string(out))) > 0 {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
}

// TestNotify checks the sd_notify datagrams: READY=1 once serving, and
// STOPPING=1 on SIGTERM.
func TestNotify(t *testing.T) {
	t.Parallel()
	// The datagram protocol needs no systemd: listen where NOTIFY_SOCKET
	// points, as systemd does.
	sock := filepath.Join(t.TempDir(), "notify")
	conn, err := listenUnixgram(sock)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	cmd := startNode(t, nodeConfig{Env: []string{"NOTIFY_SOCKET=" + sock},
		Config: "[server]\nlisten = \"127.0.0.1:0\"\n\n[admin]\nlisten = \"off\"\n\n[[rule]]\nfrom = \"/a\"\nto = \"/b\"\n"}).cmd
	got := readDatagrams(t, conn, 1)
	if got[0] != "READY=1" {
		t.Fatalf("first notification %q, want READY=1", got[0])
	}
	cmd.Process.Signal(sigTERM)
	if got = readDatagrams(t, conn, 1); got[0] != "STOPPING=1" {
		t.Fatalf("notification on SIGTERM %q, want STOPPING=1", got[0])
	}
	cmd.Wait()
}

// TestUnitWritableFolders: under ProtectSystem=strict the unit can write
// only the folders it declares (LogsDirectory, StateDirectory,
// CacheDirectory), so every /var/log, /var/lib and /var/cache path the
// service docs and the shipped config give it (the access log, [acme]
// storage, [admin] edits_dir, [rules] cache_dir) must lie in one of
// them: a cache_dir of /var/cache/redirectd without CacheDirectory
// would fail at start on an installed node.
func TestUnitWritableFolders(t *testing.T) {
	t.Parallel()
	unit, err := os.ReadFile("../../deploy/redirectd.service")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^ProtectSystem=strict$`).Match(unit) {
		t.Fatal("the unit no longer has ProtectSystem=strict: revisit this test")
	}
	var writable []string
	for _, m := range regexp.MustCompile(`(?m)^(Logs|State|Cache)Directory=(\S+)$`).FindAllSubmatch(unit, -1) {
		base := map[string]string{"Logs": "/var/log/", "State": "/var/lib/", "Cache": "/var/cache/"}[string(m[1])]
		writable = append(writable, base+string(m[2]))
	}
	path := regexp.MustCompile(`/var/(?:log|lib|cache)/[^\s"'` + "`" + `),]*`)
	for _, doc := range []string{"../../deploy/README.md", "../../deploy/redirectd.toml", "../../config/source/README.md"} {
		text, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range path.FindAllString(string(text), -1) {
			if !slices.ContainsFunc(writable, func(w string) bool { return p == w || strings.HasPrefix(p, w+"/") }) {
				t.Errorf("%s names %s, which the unit cannot write (it declares %v)", doc, p, writable)
			}
		}
	}
}
