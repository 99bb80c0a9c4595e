package h2

import (
	"bufio"
	"io"
	"sync"
	"time"
)

// A connection holds its 4 KiB read and write buffers only while it is
// busy. Once it has read nothing for quietAfter with no stream open, it
// gives both back (pooled) and Serve returns quiet, for the caller to
// call it again on a fresh goroutine: the serving goroutine's stack,
// grown while deciding answers, goes too, and the fresh one waits for
// the client's next frame with waitSize bytes. The same scheme as the
// HTTP/1.1 TLS path's (engine/tlsconn.go), for the same reason: an idle
// connection's memory.
const (
	bufSize    = 4 << 10
	waitSize   = 512
	quietAfter = 250 * time.Millisecond
)

var (
	readers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, bufSize) }}
	writers = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, bufSize) }}
)

// connReader is what the Framer reads: the connection's read buffer,
// whichever it is at the time.
type connReader struct{ c *Conn }

func (r connReader) Read(p []byte) (int, error) { return r.c.br.Read(p) }

// connWriter is what the Framer writes to (with c.mu held): the
// connection's write buffer, taken from the pool when it has none.
type connWriter struct{ c *Conn }

func (w connWriter) Write(p []byte) (int, error) { return w.c.out().Write(p) }

// out returns the write buffer (c.mu held).
func (c *Conn) out() *bufio.Writer {
	if c.bw == nil {
		c.bw = writers.Get().(*bufio.Writer)
		c.bw.Reset(c.nc)
	}
	return c.bw
}

// waitReader serves what the quiet wait read, then the connection.
type waitReader struct {
	c   *Conn
	pre []byte
}

func (w *waitReader) Read(p []byte) (int, error) {
	if len(w.pre) > 0 {
		n := copy(p, w.pre)
		w.pre = w.pre[n:]
		return n, nil
	}
	return w.c.nc.Read(p)
}

// idleWait gives the buffers back (c.br empty, no stream open), for
// Serve to return quiet.
func (c *Conn) idleWait() {
	c.mu.Lock()
	if c.bw != nil && c.bw.Buffered() == 0 {
		c.bw.Reset(nil)
		writers.Put(c.bw)
		c.bw = nil
	}
	c.mu.Unlock()
	c.br.Reset(nil)
	readers.Put(c.br)
	c.br = nil
}

// wake waits, with waitSize bytes, for the client's next bytes after a
// quiet return, and takes a read buffer again.
func (c *Conn) wake() error {
	buf := make([]byte, waitSize)
	n, err := c.nc.Read(buf)
	c.br = readers.Get().(*bufio.Reader)
	c.wait.pre = buf[:n]
	c.br.Reset(&c.wait)
	if n == 0 {
		if err == nil {
			err = io.ErrNoProgress
		}
		return err
	}
	return nil
}
