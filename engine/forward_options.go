package engine

import (
	"time"

	"github.com/redirectd/redirectd/engine/upstream"
)

// UpstreamOptions configure forwarding of misses.
type UpstreamOptions struct {
	Pool *upstream.Pool
	// HostFromUpstream sends the server's address as Host instead of the
	// host the request was matched with (see upstreamHeaders).
	HostFromUpstream bool
	// MaxRequestBodyBytes bounds a forwarded body; 0: no limit.
	MaxRequestBodyBytes int64
	// BodyTimeout answers 408 when a forwarded request's body stops
	// arriving for this long (default 10s).
	BodyTimeout time.Duration
}

// DefaultBodyTimeout is UpstreamOptions.BodyTimeout's default.
const DefaultBodyTimeout = 10 * time.Second

// Flow control of forwarding: at most bodyChunks copied chunks of a
// request body wait for the upstream, and an answer is read from the
// upstream only while less than maxOutboundFwd of it waits for the client.
const (
	bodyChunks     = 16
	maxOutboundFwd = 256 << 10
	answerChunk    = 32 << 10
)
