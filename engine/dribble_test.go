//go:build linux

package engine_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/internal/testutil"
)

// dribbleEnv makes the test binary a server for the dribbled-head tests,
// in a process of its own so that its CPU time can be read apart from the
// client's.
const dribbleEnv = "REDIRECTD_TEST_DRIBBLE_SERVER"

// TestDribbleServerProcess is not a test: run with dribbleEnv set, it
// serves testRules on a loopback port with one event loop, prints the
// address, and stops when its standard input closes.
func TestDribbleServerProcess(t *testing.T) {
	if os.Getenv(dribbleEnv) == "" {
		t.Skip("the server process of TestDribbledHead")
	}
	max, _ := strconv.Atoi(os.Getenv(dribbleEnv))
	srv := startServerWith(t, engine.Options{EventLoops: 1, HeaderTimeout: time.Minute, IdleTimeout: time.Minute, MaxPathBytes: max})
	fmt.Println(srv.Addr())
	io.Copy(io.Discard, os.Stdin)
}

// serverProcess is a server started by startServerProcess.
type serverProcess struct {
	addr string
	pid  int
}

// startServerProcess starts a server process whose max_path_bytes is
// maxPath (0: the default).
func startServerProcess(t *testing.T, maxPath int) *serverProcess {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^TestDribbleServerProcess$"}, strings.Fields(os.Getenv("DRIBBLE_SERVER_ARGS"))...)...)
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d", dribbleEnv, maxPath))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		cmd.Wait()
	})
	addr, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("server process: %v", err)
	}
	return &serverProcess{strings.TrimSpace(addr), cmd.Process.Pid}
}

// usage returns the process's CPU time (user and system) and the number
// of read system calls it made so far.
func (p *serverProcess) usage(t *testing.T) (time.Duration, int) {
	t.Helper()
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.pid))
	if err != nil {
		t.Fatal(err)
	}
	// Fields after the command name in parentheses; utime and stime are
	// the 14th and 15th fields, in clock ticks (100 per second on Linux).
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
	ut, _ := strconv.Atoi(f[11])
	st, _ := strconv.Atoi(f[12])
	io, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", p.pid))
	if err != nil {
		t.Fatal(err)
	}
	reads := 0
	for _, line := range strings.Split(string(io), "\n") {
		if v, ok := strings.CutPrefix(line, "syscr: "); ok {
			reads, _ = strconv.Atoi(v)
		}
	}
	return time.Duration(ut+st) * 10 * time.Millisecond, reads
}

// maxHead is a head of a target of targetLen bytes (8 KiB at most by
// default) and the default limit's 64 KiB of header section in lines of
// about lineLen bytes.
func maxHead(targetLen, lineLen int) string {
	var b strings.Builder
	b.WriteString("GET /" + strings.Repeat("a", targetLen-1) + " HTTP/1.1\r\nHost: h\r\n")
	left := 64<<10 - len("Host: h\r\n") - len("\r\n")
	for i := 0; left > 0; i++ {
		name := fmt.Sprintf("X-%d: ", i)
		n := min(lineLen, left) - len(name) - len("\r\n")
		b.WriteString(name + strings.Repeat("v", n) + "\r\n")
		left -= len(name) + n + len("\r\n")
	}
	b.WriteString("\r\n")
	return b.String()
}

// sendHead sends head in segments of step bytes, waiting pause after each,
// and reads the answer.
func sendHead(t *testing.T, addr, head string, step int, pause time.Duration) int {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.(*net.TCPConn).SetNoDelay(true)
	for i := 0; i < len(head); i += step {
		if _, err := io.WriteString(c, head[i:min(i+step, len(head))]); err != nil {
			t.Fatal(err)
		}
		if pause > 0 {
			deadline := time.Now().Add(pause)
			for time.Now().Before(deadline) {
			}
		}
	}
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	return readAnswer(t, bufio.NewReader(c), "GET").Status
}

// TestDribbledHeadMeasure prints the server's CPU time for a 72 KiB head
// sent at once and a byte per segment.
func TestDribbledHeadMeasure(t *testing.T) {
	if os.Getenv("DRIBBLE_MEASURE") == "" {
		t.Skip("set DRIBBLE_MEASURE=1")
	}
	srv := startServerProcess(t, 1<<20)
	for _, lineLen := range []int{1000, 64 << 10, -1} {
		head := "GET /" + strings.Repeat("a", 128<<10) + " HTTP/1.1\r\nHost: h\r\n\r\n"
		if lineLen > 0 {
			head = maxHead(8192, lineLen)
		}
		for _, tc := range []struct {
			step  int
			pause time.Duration
		}{{len(head), 0}, {1, 0}, {1, 20 * time.Microsecond}} {
			cpu0, r0 := srv.usage(t)
			start := time.Now()
			status := sendHead(t, srv.addr, head, tc.step, tc.pause)
			wall := time.Since(start)
			time.Sleep(50 * time.Millisecond)
			cpu1, r1 := srv.usage(t)
			t.Logf("lines of %d bytes, segments of %d bytes, pause %v: status %d, server CPU %v, %d reads, wall %v",
				lineLen, tc.step, tc.pause, status, cpu1-cpu0, r1-r0, wall.Round(time.Millisecond))
		}
	}
}

