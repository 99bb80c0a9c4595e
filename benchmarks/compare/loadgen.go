package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// Debian has no wrk2, so fixed-rate load is generated here: `compare
// loadgen`, run pinned to the client CPUs. One pacer thread wakes at each
// request's due time (nanosleep with a 1 us timer slack: Go's own timers
// round sub-millisecond sleeps up to 1 ms) and hands the request to the
// next connection in turn; each connection sends what it is handed in
// order. A request's latency runs from when the pacer handed it over, not
// from when its connection was free to send it, so time spent queued
// behind a slow answer counts (coordinated omission corrected, as wrk2
// does). The pacer's own lateness (its wake-up after the due time) is
// reported apart as pacer_lag and not counted.

// LoadResult is what loadgen prints, as JSON.
type LoadResult struct {
	Rate       float64 `json:"rate"`     // asked
	Achieved   float64 `json:"achieved"` // answers per second in the measured part
	Requests   int     `json:"requests"` // answered in the measured part
	Total      int     `json:"total"`    // answered, warm-up included
	Errors     int     `json:"errors"`
	P50US      float64 `json:"p50_us"`
	P99US      float64 `json:"p99_us"`
	P999US     float64 `json:"p999_us"`
	PacerLagUS float64 `json:"pacer_lag_p99_us"`
	FirstError string  `json:"first_error,omitempty"`
}

// loadgenMain is `compare loadgen`: flags in, one JSON LoadResult out.
func loadgenMain(args []string) error {
	fs := flag.NewFlagSet("loadgen", flag.ContinueOnError)
	addr := fs.String("addr", "", "server host:port")
	rate := fs.Float64("rate", 1000, "requests per second, all connections together")
	conns := fs.Int("c", 100, "keep-alive connections")
	warm := fs.Duration("warmup", 2*time.Second, "load not measured, first")
	d := fs.Duration("d", 10*time.Second, "measured time")
	reqFile := fs.String("requests", "", "file of raw requests, one after another")
	if err := fs.Parse(args); err != nil {
		return err
	}
	// One P more than the CPUs taskset gave: the pacer's thread sleeps in a
	// system call holding its P, and the connections must not wait for the
	// runtime to take it back.
	runtime.GOMAXPROCS(runtime.NumCPU() + 1)
	data, err := os.ReadFile(*reqFile)
	if err != nil {
		return err
	}
	reqs := splitRequests(data)
	if len(reqs) == 0 || *addr == "" || *rate <= 0 || *conns <= 0 {
		return fmt.Errorf("loadgen: need -addr, -requests with at least one request, -rate > 0 and -c > 0")
	}
	res, err := fixedRate(*addr, reqs, *rate, *conns, *warm, *d)
	if err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(res)
}

// splitRequests cuts a file of requests without bodies at each blank line.
func splitRequests(data []byte) [][]byte {
	var out [][]byte
	for len(data) > 0 {
		i := bytes.Index(data, []byte("\r\n\r\n"))
		if i < 0 {
			break
		}
		out = append(out, data[:i+4])
		data = data[i+4:]
	}
	return out
}

type job struct {
	req   []byte
	sent  time.Time // when the pacer handed it over
	count bool      // in the measured part
}

// fixedRate runs the load and summarises the measured part.
func fixedRate(addr string, reqs [][]byte, rate float64, conns int, warm, d time.Duration) (LoadResult, error) {
	queues := make([]chan job, conns)
	lat := make([][]time.Duration, conns)
	var counts loadCounts
	var wg sync.WaitGroup
	for i := range conns {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			return LoadResult{}, err
		}
		defer c.Close()
		// Deep enough for the connection to fall a second behind.
		queues[i] = make(chan job, int(rate)/conns+16)
		lat[i] = make([]time.Duration, 0, int(rate*d.Seconds())/conns+16)
		wg.Add(1)
		go func(i int, c net.Conn) {
			defer wg.Done()
			counts.send(c, queues[i], &lat[i])
		}(i, c)
	}
	var lags []time.Duration
	done := make(chan struct{})
	go func() {
		defer close(done)
		lags = pace(queues, reqs, rate, warm, d, &counts)
	}()
	<-done
	for _, q := range queues {
		close(q)
	}
	wg.Wait()
	return summarise(lat, lags, &counts, rate, d), nil
}

// loadCounts counts what fixedRate's connections send, from all of
// them at once.
type loadCounts struct {
	errs, total atomic.Int64
	firstErr    atomic.Value // string
}

// fail counts an error, keeping the first one's text.
func (n *loadCounts) fail(msg string) {
	n.errs.Add(1)
	n.firstErr.CompareAndSwap(nil, msg)
}

// send sends the jobs of q over c one at a time, each after the answer
// to the one before, appending the latency of those measured to lat.
func (n *loadCounts) send(c net.Conn, q <-chan job, lat *[]time.Duration) {
	br := bufio.NewReaderSize(c, 64<<10)
	broken := false
	for j := range q {
		if broken {
			continue
		}
		_, err := c.Write(j.req)
		if err == nil {
			_, err = readAnswer(br, false)
		}
		if err != nil {
			n.fail(err.Error())
			broken = true // the rest of this connection's jobs are dropped and counted as missing
			continue
		}
		n.total.Add(1)
		if j.count {
			*lat = append(*lat, time.Since(j.sent))
		}
	}
}

// pace hands reqs in turn to the queues at rate for warm and then d,
// and returns how late each hand-over was. It holds its own OS thread
// so that it sleeps in nanosleep, not in the Go scheduler.
func pace(queues []chan job, reqs [][]byte, rate float64, warm, d time.Duration, counts *loadCounts) []time.Duration {
	runtime.LockOSThread()
	unix.Prctl(unix.PR_SET_TIMERSLACK, 1000, 0, 0, 0)
	interval := time.Duration(float64(time.Second) / rate)
	var lags []time.Duration
	start := time.Now().Add(10 * time.Millisecond)
	measureFrom, end := start.Add(warm), start.Add(warm+d)
	n := 0
	for due := start; due.Before(end); due = due.Add(interval) {
		if wait := time.Until(due); wait > 0 {
			ts := unix.NsecToTimespec(wait.Nanoseconds())
			unix.Nanosleep(&ts, nil)
		}
		now := time.Now()
		lags = append(lags, now.Sub(due))
		select {
		case queues[n%len(queues)] <- job{req: reqs[n%len(reqs)], sent: now, count: !due.Before(measureFrom)}:
		default: // a connection a whole second behind: count it as an error, not a wait
			counts.fail("a connection fell more than a second behind")
		}
		n++
	}
	return lags
}

// summarise turns the latencies of the measured part and the pacer's
// lags into fixedRate's result.
func summarise(lat [][]time.Duration, lags []time.Duration, counts *loadCounts, rate float64, d time.Duration) LoadResult {
	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	slices.Sort(all)
	slices.Sort(lags)
	us := func(s []time.Duration, q float64) float64 {
		if len(s) == 0 {
			return 0
		}
		return float64(s[min(len(s)-1, int(q*float64(len(s))))].Nanoseconds()) / 1e3
	}
	res := LoadResult{Rate: rate, Requests: len(all), Total: int(counts.total.Load()), Errors: int(counts.errs.Load()),
		Achieved: float64(len(all)) / d.Seconds(),
		P50US:    us(all, 0.50), P99US: us(all, 0.99), P999US: us(all, 0.999), PacerLagUS: us(lags, 0.99)}
	if e, ok := counts.firstErr.Load().(string); ok {
		res.FirstError = e
	}
	return res
}
