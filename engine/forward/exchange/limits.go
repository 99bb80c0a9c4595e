package exchange

// The bounds of an exchange: what a forward may hold or wait, each with
// the reason for its value. Those set by configuration are package
// forward's Options.

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
