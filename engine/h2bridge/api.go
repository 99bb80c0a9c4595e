package h2bridge

import (
	"time"

	"github.com/redirectd/redirectd/engine/h2"
)

// Conn is the engine's side of one HTTP/2 connection. Decide and
// NeedsBody run on the connection's goroutine with its tlsport.Loop
// locked, as a gnet callback runs on its loop; each recovers its own
// panics (which close the connection) and returns its zero results then.
type Conn interface {
	// Decide decides st, whose request head is head as HTTP/1.1: it
	// returns a local answer's bytes, valid until the loop is unlocked,
	// or that the stream is reset, or that it started st's forward
	// (exchange.Stream), which answers st on a goroutine of its own.
	Decide(st *h2.Stream, head []byte) (answer []byte, d Decision)
	// NeedsBody tells, from head alone and counting nothing, whether a
	// stream whose body is still to come needs it (only a forward does),
	// and under which bounds it is buffered. scratch is a buffer it may
	// use, handed back grown.
	NeedsBody(head, scratch []byte) (b Body, grown []byte)
	// TakeBody and PutBody are the budget of body bytes buffered for the
	// connection's client across all its connections (h2.BodyBudget).
	TakeBody(n int) bool
	PutBody(n int)
}

// Decision is what Decide made of a stream.
type Decision uint8

const (
	// Answer: the answer's bytes are framed as HEADERS and DATA; empty
	// (after a panic), the stream gets a 500.
	Answer Decision = iota
	// Reset: the answer is none (return 444); the stream is reset, as
	// the connection is closed on HTTP/1.1.
	Reset
	// Forwarded: the engine started the stream's forward.
	Forwarded
)

// Body is NeedsBody's answer: whether the body is needed, and the
// forward's body_timeout and body_min_rate it is buffered under.
type Body struct {
	Need    bool
	Timeout time.Duration
	MinRate int64
}
