package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redirectd/redirectd/engine/testport"
	"github.com/redirectd/redirectd/internal/testutil"
)

// TestAccessLog runs the binary with a JSON access log, rotates it as
// logrotate does (rename, then SIGUSR1), stops it, and checks every
// request is logged once, in the right file, with its fields.
func TestAccessLog(t *testing.T) {
	t.Parallel()
	addr := testport.Free(t)
	dir := t.TempDir()
	logFile := filepath.Join(dir, "access.log")
	file := filepath.Join(dir, "r.toml")
	os.WriteFile(file, []byte(fmt.Sprintf("[server]\nlisten = %q\n\n[admin]\nlisten = \"off\"\n\n[access_log]\npath = %q\nformat = \"json\"\n\n"+
		"[[rule]]\nfrom = \"/a\"\nto = \"/b\"\n", addr, logFile)), 0o644)
	nd := startNode(t, nodeConfig{File: file})
	cmd, stderr := nd.cmd, nd.stderr
	if status, _, err := firstAnswer(addr, "/a?x=1", time.Now().Add(10*time.Second)); err != nil || status != 301 {
		t.Fatalf("first answer: %d %v\n%s", status, err, stderr.String())
	}
	firstAnswer(addr, "/missing", time.Now().Add(time.Second))
	// A sweep flushes the loop's buffer: both lines reach the file.
	testutil.WaitFor(t, testutil.Patience, "two lines in the access log", func() bool {
		data, _ := os.ReadFile(logFile)
		return strings.Count(string(data), "\n") >= 2
	})
	if err := os.Rename(logFile, logFile+".1"); err != nil {
		t.Fatal(err)
	}
	cmd.Process.Signal(syscall.SIGUSR1)
	testutil.WaitFor(t, testutil.Patience, "the access log reopened", func() bool {
		return strings.Contains(stderr.String(), "access log reopened")
	})
	firstAnswer(addr, "/a", time.Now().Add(time.Second))
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit: %v\n%s", err, stderr.String())
	}
	type line struct {
		Client, Method, Target, Location, Rule string
		Status                                 int
	}
	read := func(name string) []line {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		var out []line
		for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			var e line
			if err := json.Unmarshal([]byte(l), &e); err != nil {
				t.Fatalf("%s: not JSON: %q", name, l)
			}
			out = append(out, e)
		}
		return out
	}
	before, after := read(logFile+".1"), read(logFile)
	// Each event loop writes its own buffer, so lines of requests served
	// by different loops need not be in time order.
	sort.Slice(before, func(i, j int) bool { return before[i].Status < before[j].Status })
	if len(before) != 2 || before[0].Target != "/a?x=1" || before[0].Status != 301 || before[0].Location != "/b?x=1" ||
		before[0].Rule != file+":11" || before[0].Client != "127.0.0.1" || before[1].Status != 404 || before[1].Target != "/missing" {
		t.Errorf("lines before the rotation: %+v", before)
	}
	if len(after) != 1 || after[0].Target != "/a" {
		t.Errorf("lines after the rotation: %+v", after)
	}
}
