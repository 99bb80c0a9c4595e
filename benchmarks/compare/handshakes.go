package main

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// wrk cannot make full TLS handshakes: it offers the last connection's
// session on each new one (see benchmarks/README.md, "HTTPS"), so
// tls-churn measures resumptions. tls-full is measured by `compare
// handshakes` instead: connections that each make a full handshake (no
// session offered, as a browser's first visit), send one request with
// Connection: close and read the answer to the close. Its ClientHello is
// OpenSSL 3.0's in what matters to the server: TLS 1.3, one X25519 key
// share, P-256 and P-384 offered, SNI. It does not verify the chain (the
// harness checked the certificate before timing; verifying costs only
// the client), but checks every answer's status line.

// HandshakeResult is what `compare handshakes` prints, as JSON.
type HandshakeResult struct {
	Handshakes int     `json:"handshakes"` // answered in the measured part
	Errors     int     `json:"errors"`
	DurationUS int64   `json:"duration_us"`
	P50US      float64 `json:"p50_us"` // connect to the answer's close
	P99US      float64 `json:"p99_us"`
	FirstError string  `json:"first_error,omitempty"`
}

// handshakesMain is `compare handshakes`: flags in, one JSON
// HandshakeResult out.
func handshakesMain(args []string) error {
	fs := flag.NewFlagSet("handshakes", flag.ContinueOnError)
	addr := fs.String("addr", "", "server host:port (TLS)")
	name := fs.String("name", tlsServerName, "SNI")
	conns := fs.Int("c", 100, "connections at a time")
	warm := fs.Duration("warmup", time.Second, "load not measured, first")
	d := fs.Duration("d", 5*time.Second, "measured time")
	reqFile := fs.String("requests", "", "file holding the request (Connection: close)")
	status := fs.Int("status", 0, "the status every answer must have")
	if err := fs.Parse(args); err != nil {
		return err
	}
	req, err := os.ReadFile(*reqFile)
	if err != nil {
		return err
	}
	if *addr == "" || *conns <= 0 || *status == 0 || len(req) == 0 {
		return fmt.Errorf("handshakes: need -addr, -requests, -status and -c > 0")
	}
	runtime.GOMAXPROCS(runtime.NumCPU())
	res := fullHandshakes(os.Stdout, *addr, *name, req, *status, *conns, *warm, *d)
	return json.NewEncoder(os.Stdout).Encode(res)
}

// The lines `compare handshakes` prints as the measured part starts and
// stops, before its JSON, so that the harness reads the server's CPU
// around that part alone.
const (
	measureStart = "measuring\n"
	measureStop  = "stopped\n"
)

// fullHandshakes runs conns clients for warm then d, and counts the
// exchanges done in d; it writes measureStart and measureStop to marks.
func fullHandshakes(marks io.Writer, addr, name string, req []byte, status, conns int, warm, d time.Duration) HandshakeResult {
	cfg := &tls.Config{
		ServerName: name, InsecureSkipVerify: true, NextProtos: []string{"http/1.1"},
		MaxVersion: tls.VersionTLS13, CurvePreferences: []tls.CurveID{tls.X25519, tls.CurveP256, tls.CurveP384},
	}
	want := []byte("HTTP/1.1 " + strconv.Itoa(status) + " ")
	var measuring, stop atomic.Bool
	var mu sync.Mutex
	var res HandshakeResult
	var lat []time.Duration
	var wg sync.WaitGroup
	for range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 16<<10)
			for !stop.Load() {
				t0 := time.Now()
				err := oneHandshake(addr, cfg, req, want, buf)
				if !measuring.Load() {
					continue
				}
				mu.Lock()
				if err != nil {
					res.Errors++
					if res.FirstError == "" {
						res.FirstError = err.Error()
					}
				} else {
					res.Handshakes++
					lat = append(lat, time.Since(t0))
				}
				mu.Unlock()
			}
		}()
	}
	time.Sleep(warm)
	measuring.Store(true)
	io.WriteString(marks, measureStart)
	t0 := time.Now()
	time.Sleep(d)
	measuring.Store(false)
	res.DurationUS = time.Since(t0).Microseconds()
	io.WriteString(marks, measureStop)
	stop.Store(true)
	wg.Wait()
	res.P50US, res.P99US = quantileUS(lat, 0.50), quantileUS(lat, 0.99)
	return res
}

