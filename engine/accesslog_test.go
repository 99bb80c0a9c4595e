package engine_test

import (
	"bufio"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/engine/accesslog"
	"github.com/redirectd/redirectd/engine/upstream"
	"github.com/redirectd/redirectd/internal/testutil"
)

// logLayout is the layout TestAccessLogFields logs with: one field per
// variable whose value the engine supplies, '|' between.
const logLayout = `$host|$request|$status|$body_bytes_sent|$bytes_sent|$upstream_addr|$upstream_status|$http_x_request_id|$scheme|$request_uri|$args`

// TestAccessLogFields serves a redirect, a miss and a forward with a
// layout of $variables and checks what each line says against what the
// client received: Host, the body's bytes and the answer's, the upstream's
// address and status, a header field named by the layout.
func TestAccessLogFields(t *testing.T) {
	up := startUpstream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(201)
		io.WriteString(w, "from upstream\n")
	}))
	format, err := accesslog.ParseFormat(logLayout)
	if err != nil {
		t.Fatal(err)
	}
	logFile := filepath.Join(t.TempDir(), "access.log")
	alog, err := accesslog.Open(logFile, format)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { alog.Close() })
	pool := upstream.New(upstream.Config{Servers: []string{up}, ConnectTimeout: time.Second, ReadTimeout: 5 * time.Second,
		WriteTimeout: 5 * time.Second, MaxConnsPerServer: 4}, nil)
	t.Cleanup(pool.Close)
	srv := startServerWith(t, engine.Options{Upstream: &engine.UpstreamOptions{Pool: pool}, AccessLog: alog})
	scheme := "http"
	// Sent one at a time, so that the lines come in order.
	var want []string
	for _, r := range []struct{ target, host, fields string }{
		{"/old", "Example.COM:8080", "X-Request-Id: r1\r\n"},
		{"/elsewhere?a=1", "www.example.", ""},
	} {
		c := dial(t, srv)
		io.WriteString(c, "GET "+r.target+" HTTP/1.1\r\nHost: "+r.host+"\r\n"+r.fields+"Connection: close\r\n\r\n")
		answer, err := io.ReadAll(c)
		c.Close()
		if err != nil {
			t.Fatal(err)
		}
		head, body, _ := strings.Cut(string(answer), "\r\n\r\n")
		status := head[9:12]
		upAddr, upStatus := "-", "-"
		if status == "201" {
			upAddr, upStatus = up, "201"
		}
		host := strings.ToLower(strings.TrimSuffix(strings.Split(r.host, ":")[0], "."))
		reqID := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(r.fields), "X-Request-Id:"))
		if reqID == "" {
			reqID = "-"
		}
		args := "-"
		if _, q, ok := strings.Cut(r.target, "?"); ok {
			args = q
		}
		want = append(want, strings.Join([]string{host, "GET " + r.target + " HTTP/1.1", status,
			strconv.Itoa(len(body)), strconv.Itoa(len(answer)), upAddr, upStatus, reqID, scheme, r.target, args}, "|"))
	}
	// Each connection may be on another loop, whose buffer is flushed
	// on its own.
	got := readLines(t, logFile, len(want))
	sort.Strings(got)
	sort.Strings(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("log lines (-want +got):\n%s", diff)
	}
	if !strings.HasPrefix(want[0], "example.com|GET /old HTTP/1.1|301|0|") {
		t.Errorf("the redirect's line %q: want Host example.com and 0 body bytes", want[0])
	}
}

// TestAccessLogDuration checks that a local answer's duration is
// measured, from the read that brought the request's first byte: a head
// sent in two parts 100 ms apart logs about 100 ms, and one sent whole
// less, but more than nothing.
func TestAccessLogDuration(t *testing.T) {
	logFile := filepath.Join(t.TempDir(), "access.log")
	alog, err := accesslog.Open(logFile, accesslog.Combined)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { alog.Close() })
	srv := startServerWith(t, engine.Options{AccessLog: alog})
	c := dial(t, srv)
	br := bufio.NewReader(c)
	io.WriteString(c, "GET /old HTTP/1.1\r\nHo")
	// Once the server has read the first part, 100 ms pass before the
	// second: the time the answer's duration is to count.
	waitHeld(t, srv, len("GET /old HTTP/1.1\r\nHo"))
	time.Sleep(100 * time.Millisecond)
	io.WriteString(c, "st: a\r\n\r\n")
	readFull(t, br, "GET")
	readLines(t, logFile, 1) // the first line is written before the second request
	io.WriteString(c, "GET /old HTTP/1.1\r\nHost: a\r\n\r\n")
	readFull(t, br, "GET")
	lines := readLines(t, logFile, 2)
	split, whole := durationOf(t, lines[0]), durationOf(t, lines[1])
	if split < 100*time.Millisecond || split > time.Minute {
		t.Errorf("a head sent in two parts 100 ms apart logged %v", split)
	}
	if whole <= 0 || whole >= split {
		t.Errorf("a head sent whole logged %v (the split one %v); want more than 0, less than the split one", whole, split)
	}
}

// durationOf returns the duration field of a combined line: seconds with
// six decimals, after the Location.
func durationOf(t *testing.T, line string) time.Duration {
	t.Helper()
	m := durationField.FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("no duration in %q", line)
	}
	d, _ := strconv.ParseFloat(m[1], 64)
	return time.Duration(d * float64(time.Second))
}

var durationField = regexp.MustCompile(`" (\d+\.\d{6}) "`)

// readLines waits until the log file holds n lines (the loops flush their
// buffers every tick) and returns them.
func readLines(t *testing.T, file string, n int) []string {
	t.Helper()
	var lines []string
	testutil.Eventually(testutil.Patience, func() bool {
		data, _ := os.ReadFile(file)
		lines = strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		if len(data) == 0 {
			lines = nil
		}
		return len(lines) >= n
	})
	return lines
}
