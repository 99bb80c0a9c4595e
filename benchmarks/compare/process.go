package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Proc is a started server: the process taskset became, and its children
// (nginx's workers).
type Proc struct {
	Name    string
	cmd     *exec.Cmd
	Started time.Time
	logPath string
	done    chan struct{}
	// TLSAddr is the HTTPS address of an instance started with TLS.
	TLSAddr string
	// StartupCPU is SchedCPU at the first correct answer (launch).
	StartupCPU time.Duration
}

// start runs argv pinned to cpus (a taskset list), in its own process
// group, with stdout and stderr going to logPath.
func start(name, cpus string, argv, env []string, logPath string) (*Proc, error) {
	log, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("taskset", append([]string{"-c", cpus}, argv...)...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p := &Proc{Name: name, cmd: cmd, logPath: logPath, done: make(chan struct{})}
	p.Started = time.Now()
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, fmt.Errorf("cannot start %s: %w", name, err)
	}
	running.Store(p, true)
	go func() { cmd.Wait(); log.Close(); running.Delete(p); close(p.done) }()
	return p, nil
}

// running holds the processes started and not yet ended, so that an
// interrupted run stops them rather than leaving servers behind.
var running sync.Map

// stopAll stops every process still running.
func stopAll() {
	running.Range(func(k, _ any) bool { k.(*Proc).Stop(); return true })
}

// Exited reports whether the process has ended.
func (p *Proc) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// LogTail is the end of what the process printed, for error messages.
func (p *Proc) LogTail() string {
	b, _ := os.ReadFile(p.logPath)
	if len(b) > 1500 {
		b = b[len(b)-1500:]
	}
	return strings.TrimSpace(string(b))
}

// Stop sends SIGTERM to the process group, then SIGKILL after 10 s.
func (p *Proc) Stop() {
	pgid := p.cmd.Process.Pid
	syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		syscall.Kill(-pgid, syscall.SIGKILL)
		<-p.done
	}
}

// Tree returns the pid of the process and of all its descendants.
func (p *Proc) Tree() []int { return descendants(p.cmd.Process.Pid) }

func descendants(root int) []int {
	entries, _ := os.ReadDir("/proc")
	parent := map[int]int{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, err := readStat(pid); err == nil {
			parent[pid] = st.ppid
		}
	}
	out := []int{root}
	for i := 0; i < len(out); i++ {
		for pid, pp := range parent {
			if pp == out[i] {
				out = append(out, pid)
			}
		}
	}
	return out
}

type procStat struct {
	ppid           int
	utime, stime   int64 // clock ticks
	cutime, cstime int64 // of waited-for children
	rssPages       int64
}

// readStat parses /proc/PID/stat; the command name, in parentheses, may
// hold spaces, so fields are counted from the last ')'.
func readStat(pid int) (procStat, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procStat{}, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, fmt.Errorf("cannot parse /proc/%d/stat", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	// f[0] is field 3 (state); ppid is field 4, utime 14, stime 15,
	// cutime 16, cstime 17, rss 24.
	if len(f) < 22 {
		return procStat{}, fmt.Errorf("cannot parse /proc/%d/stat", pid)
	}
	n := func(field int) int64 { v, _ := strconv.ParseInt(f[field-3], 10, 64); return v }
	return procStat{ppid: int(n(4)), utime: n(14), stime: n(15), cutime: n(16), cstime: n(17), rssPages: n(24)}, nil
}

// clockTick is USER_HZ, 100 on every Linux architecture Go supports.
const clockTick = 100

// CPU is the user+system CPU time the server's processes have used,
// children that already ended included.
func (p *Proc) CPU() time.Duration {
	var ticks int64
	for _, pid := range p.Tree() {
		if st, err := readStat(pid); err == nil {
			ticks += st.utime + st.stime + st.cutime + st.cstime
		}
	}
	return time.Duration(ticks) * time.Second / clockTick
}

// SchedCPU is the time the server's processes' threads have run, from
// /proc/PID/task/TID/schedstat: nanoseconds rather than CPU's 10 ms
// ticks, for figures as short as a start-up. On a machine other jobs
// load, the CPU a start-up took moves far less than its wall time.
// (Threads that already ended are not counted.)
func (p *Proc) SchedCPU() time.Duration {
	var ns int64
	p.eachThread("schedstat", func(b string) {
		f, _, _ := strings.Cut(b, " ")
		v, _ := strconv.ParseInt(f, 10, 64)
		ns += v
	})
	return time.Duration(ns)
}

// Switches is how many times the server's processes' threads have been
// switched out, voluntarily (a wait: a futex, epoll_wait, a sleep) or not,
// from /proc/PID/task/TID/status. A server that blocks and wakes for every
// request at a moderate rate pays for it in these. (Threads that already
// ended are not counted.)
func (p *Proc) Switches() int64 {
	var n int64
	p.eachThread("status", func(b string) {
		for line := range strings.Lines(b) {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.HasSuffix(k, "_ctxt_switches") {
				c, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				n += c
			}
		}
	})
	return n
}

// eachThread calls read with the file name of /proc/PID/task/TID of every
// thread of the server's processes that can be read.
func (p *Proc) eachThread(name string, read func(string)) {
	for _, pid := range p.Tree() {
		tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
		for _, t := range tasks {
			b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/%s", pid, t.Name(), name))
			if err != nil {
				continue
			}
			read(string(b))
		}
	}
}

// RSS is the resident memory of all the server's processes together, in
// bytes (shared pages counted in each, as ps and top do).
func (p *Proc) RSS() int64 {
	var pages int64
	for _, pid := range p.Tree() {
		if st, err := readStat(pid); err == nil {
			pages += st.rssPages
		}
	}
	return pages * int64(os.Getpagesize())
}

// Mem is a server's memory, summed over its processes, in MiB.
type Mem struct {
	RSS float64 `json:"rss_mib"`
	// PSS counts a page shared by k processes as 1/k in each (Pss in
	// /proc/PID/smaps_rollup), so nginx's master and worker, which share
	// most of their pages, are not counted twice as by RSS.
	PSS float64 `json:"pss_mib"`
	// Peak is VmHWM from /proc/PID/status: the highest RSS each process
	// reached since it started, summed.
	Peak float64 `json:"peak_mib"`
}

// Mem reads the memory of all the server's processes.
func (p *Proc) Mem() Mem {
	var m Mem
	for _, pid := range p.Tree() {
		if st, err := readStat(pid); err == nil {
			m.RSS += mib(st.rssPages * int64(os.Getpagesize()))
		}
		m.PSS += float64(procKB(fmt.Sprintf("/proc/%d/smaps_rollup", pid), "Pss:")) / 1024
		m.Peak += float64(procKB(fmt.Sprintf("/proc/%d/status", pid), "VmHWM:")) / 1024
	}
	return m
}

// procKB is the value in kB of the line starting with key in a /proc file
// of "Key:   123 kB" lines; 0 when there is none.
func procKB(path, key string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, key); ok {
			v, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return v
		}
	}
	return 0
}
