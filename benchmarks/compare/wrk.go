package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// wrkScript sends the requests of a file (whole raw requests one after
// another) in turn, `depth` of them per write, each wrk thread starting at
// its own place; done() prints the summary as one JSON line, so nothing is
// scraped from wrk's text.
const wrkScript = `
local reqs, i = {}, 0
local tid = 0
function setup(thread) tid = tid + 1; thread:set("tid", tid) end
function init(args)
  local f = assert(io.open(args[1], "rb"))
  local data = f:read("*a")
  f:close()
  local depth = tonumber(args[2])
  local all = {}
  for r in data:gmatch("(.-\r\n\r\n)") do all[#all + 1] = r end
  for k = 1, #all, depth do
    local group = {}
    for j = k, math.min(k + depth - 1, #all) do group[#group + 1] = all[j] end
    while #group < depth do group[#group + 1] = all[1] end
    reqs[#reqs + 1] = table.concat(group)
  end
  i = ((tid or 1) * 7919) % #reqs
end
function request()
  i = i % #reqs + 1
  return reqs[i]
end
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('WRKJSON {"requests":%d,"duration_us":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"p50_us":%d,"p99_us":%d,"p999_us":%d}\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(99), latency:percentile(99.9)))
end
`

// wrkSummary is what the script's done() prints.
type wrkSummary struct {
	Requests   int64 `json:"requests"`
	DurationUS int64 `json:"duration_us"`
	Connect    int64 `json:"connect"`
	Read       int64 `json:"read"`
	Write      int64 `json:"write"`
	Status     int64 `json:"status"`
	Timeout    int64 `json:"timeout"`
	P50US      int64 `json:"p50_us"`
	P99US      int64 `json:"p99_us"`
	P999US     int64 `json:"p999_us"`

	// ClientCPU is wrk's own CPU time (user and system, from its rusage),
	// set by runWrk: near the run's duration, the load generator and not
	// the server bounded the run.
	ClientCPU time.Duration `json:"-"`
}

// writeRequests writes the raw requests of sc to path, for wrk and the
// load generator.
func writeRequests(path string, sc Scenario) error {
	return writeFile(path, func(w *bufio.Writer) error {
		for _, r := range sc.Reqs {
			w.WriteString(r.Raw)
		}
		return nil
	})
}

// parseWrk finds the script's JSON line in wrk's output.
func parseWrk(out []byte) (wrkSummary, error) {
	var s wrkSummary
	for line := range bytes.Lines(out) {
		if rest, ok := bytes.CutPrefix(line, []byte("WRKJSON ")); ok {
			err := json.Unmarshal(rest, &s)
			return s, err
		}
	}
	return s, fmt.Errorf("no summary in wrk's output: %q", out)
}

// runWrk runs wrk pinned to cpus against target (http:// or https://
// host:port) for d.
func runWrk(cpus string, threads, conns int, d time.Duration, target, script, reqFile string, depth int) (wrkSummary, error) {
	args := []string{"-c", cpus, "wrk", "-t", strconv.Itoa(threads), "-c", strconv.Itoa(conns),
		"-d", fmt.Sprintf("%ds", max(1, int(d.Round(time.Second).Seconds()))), "--timeout", "5s", "-s", script,
		target + "/", "--", reqFile, strconv.Itoa(max(1, depth))}
	cmd := exec.Command("taskset", args...) // taskset execs wrk: its rusage is wrk's
	out, err := cmd.CombinedOutput()
	if err != nil {
		return wrkSummary{}, fmt.Errorf("wrk: %w: %s", err, strings.TrimSpace(string(out)))
	}
	s, err := parseWrk(out)
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		s.ClientCPU = time.Duration(syscall.TimevalToNsec(ru.Utime) + syscall.TimevalToNsec(ru.Stime))
	}
	return s, err
}

func writeWrkScript(path string) error { return os.WriteFile(path, []byte(wrkScript), 0o644) }
