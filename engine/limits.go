package engine

import "time"

// The engine's internal bounds: what a connection or a forward may hold
// or wait, each with the reason for its value. The bounds set by
// configuration are Options' (server.go) and UpstreamOptions' (package
// forward); engine/h2's are in its Options; engine/forward and
// engine/tlsport keep theirs in their own limits.go.

// maxKeptPartial is the capacity of conn.partial kept for the next partial
// head once a head is complete; a bigger one, grown by a long head, is let
// go rather than held by an idle connection.
const maxKeptPartial = 4 << 10

// Lingering close: after an answer that closes the connection while the
// client may still be sending (a body, pipelined requests), what arrives is
// read and dropped for a while, so that closing with unread data does not
// reset the connection and destroy the answer before the client reads it
// (RFC 9112 9.6).
const (
	lingerTotal   = 2 * time.Second
	lingerIdle    = 500 * time.Millisecond
	lingerMaxRead = 1 << 20
)

// maxOutbound bounds the answers waiting in a connection's outbound buffer:
// a client that pipelines requests without reading the answers is closed
// rather than allowed to grow it without limit.
const maxOutbound = 1 << 20

// maxPendingWhileForwarding bounds what a client may have buffered while
// its forwarded request is answered or its tunnel runs: body bytes the
// upstream has not taken yet, the next pipelined requests. gnet cannot
// stop reading: it appends every read to the connection's buffer, and
// Peek copies that buffer whole on each read, so past this bound the
// connection is closed.
const maxPendingWhileForwarding = 1 << 20

// Flow control of forwarding: at most bodyChunks copied chunks of a
// request body wait for the upstream, and an answer is read from the
// upstream only while less than maxOutboundFwd of it waits for the
// client. What the client sends meanwhile is bounded by
// maxPendingWhileForwarding (above).
const (
	bodyChunks     = 16
	maxOutboundFwd = 256 << 10
	answerChunk    = 32 << 10
)

// maxFallbackDiscard bounds how much of the upstream's body is read and
// dropped when the rule answers instead: reading an error page to its
// end gives its connection back to the pool; past this, the connection
// is closed rather than read any further (fasthttp closes a body stream
// closed before its end).
const maxFallbackDiscard = 64 << 10

// The deadline sweep runs every fifth of the shortest timeout
// (Server.tick), but no more often than minTick, so that tiny timeouts do
// not keep the loops awake, and at least every maxTick, so that a
// deadline is seen within that of passing however long the timeouts.
const (
	minTick = 10 * time.Millisecond
	maxTick = 100 * time.Millisecond
)

// drainPoll is how often a drain looks whether connections are left: a
// drain ends within this of its last connection closing.
const drainPoll = 20 * time.Millisecond
