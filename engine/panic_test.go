package engine_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/engine/upstream"
	"github.com/redirectd/redirectd/internal/testutil"
	"github.com/redirectd/redirectd/matcher"
)

// TestPanicRecovered injects a panic, through the test hook, at each place
// where one is recovered (OnOpen, OnTraffic, OnClose, the deadline sweep,
// a forwarded request's goroutine, a tunnel's), and checks each time that
// the connection concerned is closed, that the panic is logged with its
// stack and counted, that a keep-alive connection opened before is still
// served, and that no connection stays counted.
// Without the recovery, the first panic ends the test binary.
func TestPanicRecovered(t *testing.T) {
	up := startUpstream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "from upstream") }))
	pool := upstream.New(upstream.Config{Servers: []string{up}, ConnectTimeout: time.Second, ReadTimeout: 5 * time.Second,
		WriteTimeout: 5 * time.Second, MaxConnsPerServer: 8}, nil)
	t.Cleanup(pool.Close)
	set, err := matcher.Compile(testRules)
	if err != nil {
		t.Fatal(err)
	}
	var logs testutil.LockedBuffer
	srv := engine.New(engine.Options{Listen: "127.0.0.1:0", EventLoops: 2, IdleTimeout: time.Minute,
		Upstream: &engine.UpstreamOptions{Pool: pool}, Logger: slog.New(slog.NewTextHandler(&logs, nil))}, set)
	var armed sync.Map // place -> *atomic.Bool: panic there once
	arm := func(at string) *atomic.Bool {
		b := &atomic.Bool{}
		b.Store(true)
		armed.Store(at, b)
		return b
	}
	engine.SetPanicHook(srv, func(at string, data []byte) {
		if at == "traffic" && bytes.Contains(data, []byte("/panic")) {
			panic("injected in traffic")
		}
		if b, ok := armed.Load(at); ok && b.(*atomic.Bool).CompareAndSwap(true, false) {
			panic("injected in " + at)
		}
	})
	runServer(t, srv)

	// served sends one request on a new connection and returns the
	// answer's status, or 0 when the connection closes without one.
	served := func(req string) int {
		t.Helper()
		c := dial(t, srv)
		defer c.Close()
		io.WriteString(c, req)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			return 0
		}
		io.Copy(io.Discard, resp.Body)
		return resp.StatusCode
	}
	keep := dial(t, srv)
	keepBR := bufio.NewReader(keep)
	stillServing := func(after string) {
		t.Helper()
		keep.SetDeadline(time.Now().Add(testutil.Patience))
		io.WriteString(keep, "GET /old HTTP/1.1\r\nHost: a\r\n\r\n")
		if a := readAnswer(t, keepBR, "GET"); a.Status != 301 {
			t.Errorf("after a panic in %s, the connection opened before got %d", after, a.Status)
		}
		if st := served("GET /old HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"); st != 301 {
			t.Errorf("after a panic in %s, a new connection got %d, want 301", after, st)
		}
		if st := served("GET /miss HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"); st != 200 {
			t.Errorf("after a panic in %s, a forwarded request got %d, want 200", after, st)
		}
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("log:\n%s", logs.String())
		}
	})
	stillServing("nothing")

	const ws = "GET /ws HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
	for _, tt := range []struct{ at, req string }{
		{"traffic", "GET /panic HTTP/1.1\r\nHost: a\r\n\r\n"},
		{"open", "GET /old HTTP/1.1\r\nHost: a\r\n\r\n"},
		{"forward", "GET /miss HTTP/1.1\r\nHost: a\r\n\r\n"},
		{"tunnel", ws},
	} {
		fired := &atomic.Bool{}
		if tt.at != "traffic" { // which panics on /panic
			fired = arm(tt.at)
		}
		if st := served(tt.req); st != 0 {
			t.Errorf("panic in %s: the connection got %d, want closed without an answer", tt.at, st)
		}
		if fired.Load() {
			t.Errorf("panic in %s: the hook did not fire", tt.at)
		}
		stillServing(tt.at)
	}
	// A forward's AsyncWrite callback runs on the loop: its answer was
	// written before the callback, so it may arrive, and then the
	// connection closes, although it was keep-alive.
	// The hook fires in whichever callback runs next: wait until the
	// forwards before are done (their callbacks run before the server
	// sees their connections close).
	testutil.WaitFor(t, 30*time.Second, "the earlier connections closed", func() bool {
		return strings.Contains(metricsOf(srv), "redirectd_connections_open 1\n")
	})
	fired := arm("callback")
	c := dial(t, srv)
	io.WriteString(c, "GET /miss HTTP/1.1\r\nHost: a\r\n\r\n")
	if _, err := io.ReadAll(c); err != nil && !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("panic in a callback: the connection was not closed: %v", err)
	}
	c.Close()
	if fired.Load() {
		t.Errorf("panic in callback: the hook did not fire")
	}
	testutil.WaitFor(t, 30*time.Second, "the callback panic counted", func() bool {
		return strings.Contains(metricsOf(srv), `redirectd_panics_total{at="callback"} 1`)
	})
	stillServing("callback")

	fired = arm("close")
	if st := served("GET /old HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"); st != 301 {
		t.Errorf("before a panic in close: %d, want 301", st)
	}
	testutil.WaitFor(t, 30*time.Second, "the close hook", func() bool { return !fired.Load() })
	stillServing("close")

	// Every connection but keep is closed: none stays counted.
	testutil.WaitFor(t, 30*time.Second, "one connection open", func() bool {
		return strings.Contains(metricsOf(srv), "redirectd_connections_open 1\n")
	})

	// The sweep's panic closes one of the two open connections, whichever
	// it checks first; the server goes on serving.
	second := dial(t, srv)
	io.WriteString(second, "GET /old HTTP/1.1\r\nHost: a\r\n\r\n")
	readAnswer(t, bufio.NewReader(second), "GET")
	fired = arm("sweep")
	testutil.WaitFor(t, 30*time.Second, "the sweep hook", func() bool { return !fired.Load() })
	if st := served("GET /old HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"); st != 301 {
		t.Errorf("after a panic in the sweep, a new connection got %d, want 301", st)
	}
	testutil.WaitFor(t, 30*time.Second, "one connection closed by the sweep", func() bool {
		return strings.Contains(metricsOf(srv), "redirectd_connections_open 1\n")
	})

	// The ticker goes on after a panic: it still hands out sweeps (this
	// one panics too, closing the connection left open).
	fired = arm("tick")
	testutil.WaitFor(t, 30*time.Second, "the tick hook", func() bool { return !fired.Load() })
	fired = arm("sweep")
	testutil.WaitFor(t, 30*time.Second, "a sweep after the tick's panic", func() bool { return !fired.Load() })
	if st := served("GET /old HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"); st != 301 {
		t.Errorf("after a panic in the ticker, a new connection got %d, want 301", st)
	}

	m := metricsOf(srv)
	if want := `redirectd_panics_total{at="tick"} 1`; !strings.Contains(m, want+"\n") {
		t.Errorf("metrics lack %s", want)
	}
	if want := `redirectd_panics_total{at="sweep"} 2`; !strings.Contains(m, want+"\n") {
		t.Errorf("metrics lack %s", want)
	}
	for _, at := range []string{"open", "traffic", "close", "forward", "tunnel"} {
		if want := fmt.Sprintf(`redirectd_panics_total{at=%q} 1`, at); !strings.Contains(m, want+"\n") {
			t.Errorf("metrics lack %s", want)
		}
	}
	l := logs.String()
	for _, at := range []string{"open", "traffic", "close", "sweep", "forward", "tunnel"} {
		if !strings.Contains(l, `"panic recovered; the connection is closed" at=`+at+" client=127.0.0.1 panic=\"injected in "+at) {
			t.Errorf("no log line for the panic in %s", at)
		}
	}
	if !strings.Contains(l, `"panic recovered in the ticker" at=tick panic="injected in tick"`) {
		t.Errorf("no log line for the panic in the ticker")
	}
	if !strings.Contains(l, "stack=\"goroutine ") || !strings.Contains(l, "engine_test.TestPanicRecovered") {
		t.Errorf("the log lines hold no stack:\n%s", l)
	}
}

var _ net.Conn // dial returns one
