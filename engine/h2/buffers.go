package h2

import (
	"bufio"
	"sync"
)

// A connection holds its 4 KiB read and write buffers only while it is
// busy. Once it has read nothing for QuietAfter with no stream open, it
// gives both back (pooled) and Serve returns quiet, for the caller to
// wait for the client's next bytes on a fresh goroutine and call Serve
// again: the serving goroutine's stack, grown while deciding answers,
// goes too. The same scheme as the
// HTTP/1.1 TLS path's (engine/tlsconn.go), for the same reason: an idle
// connection's memory.
// bufSize is not in Options: the pools hand a buffer to any connection.
const bufSize = 4 << 10

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
	c.locked()
	if c.bw == nil {
		c.bw = writers.Get().(*bufio.Writer)
		c.bw.Reset(c.nc)
	}
	return c.bw
}

// idleWait gives the buffers back (c.br empty, no stream open), for
// Serve to return quiet. The spent streams kept for reuse (up to
// MaxConcurrentStreams after a burst, each with its field and body
// buffers), the encoder's scratch and the stream map (which a burst grew
// and which never shrinks) go too: wake makes a new map, and the next
// streams are made afresh.
func (c *Conn) idleWait() {
	c.reading()
	c.lock()
	if c.bw != nil && c.bw.Buffered() == 0 {
		c.bw.Reset(nil)
		writers.Put(c.bw)
		c.bw = nil
	}
	clear(c.free)
	c.free, c.block = nil, nil
	if len(c.streams) == 0 {
		c.streams = nil // read (and deleted from) elsewhere, which a nil map allows; written only by the reader, after wake
	}
	c.unlock()
	c.br.Reset(nil)
	readers.Put(c.br)
	c.br = nil
}

// wake takes a read buffer again after a quiet return. The caller is
// to wait for the connection to be readable before it calls Serve again
// (the engine waits on the raw socket, engine/tlswait.go), so that the
// goroutine that waits holds no buffer; one that does not wait has Serve
// wait with the 4 KiB buffer taken.
func (c *Conn) wake() {
	c.reading()
	c.br = readers.Get().(*bufio.Reader)
	c.br.Reset(c.nc)
	c.lock()
	if c.streams == nil {
		c.streams = make(map[uint32]*Stream)
	}
	c.unlock()
}