// oneHandshake connects, makes a full handshake, sends req and reads the
// answer to the server's close; the answer must begin with want.
func oneHandshake(addr string, cfg *tls.Config, req, want, buf []byte) error {
	raw, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return err
	}
	defer raw.Close()
	raw.SetDeadline(time.Now().Add(10 * time.Second))
	c := tls.Client(raw, cfg)
	if _, err := c.Write(req); err != nil {
		return fmt.Errorf("handshake or request: %w", err)
	}
	n := 0
	for {
		m, err := c.Read(buf[n:])
		n += m
		if err == io.EOF || (err == nil && n == len(buf)) {
			break
		}
		if err != nil {
			return fmt.Errorf("answer: %w", err)
		}
	}
	if !bytes.HasPrefix(buf[:n], want) {
		return fmt.Errorf("answer %q, want %q", buf[:min(n, 64)], want)
	}
	return nil
}

// quantileUS is the q quantile of ds in microseconds; 0 for none.
func quantileUS(ds []time.Duration, q float64) float64 {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[min(len(s)-1, int(q*float64(len(s))))].Microseconds())
}

// handshakes runs sc (tls-full) against the server with `compare
// handshakes` pinned to the client CPUs, Runs times, each with its own
// warm-up. req/s is handshakes/s; CPU per request is the server's CPU per
// new connection (handshake, request, close), read around the measured
// part alone.
func (h *harness) handshakes(p *Proc, addr string, sc Scenario) *ScenarioResult {
	return h.repeat(sc.Name, func() (Run, error) { return h.handshakeRun(p, addr, sc) })
}

func (h *harness) handshakeRun(p *Proc, addr string, sc Scenario) (Run, error) {
	cmd := exec.Command("taskset", "-c", h.s.ClientCPUs, h.self, "handshakes", "-addr", addr,
		"-c", strconv.Itoa(h.s.Concurrency), "-warmup", h.s.Warmup.String(), "-d", h.s.Duration.String(),
		"-requests", h.reqFiles[sc.Name], "-status", strconv.Itoa(sc.Reqs[0].Want.Status))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return Run{}, err
	}
	if err := cmd.Start(); err != nil {
		return Run{}, fmt.Errorf("handshakes: %w", err)
	}
	br := bufio.NewReader(pipe)
	var c0, c1 time.Duration
	var cl0, cl1 time.Duration
	for _, mark := range []struct {
		line      string
		server    *time.Duration
		clientCPU *time.Duration
	}{{measureStart, &c0, &cl0}, {measureStop, &c1, &cl1}} {
		line, err := br.ReadString('\n')
		*mark.server, *mark.clientCPU = p.CPU(), procCPU(cmd.Process.Pid)
		if err != nil || line != mark.line {
			cmd.Wait()
			return Run{}, fmt.Errorf("handshakes: %q, want %q: %v %s", line, mark.line, err, bytes.TrimSpace(stderr.Bytes()))
		}
	}
	out, _ := io.ReadAll(br)
	if err := cmd.Wait(); err != nil {
		return Run{}, fmt.Errorf("handshakes: %w: %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	var hr HandshakeResult
	if err := json.Unmarshal(out, &hr); err != nil {
		return Run{}, fmt.Errorf("handshakes output %q: %w", out, err)
	}
	if hr.Handshakes == 0 {
		return Run{}, fmt.Errorf("no handshake was answered: %s", hr.FirstError)
	}
	wall := float64(hr.DurationUS)
	server := float64((c1 - c0).Microseconds())
	return Run{RPS: float64(hr.Handshakes) / (wall / 1e6), P50US: hr.P50US, P99US: hr.P99US,
		CPUPerReqUS: server / float64(hr.Handshakes), Errors: int64(hr.Errors),
		ServerBusy: server / wall, ClientBusy: float64((cl1 - cl0).Microseconds()) / wall}, nil
}

// procCPU is the CPU time of one process (taskset has exec'd the load
// generator, so its pid is the generator's); 0 when it cannot be read.
func procCPU(pid int) time.Duration {
	st, err := readStat(pid)
	if err != nil {
		return 0
	}
	return time.Duration(st.utime+st.stime) * time.Second / clockTick
}
