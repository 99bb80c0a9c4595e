package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redirectd/redirectd/engine/admin/edit/edits"
	"github.com/redirectd/redirectd/internal/testutil"
)

// drillClient drives an edited node's admin API as the drill does: no
// failure of a request is fatal (the node is killed under it); only
// answers of success count, as acknowledged changes.
type drillClient struct {
	n   *editNode
	hc  *http.Client
	seq int
	// acked are the changes the node answered with success: the
	// version each made, and the rule a promote added (from -> to).
	mu    sync.Mutex
	acked []ackedChange
	// audit and edits are the node's audit_log and edits_dir.
	audit, edits string
}

type ackedChange struct {
	version  int
	from, to string // "" for a rollback
}

func (c *drillClient) do(method, path, ctype, body string) (int, string, error) {
	req, _ := http.NewRequest(method, "http://"+c.n.adminAddr+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer pub-token")
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// change makes one change at random: a promote of one entry, an upload
// of many then a promote, or a rollback to an earlier version. It
// returns false once a request fails (the node is gone).
func (c *drillClient) change(rng *rand.Rand) bool {
	c.seq++
	if rng.IntN(4) == 0 {
		return c.rollback(rng)
	}
	code, body, err := c.do("POST", "/drafts", "", "")
	if err != nil || code != 201 {
		return false
	}
	var d struct{ ID string }
	json.Unmarshal([]byte(body), &d)
	from, to := fmt.Sprintf("/k%d-%d", c.seq, rng.Int()), fmt.Sprintf("/v%d", c.seq)
	if rng.IntN(2) == 0 {
		code, _, err = c.do("POST", "/drafts/"+d.ID+"/entries", "application/json", fmt.Sprintf(`{"op":"add","from":%q,"to":%q,"status":301}`, from, to))
	} else {
		var csv strings.Builder
		for i := range 20 {
			fmt.Fprintf(&csv, "%s/%d,%s/%d,301\n", from, i, to, i)
		}
		fmt.Fprintf(&csv, "%s,%s,301\n", from, to)
		code, _, err = c.do("POST", "/drafts/"+d.ID+"/upload", "text/csv", csv.String())
	}
	if err != nil || code != 201 {
		return false
	}
	code, body, err = c.do("POST", "/drafts/"+d.ID+"/promote", "application/json", `{"message":"drill"}`)
	if err != nil {
		return false
	}
	if code == 200 {
		var p struct{ Version int }
		if json.Unmarshal([]byte(body), &p) == nil {
			c.mu.Lock()
			c.acked = append(c.acked, ackedChange{version: p.Version, from: from, to: to})
			c.mu.Unlock()
		}
	}
	return true
}

var servingVersion = regexp.MustCompile(`serving version (\d+)`)

func (c *drillClient) rollback(rng *rand.Rand) bool {
	c.mu.Lock()
	var to int
	if len(c.acked) > 0 {
		to = c.acked[len(c.acked)-1-rng.IntN(min(len(c.acked), 5))].version
	}
	c.mu.Unlock()
	code, body, err := c.do("POST", fmt.Sprintf("/versions/rollback?to=%d&message=drill", to), "", "")
	if err != nil {
		return false
	}
	if m := servingVersion.FindStringSubmatch(body); code == 200 && m != nil {
		v, _ := strconv.Atoi(m[1])
		c.mu.Lock()
		c.acked = append(c.acked, ackedChange{version: v})
		c.mu.Unlock()
	}
	return true
}

// TestCrashDrill kills a real redirectd while promotes, uploads and
// rollbacks run, starts it again each time, and checks what the editing
// path promises: no acknowledged change lost, no version serving or
// listed without its audit record, no version servable that never
// committed (its number not listed, its rollback a 404, its file gone),
// and the audit log parsing whole after every restart. 100 kills: three
// in four at a named step of a change's write-ahead order
// (edits.CrashSteps, the process killing itself there through
// REDIRECTD_TEST_KILL_AT), in turn, so each step is killed at five or
// six times every run; the rest with SIGKILL at a random moment, which
// also falls inside uploads and between the steps.
func TestCrashDrill(t *testing.T) {
	t.Parallel()
	kills := 100
	if testing.Short() {
		kills = 10
	}
	n := startEditNodeConf(t, editConfig)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	c := &drillClient{n: n, hc: &http.Client{Timeout: 10 * time.Second},
		audit: filepath.Join(n.dir, "edits", "audit.jsonl"), edits: filepath.Join(n.dir, "edits")}
	at := map[string]int{} // kills at each step
	n.stop()
	n.startKillAt(crashStep(0))
	for kill := range kills {
		step := crashStep(kill)
		done := make(chan struct{})
		go func() {
			defer close(done)
			crng := rand.New(rand.NewPCG(seed, uint64(kill)+2))
			for c.change(crng) {
			}
		}()
		if step == "" {
			// A random moment: the windows between the steps, and
			// uploads. The wait is no bound on anything checked.
			time.Sleep(time.Duration(rng.IntN(60_000)) * time.Microsecond)
			n.cmd.Process.Kill()
		}
		n.waitKilled(step)
		<-done
		at[strings.Split(step, "@")[0]]++
		n.startKillAt(crashStep(kill + 1))
		c.check(t, kill)
		if t.Failed() {
			t.Fatalf("after kill %d at %q (seed %d):\n%s", kill+1, step, seed, n.stderr)
		}
	}
	aborts := 0
	for _, r := range readAudit(t, filepath.Join(n.dir, "edits", "audit.jsonl")) {
		if r.Action == "abort" {
			aborts++
		}
	}
	c.mu.Lock()
	t.Logf("%d kills (by step: %v), %d changes acknowledged, %d recorded then rolled back at start", kills, at, len(c.acked), aborts)
	c.mu.Unlock()
}

// crashStep is the step kill number i is made at: each of
// edits.CrashSteps in turn three times in four, "" (a random moment)
// the fourth; the first, second or third change to pass it, by turns,
// so that some changes are acknowledged before each kill.
func crashStep(i int) string {
	if i%4 == 3 {
		return ""
	}
	k := i - i/4
	n := len(edits.CrashSteps)
	return fmt.Sprintf("%s@%d", edits.CrashSteps[k%n], 1+k/n%3)
}

// startKillAt starts the node again, to kill itself at step ("" never).
func (n *editNode) startKillAt(step string) {
	n.t.Helper()
	n.cmd = exec.Command(n.bin, "serve", "-config", n.file, "-log-format", "json")
	n.cmd.Env = append(os.Environ(), "REDIRECTD_TEST_KILL_AT="+step)
	n.stderr = &testutil.LockedBuffer{}
	n.cmd.Stderr = n.stderr
	if err := n.cmd.Start(); err != nil {
		n.t.Fatal(err)
	}
	cmd := n.cmd
	n.t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	if _, _, err := firstAnswer(n.addr, "/old", time.Now().Add(30*time.Second)); err != nil {
		n.t.Fatalf("no answer after a start: %v\n%s", err, n.stderr)
	}
	testutil.WaitFor(n.t, 30*time.Second, "the admin listener", func() bool {
		c, err := net.Dial("tcp", n.adminAddr)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
}

// waitKilled waits for the node to end by SIGKILL: its own at step, or
// the test's. A step no change reaches fails the test, after a minute
// (a watchdog, not a bound on what is measured).
func (n *editNode) waitKilled(step string) {
	n.t.Helper()
	waitKilled(n.t, n.cmd, step, n.stderr)
}

func waitKilled(t *testing.T, cmd *exec.Cmd, step string, stderr fmt.Stringer) {
	t.Helper()
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		cmd.Wait()
	}()
	select {
	case <-exited:
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		<-exited
		t.Fatalf("no change reached step %q in a minute:\n%s", step, stderr)
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("the node ended with %v, not SIGKILL at step %q:\n%s", cmd.ProcessState, step, stderr)
	}
}

// check compares the restarted node with what was acknowledged.
func (c *drillClient) check(t *testing.T, kill int) {
	t.Helper()
	recs := readAudit(t, c.audit)
	recorded, aborted := map[int]bool{}, map[int]bool{}
	for _, r := range recs {
		switch r.Action {
		case "promote", "rollback":
			recorded[r.Version] = true
		case "abort":
			aborted[r.Version] = true
		}
	}
	committed := func(v int) bool { return v == 0 || recorded[v] && !aborted[v] }
	code, body, err := c.do("GET", "/versions", "", "")
	if err != nil || code != 200 {
		t.Fatalf("kill %d: GET /versions: %d %v", kill, code, err)
	}
	var versions []struct {
		Number  int
		Serving bool
	}
	json.Unmarshal([]byte(body), &versions)
	serving, listed := -1, map[int]bool{}
	for _, v := range versions {
		listed[v.Number] = true
		if v.Serving {
			serving = v.Number
		}
		if !committed(v.Number) {
			t.Errorf("kill %d: /versions lists version %d, which has no audit record or was aborted", kill, v.Number)
		}
	}
	c.mu.Lock()
	acked := slices.Clone(c.acked)
	c.mu.Unlock()
	for _, a := range acked {
		if !committed(a.version) {
			t.Errorf("kill %d: acknowledged version %d has no audit record, or an abort", kill, a.version)
		}
	}
	if len(acked) > 0 {
		last := acked[len(acked)-1]
		if serving < last.version {
			t.Errorf("kill %d: serving version %d, but %d was acknowledged: a change was lost", kill, serving, last.version)
		}
		if serving == last.version && last.from != "" {
			c.n.wantAnswer("localhost", last.from, 301, last.to)
		}
	}
	files, _ := filepath.Glob(filepath.Join(c.edits, "versions", "*.json"))
	for _, f := range files {
		v, _ := strconv.Atoi(strings.TrimSuffix(filepath.Base(f), ".json"))
		if !committed(v) || !listed[v] {
			t.Errorf("kill %d: %s is on disk but version %d was never promoted (listed %v)", kill, f, v, listed[v])
		}
	}
	for v := range aborted {
		if code, body, _ := c.do("POST", fmt.Sprintf("/versions/rollback?to=%d&message=m", v), "", ""); code != 404 {
			t.Errorf("kill %d: rollback to aborted version %d: %d %s, want 404", kill, v, code, body)
		}
		break // one is enough each round; each is tried in some round
	}
}

// TestFullDisk puts edits_dir and audit_log on a small tmpfs the test
// mounts, fills it, and promotes until promotes fail: each failure is a
// 507 saying why, the rules served stay, and after a SIGKILL and a
// restart every acknowledged change serves, none that failed does, and
// the audit log parses whole. Room made again, promotes work. It needs
// root to mount; it skips, saying so, where it cannot.
func TestFullDisk(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	// Two file systems: edits_dir on one, audit_log on the other, each
	// filled in turn, so that each step of a change meets a full disk.
	var mnts [2]string
	for i := range mnts {
		mnts[i] = t.TempDir()
		if out, err := runMount(mnts[i], "size=2m"); err != nil {
			t.Skipf("cannot mount a tmpfs for the full-disk test (needs root and mount(8)): %v %s", err, out)
		}
		t.Cleanup(func() { runUmount(mnts[i]) })
	}
	edits, audit := filepath.Join(mnts[0], "edits"), filepath.Join(mnts[1], "audit.jsonl")
	n := startEditNodeConf(t, func(addr, adminAddr string) string {
		return strings.Replace(editConfig(addr, adminAddr), `edits_dir = "edits"`, fmt.Sprintf("edits_dir = %q\naudit_log = %q", edits, audit), 1)
	})
	c := &drillClient{n: n, hc: &http.Client{Timeout: 30 * time.Second}, audit: audit, edits: edits}
	rng := rand.New(rand.NewPCG(1, 2))
	failures := 0
	for round := range 8 {
		// Leave a little room on one of them, then change until a
		// change fails.
		filler := filepath.Join(mnts[round%2], "filler")
		fill(t, filler, int64(round/2)*700)
		for range 40 {
			before := len(c.acked)
			code, body := c.promoteOne(rng)
			if code == 200 {
				continue
			}
			if code != 507 || !strings.Contains(body, "on disk") {
				t.Fatalf("round %d: a promote on a full disk: %d %q, want 507 saying it cannot keep it on disk", round, code, body)
			}
			failures++
			t.Logf("round %d: %s", round, strings.TrimSpace(body))
			if len(c.acked) != before {
				t.Fatalf("a failed promote was recorded as acknowledged")
			}
			break
		}
		// The audit log parses whole while the disk is full, then
		// after a kill and a restart with room again.
		readAudit(t, audit)
		n.cmd.Process.Kill()
		n.cmd.Wait()
		os.Remove(filler)
		n.start()
		c.check(t, round)
		if t.Failed() {
			t.Fatalf("round %d:\n%s", round, n.stderr)
		}
	}
	if failures == 0 {
		t.Errorf("no promote failed on the full disk: the test did not fill it")
	}
	if code, body := c.promoteOne(rng); code != 200 {
		t.Errorf("a promote with room again: %d %s", code, body)
	}
}

// promoteOne promotes a draft of one entry, recording it when
// acknowledged, and returns the promote's answer.
func (c *drillClient) promoteOne(rng *rand.Rand) (int, string) {
	c.seq++
	code, body, err := c.do("POST", "/drafts", "", "")
	if err != nil || code != 201 {
		return code, body
	}
	var d struct{ ID string }
	json.Unmarshal([]byte(body), &d)
	from, to := fmt.Sprintf("/f%d-%d", c.seq, rng.Int()), fmt.Sprintf("/t%d", c.seq)
	var csv strings.Builder
	for i := range 100 {
		fmt.Fprintf(&csv, "%s/%d,%s/%d,301\n", from, i, to, i)
	}
	fmt.Fprintf(&csv, "%s,%s,301\n", from, to)
	if code, body, err = c.do("POST", "/drafts/"+d.ID+"/upload", "text/csv", csv.String()); err != nil || code != 201 {
		return code, body
	}
	code, body, _ = c.do("POST", "/drafts/"+d.ID+"/promote", "application/json", `{"message":"full disk"}`)
	if code == 200 {
		var p struct{ Version int }
		json.Unmarshal([]byte(body), &p)
		c.acked = append(c.acked, ackedChange{version: p.Version, from: from, to: to})
	} else if st, _ := c.n.answer("localhost", from); st != 404 {
		c.n.t.Errorf("the failed promote of %s serves it: %d", from, st)
	}
	return code, body
}

// fill writes name until the file system is full, then frees room bytes.
func fill(t *testing.T, name string, room int64) {
	t.Helper()
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := bytes.Repeat([]byte{'x'}, 4096)
	var size int64
	for {
		n, err := f.Write(buf)
		size += int64(n)
		if err != nil {
			break
		}
	}
	f.Truncate(max(size-room, 0))
}

// runMount mounts a tmpfs with opts on dir.
func runMount(dir, opts string) ([]byte, error) {
	return exec.Command("mount", "-t", "tmpfs", "-o", opts, "tmpfs", dir).CombinedOutput()
}

func runUmount(dir string) { exec.Command("umount", dir).Run() }

// TestCrashDrillPins is TestCrashDrill for a node whose rules come from
// a source: 50 SIGKILLs, at named steps and at random moments, while
// versions are published
// (and the node asked to fetch them), pinned by rollbacks and unpinned.
// After each restart: the audit log parses whole, no acknowledged pin or
// unpin was aborted, and the version serving has its record.
func TestCrashDrillPins(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	origin := &ruleOrigin{}
	srv := httptest.NewServer(origin)
	defer srv.Close()
	origin.publish(t, map[string]string{"redirectd.toml": "[[rule]]\nfrom = \"/a\"\nto = \"/v0\"\n"})
	node := newSourceNode(t, buildBinary(t), srv.URL+"/site.tar.gz", t.TempDir())
	// Three kills in four at a named step (of those a change of a node
	// with a source passes: its cache_dir has files of its own), in
	// turn, the fourth at a random moment.
	steps := []string{"loaded", "audit-written", "audit-synced", "committed", "swapped"}
	stepOf := func(kill int) string {
		if kill%4 == 3 {
			return ""
		}
		k := kill - kill/4
		return fmt.Sprintf("%s@%d", steps[k%len(steps)], 1+k/len(steps)%3)
	}
	at := map[string]int{}
	node.start()
	hc := &http.Client{Timeout: 10 * time.Second}
	try := func(method, path string) (int, string) {
		req, _ := http.NewRequest(method, "http://"+node.adminAddr+path, nil)
		resp, err := hc.Do(req)
		if err != nil {
			return 0, ""
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	var mu sync.Mutex
	ackedPins := map[string]bool{} // by message
	ackedUnpins, published := 0, 0
	for kill := range 50 {
		// The node of the checks (which its own poll could kill at
		// its step before they end) gives way to one that kills
		// itself at this round's.
		node.cmd.Process.Kill()
		node.cmd.Wait()
		node.startArmed(stepOf(kill))
		done := make(chan struct{})
		go func() {
			defer close(done)
			crng := rand.New(rand.NewPCG(seed, uint64(kill)+2))
			for {
				switch crng.IntN(4) {
				case 0:
					mu.Lock()
					published++
					v := published
					mu.Unlock()
					origin.publish(t, map[string]string{"redirectd.toml": fmt.Sprintf("[[rule]]\nfrom = \"/a\"\nto = \"/v%d\"\n", v)})
					if code, _ := try("POST", "/reload"); code == 0 {
						return
					}
				case 1, 2:
					code, body := try("GET", "/versions")
					if code != 200 {
						return
					}
					var vs []struct {
						Hash    string
						Serving bool
					}
					json.Unmarshal([]byte(body), &vs)
					if len(vs) < 2 {
						continue
					}
					to := vs[1+crng.IntN(len(vs)-1)].Hash
					msg := fmt.Sprintf("drill-%d-%d", kill, crng.Int())
					code, _ = try("POST", "/versions/rollback?to="+to+"&message="+msg)
					if code == 0 {
						return
					}
					if code == 200 {
						mu.Lock()
						ackedPins[msg] = true
						mu.Unlock()
					}
				default:
					code, _ := try("POST", "/versions/unpin")
					if code == 0 {
						return
					}
					if code == 200 {
						mu.Lock()
						ackedUnpins++
						mu.Unlock()
					}
				}
			}
		}()
		step := stepOf(kill)
		if step == "" {
			// A random moment, as in TestCrashDrill: no bound on a check.
			time.Sleep(time.Duration(rng.IntN(60_000)) * time.Microsecond)
			node.cmd.Process.Kill()
		}
		waitKilled(t, node.cmd, step, node.stderr)
		<-done
		at[strings.Split(step, "@")[0]]++
		node.env = nil
		node.start()

		// The version serving first: its record is written before it
		// serves, so the log read after holds it.
		serving, _ := node.serving()
		recs := node.audit() // fails on a line that does not parse
		unpins := 0
		for i, r := range recs {
			if r.Action == "unpin" && (i+1 == len(recs) || recs[i+1].Action != "abort") {
				unpins++
			}
			if r.Action != "abort" || i == 0 {
				continue
			}
			mu.Lock()
			if p := recs[i-1]; p.Action == "pin" && ackedPins[p.Message] {
				t.Errorf("kill %d: the acknowledged pin %q was aborted", kill, p.Message)
			}
			mu.Unlock()
		}
		mu.Lock()
		if unpins < ackedUnpins {
			t.Errorf("kill %d: %d unpins acknowledged, %d in the audit log not aborted", kill, ackedUnpins, unpins)
		}
		mu.Unlock()
		found := false
		for i, r := range recs {
			if r.Hash == serving && r.Action != "abort" && (i+1 == len(recs) || recs[i+1].Action != "abort") {
				found = true
			}
		}
		// None serves when the first fetch did not commit: it comes at
		// the next poll.
		if !found && serving != "" {
			t.Errorf("kill %d: version %s serves, but no audit record not aborted names it", kill, serving)
		}
		if t.Failed() {
			t.Fatalf("after kill %d (seed %d), audit %+v:\n%s", kill+1, seed, recs, node.stderr)
		}
	}
	mu.Lock()
	t.Logf("50 kills (by step: %v), %d pins and %d unpins acknowledged, %d versions published", at, len(ackedPins), ackedUnpins, published)
	mu.Unlock()
}

// startArmed starts the node to kill itself at step. Its own poll may
// get there before it first answers, so a failed first answer is no
// failure here: waitKilled says how the node ended.
func (n *sourceNode) startArmed(step string) {
	n.t.Helper()
	n.cmd = exec.Command(n.bin, "serve", "-config", n.file)
	n.cmd.Env = append(os.Environ(), "REDIRECTD_TEST_KILL_AT="+step)
	stderr := &testutil.LockedBuffer{}
	n.cmd.Stderr, n.stderr = stderr, stderr
	if err := n.cmd.Start(); err != nil {
		n.t.Fatal(err)
	}
	cmd := n.cmd
	n.t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	firstAnswer(n.addr, "/", time.Now().Add(10*time.Second))
}
