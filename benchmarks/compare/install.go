package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
)

// ensurePrograms installs, from Debian's packages, the programs the run
// needs and does not find (apt-get, so it needs root; no Docker).
func ensurePrograms(packages map[string]string) error { // program -> package
	var missing []string
	for prog, pkg := range packages {
		if _, err := exec.LookPath(prog); err != nil {
			missing = append(missing, pkg)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	fmt.Fprintf(os.Stderr, "installing %s from Debian's packages\n", strings.Join(missing, " "))
	if out, err := exec.Command("apt-get", "update", "-qq").CombinedOutput(); err != nil {
		return fmt.Errorf("cannot install %s: apt-get update: %w: %s; install them yourself, or leave them out with ONLY=", strings.Join(missing, " "), err, out)
	}
	cmd := exec.Command("apt-get", append([]string{"install", "-y", "-qq"}, missing...)...)
	cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("cannot install %s: apt-get install: %w: %s; install them yourself, or leave them out with ONLY=", strings.Join(missing, " "), err, out)
	}
	return nil
}

// raiseFileLimit lifts the open-file limit to its hard limit, for the
// servers started from here (HAProxy refuses to start when its maxconn does
// not fit).
func raiseFileLimit() {
	var l syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l) == nil {
		l.Cur = l.Max
		syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l)
	}
}

// machine describes this machine for the results.
func machine() Machine {
	m := Machine{CPUs: numCPU()}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb int64
		fmt.Sscanf(strings.TrimPrefix(strings.SplitN(string(b), "\n", 2)[0], "MemTotal:"), "%d", &kb)
		m.MemMiB = kb / 1024
	}
	if out, err := exec.Command("go", "version").Output(); err == nil {
		m.Go = strings.TrimSpace(strings.TrimPrefix(string(out), "go version "))
	}
	return m
}

func wrkVersion() string {
	out, _ := exec.Command("wrk", "-v").CombinedOutput()
	first, _, _ := strings.Cut(string(out), "\n")
	f := strings.Fields(first)
	if len(f) >= 2 {
		return f[1]
	}
	return "unknown"
}
