package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The HTTP/2 scenarios (h2-*) are driven by nghttp2's h2load over TLS
// with ALPN h2, against each server's HTTPS port: nginx with `http2`,
// HAProxy with `alpn h2,http/1.1`, Caddy by default, redirectd by
// default ([tls] http2).

// h2Streams is how many streams h2-exact keeps open on its connection.
const h2Streams = 100

// h2ChurnRate is h2-churn's rate of new connections (one request each) a
// second: a fixed rate, below what a handshake per request lets the
// loaded test machine sustain, so that the figure compared is CPU per
// request (handshake included).
const h2ChurnRate = 500

// h2loadSummary is what the harness reads of h2load's output.
type h2loadSummary struct {
	Succeeded, Failed, Errored, Timeout int64
	Seconds                             float64
	MeanUS                              float64
	Status3xx                           int64
	ClientCPU                           time.Duration
}

var (
	h2loadFinished = regexp.MustCompile(`finished in ([0-9.]+)(m?s)`)
	h2loadRequests = regexp.MustCompile(`requests: \d+ total, \d+ started, \d+ done, (\d+) succeeded, (\d+) failed, (\d+) errored, (\d+) timeout`)
	h2loadStatus   = regexp.MustCompile(`status codes: \d+ 2xx, (\d+) 3xx`)
	h2loadTime     = regexp.MustCompile(`time for request:\s+\S+\s+\S+\s+([0-9.]+)(us|ms|s)`)
)

// parseH2load reads h2load's summary.
func parseH2load(out []byte) (h2loadSummary, error) {
	var s h2loadSummary
	text := string(out)
	m := h2loadRequests.FindStringSubmatch(text)
	f := h2loadFinished.FindStringSubmatch(text)
	if m == nil || f == nil {
		return s, fmt.Errorf("cannot read h2load's output: %q", shortOut(text))
	}
	s.Succeeded, _ = strconv.ParseInt(m[1], 10, 64)
	s.Failed, _ = strconv.ParseInt(m[2], 10, 64)
	s.Errored, _ = strconv.ParseInt(m[3], 10, 64)
	s.Timeout, _ = strconv.ParseInt(m[4], 10, 64)
	s.Seconds, _ = strconv.ParseFloat(f[1], 64)
	if f[2] == "ms" {
		s.Seconds /= 1000
	}
	if st := h2loadStatus.FindStringSubmatch(text); st != nil {
		s.Status3xx, _ = strconv.ParseInt(st[1], 10, 64)
	}
	if t := h2loadTime.FindStringSubmatch(text); t != nil {
		v, _ := strconv.ParseFloat(t[1], 64)
		switch t[2] {
		case "ms":
			v *= 1000
		case "s":
			v *= 1e6
		}
		s.MeanUS = v
	}
	return s, nil
}

func shortOut(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 400 {
		s = s[len(s)-400:]
	}
	return s
}

// runH2load runs h2load on cpus with args, then the URL.
func runH2load(cpus, url string, args ...string) (h2loadSummary, error) {
	cmd := exec.Command("taskset", append(append([]string{"-c", cpus, "h2load"}, args...), url)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return h2loadSummary{}, fmt.Errorf("h2load: %w: %s", err, shortOut(string(out)))
	}
	s, err := parseH2load(out)
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		s.ClientCPU = time.Duration(syscall.TimevalToNsec(ru.Utime) + syscall.TimevalToNsec(ru.Stime))
	}
	return s, err
}

// h2Args are h2load's arguments for one timed run of sc (warm, a warm-up
// first).
func (h *harness) h2Args(sc Scenario, warm bool) []string {
	d := h.s.Duration
	if warm {
		d = h.s.Warmup
	}
	secs := max(1, int(d.Round(time.Second).Seconds()))
	if sc.Churn {
		n := h2ChurnRate * secs
		// -r makes -c the number of connections made, n/c requests each:
		// one. A tenth of the rate every 100 ms.
		return []string{"-t", "1", "-c", strconv.Itoa(n), "-n", strconv.Itoa(n), "-m", "1",
			"-r", strconv.Itoa(h2ChurnRate / 10), "--rate-period", "100ms"}
	}
	return []string{"-t", "1", "-c", "1", "-m", strconv.Itoa(h2Streams), "-D", strconv.Itoa(secs)}
}

