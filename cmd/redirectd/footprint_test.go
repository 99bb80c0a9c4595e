package main

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
)

// The footprint budget that benchmarks/README.md states ("A small site's
// memory"). Each limit has a margin over what was measured when it was set,
// so that neither a busy machine nor a small change fails it, but losing
// what keeps them low (the executable's pages handed back after a load,
// the console's templates parsed when first asked for, a misses sketch
// left untouched) does.
const (
	// binaryBudget bounds the file `go build` writes (symbols and DWARF
	// included; `make build` strips them): 36.5 MiB when set.
	binaryBudget = 40 << 20
	// emptyPSSBudget and smallPSSBudget bound the PSS of `serve`, on two
	// CPUs, on a config with no rule and on 500 rules, once answering:
	// 11.5-11.6 and 11.5-12.4 MiB when set (19.1 and 19.8 with the
	// executable's pages that only loading uses left mapped).
	emptyPSSBudget = 15 << 20
	smallPSSBudget = 16 << 20
)

// TestFootprintBudget builds the binary, checks its size, and starts it on
// an empty config and on 500 rules, reading each one's PSS from
// /proc/PID/smaps_rollup after a reload through the admin API (which
// hands the load's memory back before it answers, where the start does so
// in the background) and a few answers. Memory, unlike CPU time, does not
// move with the machine's load.
func TestFootprintBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	if _, err := os.Stat("/proc/self/smaps_rollup"); err != nil {
		t.Skipf("no /proc/self/smaps_rollup (%v): PSS is read from Linux's /proc", err)
	}
	bin := buildBinary(t)
	st, err := os.Stat(bin)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("binary: %.1f MiB (budget %.1f)", mib(st.Size()), mib(binaryBudget))
	if st.Size() > binaryBudget {
		t.Errorf("the binary is %.1f MiB, over its budget of %.1f MiB", mib(st.Size()), mib(binaryBudget))
	}
	// Event loops and the runtime's per-CPU state grow with GOMAXPROCS:
	// the budget is for two CPUs, whatever this machine has.
	t.Setenv("GOMAXPROCS", "2")
	cases := []struct {
		name   string
		rules  string
		path   string
		budget int64
	}{
		{"empty", "", "/x", emptyPSSBudget},
		{"500 rules", smallSite(), "/old/page-7", smallPSSBudget},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n := startNode(t, nodeConfig{Config: "[server]\nlisten = \"127.0.0.1:0\"\n\n[admin]\nlisten = \"127.0.0.1:0\"\n\n" + c.rules})
			cmd, addr, adminAddr, stderr := n.cmd, n.addr, n.adminAddr, n.stderr
			resp, err := http.Post("http://"+adminAddr+"/reload", "", nil)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Fatalf("/reload: %s\n%s", resp.Status, stderr)
			}
			answerN(t, addr, c.path, 20)
			pss := smapsRollup(t, cmd.Process.Pid)
			t.Logf("Pss %.1f MiB (Pss_Anon %.1f, Pss_File %.1f); budget %.1f", mib(pss["Pss"]), mib(pss["Pss_Anon"]), mib(pss["Pss_File"]), mib(c.budget))
			if pss["Pss"] > c.budget {
				t.Errorf("PSS %.1f MiB once answering, over its budget of %.1f MiB (Pss_Anon %.1f, Pss_File %.1f)",
					mib(pss["Pss"]), mib(c.budget), mib(pss["Pss_Anon"]), mib(pss["Pss_File"]))
			}
		})
	}
}

// smallSite is 500 rules in a small site's mix: 400 exact, 80 prefix and
// 20 regex rules.
func smallSite() string {
	var b strings.Builder
	for i := range 400 {
		fmt.Fprintf(&b, "[[rule]]\nfrom = \"/old/page-%d\"\nto = \"https://example.com/new/page-%d\"\n\n", i, i)
	}
	for i := range 80 {
		fmt.Fprintf(&b, "[[rule]]\nmatch = \"prefix\"\nfrom = \"/section%d/\"\nto = \"https://example.com/s%d/\"\nstatus = 302\n\n", i, i)
	}
	for i := range 20 {
		fmt.Fprintf(&b, "[[rule]]\nmatch = \"regex\"\nfrom = '^/blog%d/(\\d+)/([a-z0-9-]+)$'\nto = \"https://example.com/posts%d/$1/$2\"\nstatus = 308\n\n", i, i)
	}
	return b.String()
}

// answerN sends n requests for path on one connection, as raw bytes, and
// reads each answer's head.
func answerN(t *testing.T, addr, path string, n int) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	r := bufio.NewReader(conn)
	for range n {
		if _, err := fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: example.com\r\n\r\n", path); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(r, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
}

// smapsRollup reads /proc/PID/smaps_rollup's fields, in bytes.
func smapsRollup(t *testing.T, pid int) map[string]int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 3 && f[2] == "kB" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				t.Fatalf("smaps_rollup: %q: %v", line, err)
			}
			out[strings.TrimSuffix(f[0], ":")] = kb << 10
		}
	}
	return out
}

func mib(n int64) float64 { return float64(n) / (1 << 20) }
