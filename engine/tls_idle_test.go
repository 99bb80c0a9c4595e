//go:build !race

package engine_test

import (
	"bufio"
	"io"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/internal/testutil"
)

// TestTLSIdleConnections: idle TLS connections, HTTP/2 and HTTP/1.1, wait
// for their next bytes on the raw socket (tlsport.Conn.waitReadable) once
// quiet, not in a crypto/tls read: the waiting goroutine holds no buffer
// and keeps the 2 KiB stack it started with. Each is then used again, to
// show that the wait wakes. It logs the heap and stack each idle
// connection adds, client's heap included (the client has no
// goroutines), for benchmarks/README.md's "HTTP/2" section. (The race
// detector changes stacks and heap, hence the build tag.)
func TestTLSIdleConnections(t *testing.T) {
	srv := startH2(t, engine.Options{MaxConnsPerIP: 1000})
	const n = 200
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	h2s := make([]*rawH2, n)
	h1s := make([]*bufio.Reader, n)
	h1c := make([]net.Conn, n)
	h1req := "GET /old HTTP/1.1\r\nHost: a\r\n\r\n"
	want := answer{301, "https://example.com/new", "", false}
	for i := range n {
		r := dialH2(t, srv)
		r.headers(1, true, r.block("GET", "/old", "user-agent", "idle-test/1"))
		if st := r.status(1); st != "301" {
			t.Fatalf("h2 connection %d: %s, want 301", i, st)
		}
		h2s[i] = r
		c := dialTLS(t, srv)
		c.SetDeadline(time.Now().Add(30 * time.Second))
		h1s[i], h1c[i] = bufio.NewReader(c), c
		if _, err := io.WriteString(c, h1req); err != nil {
			t.Fatal(err)
		}
		if got := readAnswer(t, h1s[i], "GET"); got != want {
			t.Fatalf("HTTP/1.1 connection %d: %+v, want %+v", i, got, want)
		}
	}
	// Each goes quiet a quarter second after its request.
	testutil.WaitFor(t, 30*time.Second, "every connection waiting on its socket", func() bool {
		return waitingOnSocket() == 2*n
	})
	runtime.GC()
	runtime.ReadMemStats(&after)
	t.Logf("per idle connection (HTTP/2 and HTTP/1.1 alike, client's heap included): heap %.0f B, stack %.0f B",
		float64(after.HeapInuse-before.HeapInuse)/(2*n), float64(after.StackInuse-before.StackInuse)/(2*n))
	for i := range n {
		r := h2s[i]
		r.headers(3, true, r.block("GET", "/old", "user-agent", "idle-test/1"))
		if st := r.status(3); st != "301" {
			t.Fatalf("h2 connection %d after its quiet wait: %s, want 301", i, st)
		}
		if _, err := io.WriteString(h1c[i], h1req); err != nil {
			t.Fatal(err)
		}
		if got := readAnswer(t, h1s[i], "GET"); got != want {
			t.Fatalf("HTTP/1.1 connection %d after its quiet wait: %+v, want %+v", i, got, want)
		}
	}
}