// TestDribbledHead sends a 64 KiB head a byte per segment over loopback to
// a server process and checks that the server's work per byte stays flat
// as the head grows. Before, every read copied all that was buffered into
// a fresh buffer (gnet's Peek) and parsed it from its first byte, so a
// read near the end of the head cost several times one near its start:
// with the work of a read in proportion to what is buffered, the last
// quarter of the head costs about 7 times the first, and a bar of 3 times
// stays clear of the 1.6 times seen with both CPUs busy elsewhere. Comparing the
// server's CPU time for the last quarter of the head with the first keeps
// the test independent of the machine's speed; comparing whole quarters
// (equal bytes) rather than reads keeps it independent of how many
// segments the server reads at once, which changes with the machine's
// load.
func TestDribbledHead(t *testing.T) {
	if testing.Short() {
		t.Skip("sends 64 KiB a byte at a time")
	}
	srv := startServerProcess(t, 0)
	head := maxHead(1, 1000) // header lines alone, so that every quarter holds the same kind of bytes
	c, err := net.Dial("tcp", srv.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.(*net.TCPConn).SetNoDelay(true)
	quarter := len(head) / 4
	var cpu [5]time.Duration
	var reads [5]int
	for i := 0; i < len(head); i++ {
		if i%quarter == 0 && i/quarter < 4 {
			caughtUp(t, c)
			cpu[i/quarter], reads[i/quarter] = srv.usage(t)
		}
		if _, err := io.WriteString(c, head[i:i+1]); err != nil {
			t.Fatal(err)
		}
		// About 20 µs between segments, so that the server reads most
		// of them one at a time rather than several together.
		for until := time.Now().Add(20 * time.Microsecond); time.Now().Before(until); {
		}
	}
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	if a := readAnswer(t, bufio.NewReader(c), "GET"); a.Status != 404 {
		t.Fatalf("answer to the dribbled head: %+v", a)
	}
	cpu[4], reads[4] = srv.usage(t)
	perRead := func(q int) time.Duration {
		n := max(1, reads[q+1]-reads[q])
		return (cpu[q+1] - cpu[q]) / time.Duration(n)
	}
	first, last := cpu[1]-cpu[0], cpu[4]-cpu[3]
	t.Logf("server CPU per quarter of the head: first %v (%d reads, %v each), last %v (%d reads, %v each)",
		first, reads[1]-reads[0], perRead(0), last, reads[4]-reads[3], perRead(3))
	if reads[1]-reads[0] < quarter/4 {
		t.Skipf("the server read the segments %d at a time on average; too few reads to compare", quarter/(reads[1]-reads[0]))
	}
	if last > first*3 {
		t.Errorf("the last quarter of the head cost the server %v, the first %v: the work per byte grows with the head", last, first)
	}
}

// caughtUp waits until the server has read every byte the client sent on
// c: the receive queue of the server's end, in /proc/net/tcp, is empty.
func caughtUp(t *testing.T, c net.Conn) {
	t.Helper()
	// The server's end is local there, the client's remote: each an IPv4
	// address as a little-endian hex word, a colon, the port in hex.
	hexAddr := func(a net.Addr) string {
		ta := a.(*net.TCPAddr)
		ip := ta.IP.To4()
		if ip == nil {
			t.Fatalf("%v: want an IPv4 address", a)
		}
		return fmt.Sprintf("%02X%02X%02X%02X:%04X", ip[3], ip[2], ip[1], ip[0], ta.Port)
	}
	ends := hexAddr(c.RemoteAddr()) + " " + hexAddr(c.LocalAddr()) + " "
	testutil.WaitFor(t, 30*time.Second, "the server to read what was sent", func() bool {
		tab, err := os.ReadFile("/proc/net/tcp")
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(tab), "\n") {
			if _, rest, ok := strings.Cut(line, ": "); ok && strings.HasPrefix(rest, ends) {
				// st tx_queue:rx_queue
				f := strings.Fields(rest[len(ends):])
				return len(f) > 1 && strings.HasSuffix(f[1], ":00000000")
			}
		}
		t.Fatalf("no socket %s in /proc/net/tcp", ends)
		return false
	})
}
