package console

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// requestsFamily is the counter of answers by outcome that the overview
// turns into rates.
const requestsFamily = "redirectd_requests_total{"

// outcomeScanner is an io.Writer that keeps only the sums of
// redirectd_requests_total by outcome from a metrics exposition written
// to it, line by line, so the overview never holds a whole /metrics
// body (large with many rules).
type outcomeScanner struct {
	partial []byte
	sums    map[string]float64
}

func (o *outcomeScanner) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			if len(o.partial) < 4096 { // a line longer is no sample of ours
				o.partial = append(o.partial, p...)
			}
			break
		}
		o.line(append(o.partial, p[:i]...))
		o.partial, p = o.partial[:0], p[i+1:]
	}
	return n, nil
}

// line adds one sample line `redirectd_requests_total{outcome="x",...} v`.
func (o *outcomeScanner) line(b []byte) {
	s, ok := strings.CutPrefix(string(b), requestsFamily)
	if !ok {
		return
	}
	labels, value, ok := strings.Cut(s, "} ")
	if !ok {
		return
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
	if err != nil {
		return
	}
	for _, l := range strings.Split(labels, ",") {
		if out, ok := strings.CutPrefix(l, `outcome="`); ok {
			o.sums[strings.TrimSuffix(out, `"`)] += v
		}
	}
}

// rate is one outcome's answers per second over the window.
type rate struct {
	Outcome   string
	PerSecond float64
	Total     uint64
}

// rateSampler keeps the last sample of the counters; each look at the
// overview compares the counters now with it, so the rate is over the
// time since the previous look (at least minWindow: looks closer than
// that reuse the previous rates).
type rateSampler struct {
	mu     sync.Mutex
	at     time.Time
	sums   map[string]float64
	last   []rate
	window float64
}

const minWindow = time.Second

// sample returns the rates and the window they cover in seconds; nil
// on the first look.
func (rs *rateSampler) sample(write func(*outcomeScanner), now time.Time) ([]rate, float64) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.sums != nil && now.Sub(rs.at) < minWindow {
		return rs.last, rs.window
	}
	o := &outcomeScanner{sums: map[string]float64{}}
	write(o)
	if rs.sums != nil {
		dt := now.Sub(rs.at).Seconds()
		rs.last = rs.last[:0]
		for name, v := range o.sums {
			rs.last = append(rs.last, rate{Outcome: name, PerSecond: max(0, v-rs.sums[name]) / dt, Total: uint64(v)})
		}
		slices.SortFunc(rs.last, func(a, b rate) int { return strings.Compare(a.Outcome, b.Outcome) })
		rs.window = dt
	}
	rs.at, rs.sums = now, o.sums
	return rs.last, rs.window
}
