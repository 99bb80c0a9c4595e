package h2_test

import (
	"io"
	"net"
	"os"
	"sync"
	"time"
)

// memPipe returns the two ends of an in-memory connection for tests run
// under testing/synctest. Unlike net.Pipe, a write never waits for the
// reader (what is written is kept until read), so a test can write its
// frames, let the server act on them (synctest.Wait) and read what the
// server wrote, all on one goroutine. Read deadlines are kept on the
// bubble's clock: a server waiting for a frame times out when the test's
// fake time passes its deadline.
func memPipe() (server, client *memConn) {
	a, b := newHalf(), newHalf()
	return &memConn{r: a, w: b}, &memConn{r: b, w: a}
}

// half is one direction: the bytes written and not yet read.
type half struct {
	mu       sync.Mutex
	buf      []byte
	closed   bool      // no more bytes will come
	deadline time.Time // the reader's
	// wake is signalled (never blocking) when any of the above changes;
	// a channel of the bubble's, so a reader waiting on it is durably
	// blocked for synctest.
	wake chan struct{}
}

func newHalf() *half { return &half{wake: make(chan struct{}, 1)} }

func (h *half) signal() {
	select {
	case h.wake <- struct{}{}:
	default:
	}
}

func (h *half) read(p []byte) (int, error) {
	for {
		h.mu.Lock()
		if len(h.buf) > 0 {
			n := copy(p, h.buf)
			h.buf = h.buf[n:]
			h.mu.Unlock()
			return n, nil
		}
		if h.closed {
			h.mu.Unlock()
			return 0, io.EOF
		}
		dl := h.deadline
		h.mu.Unlock()
		if !dl.IsZero() && !time.Now().Before(dl) {
			return 0, os.ErrDeadlineExceeded
		}
		if dl.IsZero() {
			<-h.wake
			continue
		}
		t := time.NewTimer(time.Until(dl))
		select {
		case <-h.wake:
		case <-t.C:
		}
		t.Stop()
	}
}

func (h *half) write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return 0, io.ErrClosedPipe
	}
	h.buf = append(h.buf, p...)
	h.signal()
	return len(p), nil
}

func (h *half) close() {
	h.mu.Lock()
	h.closed = true
	h.mu.Unlock()
	h.signal()
}

// buffered is how many bytes wait to be read.
func (h *half) buffered() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.buf)
}

// memConn is one end: it reads r and writes w.
type memConn struct{ r, w *half }

func (c *memConn) Read(p []byte) (int, error)  { return c.r.read(p) }
func (c *memConn) Write(p []byte) (int, error) { return c.w.write(p) }

// Close ends both directions: the peer reads what was written, then EOF,
// and its writes fail.
func (c *memConn) Close() error {
	c.r.close()
	c.w.close()
	return nil
}

func (c *memConn) SetReadDeadline(t time.Time) error {
	c.r.mu.Lock()
	c.r.deadline = t
	c.r.mu.Unlock()
	c.r.signal()
	return nil
}

// SetWriteDeadline does nothing: writes never wait.
func (c *memConn) SetWriteDeadline(time.Time) error { return nil }
func (c *memConn) SetDeadline(t time.Time) error    { return c.SetReadDeadline(t) }
func (c *memConn) LocalAddr() net.Addr              { return memAddr{} }
func (c *memConn) RemoteAddr() net.Addr             { return memAddr{} }

type memAddr struct{}

func (memAddr) Network() string { return "mem" }
func (memAddr) String() string  { return "mem" }
