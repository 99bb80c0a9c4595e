package console

import (
	"bufio"
	"cmp"
	"fmt"
	"iter"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redirectd/redirectd/internal/safego"
)

// historyDays is how many days of hits the history keeps.
const historyDays = 30

// historyKeep is how many rules a day's file keeps: the most hit.
const historyKeep = 10000

// historyEvery is how often the history samples the hit counters when
// no page does: a sample lists every rule (about a second for a million),
// so a quarter of an hour costs the server a thousandth of a CPU.
const historyEvery = 15 * time.Minute

// hitHistory counts each rule's hits a day (UTC), for the most hit
// rules, from samples of the rules' hit counters (each index built, and
// every historyEvery): a rule's hits since the last sample of the same
// version are added to its day's count. Memory is bounded: today's
// counts hold at most twice keep rules (past that the least hit are
// dropped, so a count near the bottom may be low), and the hits of the
// last sample (eight bytes a rule). Each day is a file in dir,
// "hits-2026-12-06.txt", of its keep most hit rules (written at most
// once a minute, and at the day's end); files older than historyDays go.
// The hits between the last sample before a restart or a version change
// and that event are not counted.
type hitHistory struct {
	dir  string
	keep int
	mu   sync.Mutex
	day  string
	// counts are today's hits by rule (historyKey).
	counts    map[string]uint64
	version   string
	prev      []uint64 // the hits of the last sample, in index order
	sampled   bool
	lastWrite time.Time
}

func newHitHistory(dir string) (*hitHistory, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return &hitHistory{dir: dir, keep: historyKeep}, nil
}

// historyKey is a rule's key in the history: its host and from.
func historyKey(host, from string) string { return host + "\x00" + from }

func (h *hitHistory) file(day string) string { return filepath.Join(h.dir, "hits-"+day+".txt") }

// observe adds the hits of x's rules since the last sample to today's
// counts. The first sample of the process counts every hit since start.
func (h *hitHistory) observe(x *index, now time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	day := now.UTC().Format(time.DateOnly)
	if day != h.day {
		if h.day != "" {
			h.write()
			h.expire(now)
		}
		h.day, h.counts = day, h.read(day)
	}
	same := h.sampled && x.version == h.version && len(h.prev) == len(x.rules)
	if !h.sampled || same {
		for i := range x.rules {
			n := x.rules[i].Hits + x.rules[i].ShadowHits
			if same {
				n -= min(n, h.prev[i]) // counters restart at a version's load
			}
			if n > 0 {
				h.counts[historyKey(x.rules[i].Host, x.rules[i].From)] += n
			}
		}
	}
	h.sampled, h.version = true, x.version
	h.prev = slices.Grow(h.prev[:0], len(x.rules))[:len(x.rules)]
	for i := range x.rules {
		h.prev[i] = x.rules[i].Hits + x.rules[i].ShadowHits
	}
	if len(h.counts) > 2*h.keep {
		h.counts = toMap(h.top())
	}
	if now.Sub(h.lastWrite) >= time.Minute {
		h.write()
		h.lastWrite = now
	}
}

type keyCount struct {
	key string
	n   uint64
}

// top returns today's keep most hit rules, the most hit first.
func (h *hitHistory) top() []keyCount {
	list := make([]keyCount, 0, len(h.counts))
	for k, n := range h.counts {
		list = append(list, keyCount{k, n})
	}
	slices.SortFunc(list, func(a, b keyCount) int { return cmp.Or(cmp.Compare(b.n, a.n), strings.Compare(a.key, b.key)) })
	return list[:min(len(list), h.keep)]
}

func toMap(list []keyCount) map[string]uint64 {
	m := make(map[string]uint64, len(list))
	for _, kc := range list {
		m[kc.key] = kc.n
	}
	return m
}

// write saves today's file (a temporary name, renamed): one rule a line,
// its count and its host and from quoted. An error leaves the old file;
// the next write tries again.
func (h *hitHistory) write() {
	tmp := h.file(h.day) + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return
	}
	bw := bufio.NewWriter(f)
	for _, kc := range h.top() {
		host, from, _ := strings.Cut(kc.key, "\x00")
		fmt.Fprintf(bw, "%d %s %s\n", kc.n, strconv.Quote(host), strconv.Quote(from))
	}
	if bw.Flush() != nil || f.Close() != nil {
		os.Remove(tmp)
		return
	}
	os.Rename(tmp, h.file(h.day))
}

// read returns the counts of day's file; none when it is missing.
func (h *hitHistory) read(day string) map[string]uint64 {
	m := map[string]uint64{}
	for key, n := range h.lines(day) {
		m[key] = n
	}
	return m
}

