package engine

import "time"

// The engine's internal bounds: what a connection may hold or wait, each
// with the reason for its value. The bounds set by configuration are
// Options' (server.go) and UpstreamOptions' (package forward); engine/h2's
// are in its Options; engine/forward, engine/forward/exchange (what a
// forward may hold or wait) and engine/tlsport keep theirs in their own
// limits.go.

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
