package engine_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/engine/accesslog"
	"github.com/redirectd/redirectd/engine/upstream"
	"github.com/redirectd/redirectd/internal/testutil"
	"github.com/redirectd/redirectd/matcher"
)

// get sends one raw GET for path over a new connection and returns its answer.
func get(t *testing.T, srv *engine.Server, path string) answer {
	t.Helper()
	c := dial(t, srv)
	if _, err := c.Write([]byte("GET " + path + " HTTP/1.1\r\nHost: site.example\r\nConnection: close\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	return readAnswer(t, bufio.NewReader(c), "GET")
}

// TestWindowStartsAndStops checks that a rule's window opens and closes at
// its instants while the server runs, without a reload: one rule whose
// window ends and one whose window starts at an edge on the server's
// (fake) clock, each hiding or revealing the plain rule of the same path,
// a millisecond before the edge and at it.
func TestWindowStartsAndStops(t *testing.T) {
	srv := plainTCP.startClocked(t, engine.Options{})
	edge := srv.clk.Now().Add(time.Hour)
	set, err := matcher.Compile([]matcher.Rule{
		{From: "/ending", To: "/in-window", Status: 302, Active: matcher.Window{Until: edge}},
		{From: "/ending", To: "/after", Status: 301},
		{From: "/starting", To: "/started", Status: 302, Active: matcher.Window{From: edge}},
	})
	if err != nil {
		t.Fatal(err)
	}
	srv.Swap(set)
	srv.advance(time.Hour - time.Millisecond)
	before := []answer{get(t, srv.Server, "/ending"), get(t, srv.Server, "/starting")}
	want := []answer{{Status: 302, Location: "/in-window", Close: true}, {Status: 404, Body: "not found\n", Close: true}}
	if diff := cmp.Diff(want, before); diff != "" {
		t.Errorf("before the edge (-want +got):\n%s", diff)
	}
	srv.advance(time.Millisecond)
	after := []answer{get(t, srv.Server, "/ending"), get(t, srv.Server, "/starting")}
	want = []answer{{Status: 301, Location: "/after", Close: true}, {Status: 302, Location: "/started", Close: true}}
	if diff := cmp.Diff(want, after); diff != "" {
		t.Errorf("at the edge (-want +got):\n%s", diff)
	}
}

// shadowLine is what TestShadowRule reads of an access-log line.
type shadowLine struct {
	Target         string `json:"target"`
	Status         int    `json:"status"`
	Upstream       string `json:"upstream"`
	Rule           string `json:"rule"`
	ShadowRule     string `json:"shadow_rule"`
	ShadowLocation string `json:"shadow_location"`
}

// TestShadowRule checks that a shadow rule leaves the answer as it would
// be without it (the live rule, a 404, the upstream's answer) while the
// access log names it with its would-be Location and its count grows.
func TestShadowRule(t *testing.T) {
	for _, forward := range []bool{false, true} {
		name := "no upstream"
		if forward {
			name = "upstream"
		}
		t.Run(name, func(t *testing.T) {
			var opts engine.Options
			if forward {
				pool := upstream.New(upstream.Config{Servers: []string{startUpstream(t, echoUpstream("a"))},
					ConnectTimeout: time.Second, ReadTimeout: 5 * time.Second, WriteTimeout: 5 * time.Second, MaxConnsPerServer: 8}, nil)
				t.Cleanup(pool.Close)
				opts.Upstream = &engine.UpstreamOptions{Pool: pool}
			}
			logFile := filepath.Join(t.TempDir(), "access.log")
			alog, err := accesslog.Open(logFile, accesslog.JSON)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { alog.Close() })
			opts.AccessLog = alog
			srv := startServerWith(t, opts)
			set, err := matcher.Compile([]matcher.Rule{
				{Kind: matcher.Regex, From: `^/new/(\d+)$`, To: "https://new.example/p/$1", Status: 301, Shadow: true, File: "new.map", Line: 7},
				{From: "/both", To: "/shadow-both", Status: 308, Shadow: true, File: "new.map", Line: 8},
				{From: "/both", To: "/live-both", Status: 301, File: "rules.toml", Line: 3},
			})
			if err != nil {
				t.Fatal(err)
			}
			srv.Swap(set)

			missStatus := 404
			if forward {
				missStatus = 200
			}
			if got := get(t, srv, "/new/42"); got.Status != missStatus || got.Location != "" {
				t.Errorf("/new/42: %+v, want status %d without Location: a shadow rule answers nothing", got, missStatus)
			}
			if got := get(t, srv, "/both"); got.Status != 301 || got.Location != "/live-both" {
				t.Errorf("/both: %+v, want the live rule's 301 /live-both", got)
			}
			if got := get(t, srv, "/other"); got.Status != missStatus {
				t.Errorf("/other: %+v, want %d", got, missStatus)
			}
			upstreamAddr := ""
			if forward {
				upstreamAddr = "x" // any: compared as non-empty below
			}
			want := []shadowLine{
				{Target: "/new/42", Status: missStatus, Upstream: upstreamAddr, ShadowRule: "new.map:7", ShadowLocation: "https://new.example/p/42"},
				{Target: "/both", Status: 301, Rule: "rules.toml:3", ShadowRule: "new.map:8", ShadowLocation: "/shadow-both"},
				{Target: "/other", Status: missStatus, Upstream: upstreamAddr},
			}
			got := readShadowLines(t, logFile, len(want))
			// Each event loop hands over its own lines: order by target.
			byTarget := func(a, b shadowLine) int { return strings.Compare(a.Target, b.Target) }
			slices.SortFunc(want, byTarget)
			slices.SortFunc(got, byTarget)
			for i := range got {
				if got[i].Upstream != "" {
					got[i].Upstream = "x"
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("access log (-want +got):\n%s", diff)
			}
			counts := map[string][2]uint64{}
			srv.Rules().Each(func(r matcher.RuleHits) { counts[r.Source()] = [2]uint64{r.Hits, r.ShadowHits} })
			wantCounts := map[string][2]uint64{"new.map:7": {0, 1}, "new.map:8": {0, 1}, "rules.toml:3": {1, 0}}
			if diff := cmp.Diff(wantCounts, counts); diff != "" {
				t.Errorf("hits, shadow hits (-want +got):\n%s", diff)
			}
		})
	}
}

// readShadowLines waits for the access log to hold n lines (loops hand
// theirs over every tick) and returns them.
func readShadowLines(t *testing.T, file string, n int) []shadowLine {
	t.Helper()
	var lines []string
	testutil.Eventually(testutil.Patience, func() bool {
		data, _ := os.ReadFile(file)
		lines = strings.Split(strings.TrimSpace(string(data)), "\n")
		return len(lines) >= n && lines[0] != ""
	})
	var out []shadowLine
	for _, l := range lines {
		var sl shadowLine
		if err := json.Unmarshal([]byte(l), &sl); err != nil {
			t.Fatalf("access log line %q: %v", l, err)
		}
		out = append(out, sl)
	}
	return out
}
