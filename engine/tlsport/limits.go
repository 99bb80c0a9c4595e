package tlsport

import "time"

// The package's internal bounds, each with its reason.

// tlsMaxPending is how much of what a client sent may wait while one of its
// requests is forwarded or tunnelled before the connection stops reading
// it. The plain port cannot stop reading (gnet reads whatever arrives)
// and closes past the engine's maxPendingWhileForwarding; here the client
// is held back by TCP flow control instead, as nginx holds back a body
// the upstream reads slowly.
const tlsMaxPending = 256 << 10

// A connection's goroutine reads in one of two modes. Serving, it reads
// into a tlsReadSize buffer: 4 KiB takes a browser's request or a burst of
// pipelined small ones in one read. Once it has read nothing for about
// tlsQuiet (readLoop) it hands the connection to a fresh goroutine that
// waits for the socket to be readable without reading (waitReadable):
// the serving goroutine's stack (grown to 8 KiB in OnTraffic, and given
// back by Go only at a collection) and its buffer go with it, and the
// waiting one keeps the 2 KiB stack it started with and no buffer. The
// first wait, right after the handshake, reads through crypto/tls with a
// tlsWaitSize buffer; what a 512-byte read leaves of a record, crypto/tls
// keeps for the next (benchmarks/README.md, "Memory per idle TLS
// connection").
const (
	tlsReadSize = 4 << 10
	tlsWaitSize = 512
	tlsQuiet    = 250 * time.Millisecond
)

// maxKeptOut is the capacity of a spent write buffer kept for the next
// write; a bigger one (a large answer) is let go.
const maxKeptOut = 64 << 10

// maxHeld bounds progressConn.held: a bigger last write goes out as it
// comes.
const maxHeld = 16 << 10

// acceptRetry is the wait after a failed accept (out of descriptors or
// memory), so that the accept loop does not spin.
const acceptRetry = 5 * time.Millisecond