// lines yields the key and count of each line of day's file, in order,
// up to the first line that does not parse: a file cut short keeps the
// lines before. A missing file has none.
func (h *hitHistory) lines(day string) iter.Seq2[string, uint64] {
	return func(yield func(string, uint64) bool) {
		f, err := os.Open(h.file(day))
		if err != nil {
			return
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			n, host, from, ok := parseHistoryLine(sc.Text())
			if !ok || !yield(historyKey(host, from), n) {
				return
			}
		}
	}
}

func parseHistoryLine(line string) (n uint64, host, from string, ok bool) {
	num, rest, _ := strings.Cut(line, " ")
	n, err := strconv.ParseUint(num, 10, 64)
	if err != nil {
		return 0, "", "", false
	}
	q, err := strconv.QuotedPrefix(rest)
	if err != nil {
		return 0, "", "", false
	}
	host, _ = strconv.Unquote(q)
	rest = strings.TrimPrefix(rest[len(q):], " ")
	if from, err = strconv.Unquote(rest); err != nil {
		return 0, "", "", false
	}
	return n, host, from, true
}

// expire removes the files of days before the history's.
func (h *hitHistory) expire(now time.Time) {
	oldest := now.UTC().AddDate(0, 0, -historyDays+1).Format(time.DateOnly)
	names, _ := filepath.Glob(filepath.Join(h.dir, "hits-*.txt"))
	for _, name := range names {
		day := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(name), "hits-"), ".txt")
		if day < oldest {
			os.Remove(name)
		}
	}
}

// dayCount is one day of a rule's history.
type dayCount struct {
	Day string
	N   uint64
}

// rule returns the hits of host and from on each of the last
// historyDays days, the oldest first: 0 for a day it was not among the
// most hit.
func (h *hitHistory) rule(host, from string, now time.Time) []dayCount {
	key := historyKey(host, from)
	out := make([]dayCount, historyDays)
	for i := range out {
		out[i].Day = now.UTC().AddDate(0, 0, i-historyDays+1).Format(time.DateOnly)
	}
	h.mu.Lock()
	today, n := h.day, h.counts[key]
	h.mu.Unlock()
	for i := range out {
		if out[i].Day == today {
			out[i].N = n
			continue
		}
		out[i].N = h.lookup(out[i].Day, key)
	}
	return out
}

// lookup reads day's file for key, line by line (at most keep lines),
// so a look at a rule's history holds no day in memory.
func (h *hitHistory) lookup(day, key string) uint64 {
	for k, n := range h.lines(day) {
		if k == key {
			return n
		}
	}
	return 0
}

// sample samples the hit counters every historyEvery, for the life of
// the process, when no page does.
func (c *Console) sample() {
	safego.Go("console hit history", func() {
		for range time.Tick(historyEvery) {
			c.rules.get(time.Now())
		}
	})
}

// hitsData is a rule's history page: its days, and the chart's bars.
type hitsData struct {
	Host, From string
	Days       []dayCount
	Bars       []bar
	Max, Total uint64
	Off        string
}

// bar is one day's bar of the chart (an inline SVG: no script, and the
// page's policy allows no other image source).
type bar struct {
	X, Y, H int
	Title   string
}

// chartHeight is the chart's height in pixels; each day's bar is
// barWidth wide.
const (
	chartHeight = 80
	barWidth    = 12
)

// hitsPage shows a rule's hits a day over the last 30 days, as a small
// bar chart and a table.
func (c *Console) hitsPage(w http.ResponseWriter, r *http.Request, u *user) {
	q := r.URL.Query()
	d := hitsData{Host: q.Get("host"), From: q.Get("from")}
	if !u.who.Allows(d.Host) {
		c.fail(w, r, u, http.StatusForbidden, "your token does not cover host "+strconv.Quote(cut(d.Host)))
		return
	}
	if c.hist == nil {
		d.Off = "This server keeps no hit history: it is kept with [admin] edits_dir set."
		c.render(w, http.StatusOK, "hits", "Hit history", u, d)
		return
	}
	d.Days = c.hist.rule(d.Host, d.From, c.now())
	for _, dc := range d.Days {
		d.Max, d.Total = max(d.Max, dc.N), d.Total+dc.N
	}
	for i, dc := range d.Days {
		h := 0
		if d.Max > 0 {
			h = int(float64(dc.N) / float64(d.Max) * chartHeight)
		}
		d.Bars = append(d.Bars, bar{X: i * barWidth, Y: chartHeight - h, H: h, Title: dc.Day + ": " + thousands(strconv.FormatUint(dc.N, 10))})
	}
	c.render(w, http.StatusOK, "hits", "Hit history", u, d)
}