// h2Timed runs an h2-* scenario: a warm-up, then Runs runs.
func (h *harness) h2Timed(p *Proc, addr string, sc Scenario) *ScenarioResult {
	url := "https://" + addr + sc.Reqs[0].Path
	if _, err := runH2load(h.s.ClientCPUs, url, h.h2Args(sc, true)...); err != nil {
		return &ScenarioResult{Name: sc.Name, Failed: err.Error()}
	}
	return h.repeat(sc.Name, func() (Run, error) {
		c0 := p.CPU()
		w, err := runH2load(h.s.ClientCPUs, url, h.h2Args(sc, false)...)
		c1 := p.CPU()
		if err != nil {
			return Run{}, err
		}
		if w.Succeeded == 0 || w.Status3xx != w.Succeeded {
			return Run{}, fmt.Errorf("%d requests succeeded, %d of them redirects: want all", w.Succeeded, w.Status3xx)
		}
		wallUS := w.Seconds * 1e6
		r := Run{RPS: float64(w.Succeeded) / w.Seconds, P50US: w.MeanUS,
			CPUPerReqUS: float64((c1 - c0).Microseconds()) / float64(w.Succeeded),
			Errors:      w.Failed + w.Errored + w.Timeout,
			ServerBusy:  float64((c1 - c0).Microseconds()) / wallUS,
			ClientBusy:  float64(w.ClientCPU.Microseconds()) / wallUS}
		if sc.Churn {
			r.Rate = h2ChurnRate
		}
		return r, nil
	})
}

// verifyH2 checks sc's request over HTTP/2 (ALPN h2) with x/net's client.
func verifyH2(addr string, sc Scenario, f *TLSFiles) error {
	for _, r := range sc.Reqs {
		c, err := h2Conn(addr, f)
		if err != nil {
			return err
		}
		err = h2RoundTrip(c, r)
		c.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// h2Conn dials addr, negotiating HTTP/2 alone (net/http's client with
// only HTTP/2 among its Protocols), on a connection of its own.
func h2Conn(addr string, f *TLSFiles) (*http.ClientConn, error) {
	cfg := f.clientConfig()
	cfg.NextProtos = nil // the Transport sets them from Protocols
	tr := &http.Transport{TLSClientConfig: cfg, Protocols: new(http.Protocols)}
	tr.Protocols.SetHTTP2(true)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return tr.NewClientConn(ctx, "https", addr)
}

// h2RoundTrip asks for r on c and checks the answer's status and Location.
func h2RoundTrip(c *http.ClientConn, r Req) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", "https://"+tlsServerName+r.Path, nil)
	resp, err := c.RoundTrip(req)
	if err != nil {
		return fmt.Errorf("GET %s over h2: %w", r.Path, err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.ProtoMajor != 2 || resp.StatusCode != r.Want.Status || resp.Header.Get("Location") != r.Want.Location {
		return fmt.Errorf("GET %s over h2: HTTP/%d %d %q, want HTTP/2 %d %q", r.Path, resp.ProtoMajor, resp.StatusCode,
			resp.Header.Get("Location"), r.Want.Status, r.Want.Location)
	}
	return nil
}

// idleH2 is idleTLS for HTTP/2: the server's memory growth per idle h2
// connection, each of which did a full handshake and one request.
func (h *harness) idleH2(p *Proc, addr string, n int) *IdleResult {
	req := exactReq(h.s.Spec, false)
	return h.idle(p, "h2-idle", n, func(time.Time) (idleConn, error) {
		c, err := h2Conn(addr, h.tlsFiles)
		if err != nil {
			return idleConn{}, err
		}
		if err := h2RoundTrip(c, req); err != nil {
			c.Close()
			return idleConn{}, err
		}
		return idleConn{use: func() error { return h2RoundTrip(c, req) }, close: c.Close}, nil
	})
}
