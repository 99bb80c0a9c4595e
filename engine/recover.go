package engine

import (
	"fmt"
	"net/netip"
	"runtime/debug"
	"time"

	"github.com/panjf2000/gnet/v2"
)

// boundary is a place where a panic is recovered: a gnet callback, or the
// goroutine of a forwarded request or tunnel. Nothing above these places
// would recover it, and an unrecovered panic on any goroutine ends the
// process with every connection on it, so one request that trips a bug
// would take the whole server down.
type boundary uint8

const (
	atOpen     boundary = iota // OnOpen
	atTraffic                  // OnTraffic
	atClose                    // OnClose
	atSweep                    // a connection's deadline check, run on its loop
	atForward                  // an exchange (package exchange: Forward.Run, Stream.Run) or a challenge
	atTunnel                   // a tunnel's goroutines (exchange.Forward.StartTunnel)
	atTick                     // OnTick, on gnet's ticker goroutine
	atCallback                 // an exchange's AsyncWrite callback, run on its loop
	numBoundaries
)

var boundaryNames = [numBoundaries]string{"open", "traffic", "close", "sweep", "forward", "tunnel", "tick", "callback"}

// recoverConn, deferred at a boundary, recovers a panic there: it logs the
// panic with its stack and the client's address, counts it
// (redirectd_panics_total{at}) and closes the connection c, through
// *action when the callback returns one (OnOpen, OnTraffic), else with
// c.Close, which is safe from any goroutine. OnClose (action nil, at
// atClose) closes nothing: the connection is going. cs is c's state, or nil
// on the loop, where it is looked up; a goroutine must pass it, since
// c.Context is for the loop only.
//
// What the panicking code left half done stays so: the request on c gets
// no answer (an HTTP client retries an idempotent request on a closed
// keep-alive connection), and the loop's other connections go on being
// served. A panic in OnClose before it has uncounted the connection leaves
// it counted against its client's limit.
func (s *Server) recoverConn(at boundary, c gnet.Conn, cs *conn, action *gnet.Action) {
	if v := recover(); v != nil {
		s.panicked(at, v, c, cs, action)
	}
}

// panicked is recoverConn's handling of the panic v it recovered, also
// that of an exchange (forward.Panicked), which recovers its own.
func (s *Server) panicked(at boundary, v any, c gnet.Conn, cs *conn, action *gnet.Action) {
	s.m.panics[at].Inc()
	client := netip.Addr{}
	switch {
	case cs != nil:
		client = cs.ip
	case at < atForward:
		if cs, ok := c.Context().(*conn); ok && cs != nil {
			client = cs.ip
		} else {
			client = remoteIP(c.RemoteAddr())
		}
	}
	s.log.Error("panic recovered; the connection is closed", "at", boundaryNames[at], "client", client.String(),
		"panic", fmt.Sprint(v), "stack", string(debug.Stack()))
	switch {
	case action != nil:
		*action = gnet.Close
	case at != atClose:
		c.Close()
	}
}

// recoverTick, deferred in OnTick, recovers a panic there as recoverConn
// does, with no connection to close, and sets *delay so that the ticker
// goes on: it drives the clock, the Date header and every deadline.
func (s *Server) recoverTick(delay *time.Duration) {
	v := recover()
	if v == nil {
		return
	}
	s.m.panics[atTick].Inc()
	s.log.Error("panic recovered in the ticker", "at", boundaryNames[atTick], "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
	*delay = s.tick()
}

// recoverTask, deferred in a task run on every loop (onLoops), recovers a
// panic there as recoverConn does, with no connection to close.
func (s *Server) recoverTask() {
	v := recover()
	if v == nil {
		return
	}
	s.m.panics[atCallback].Inc()
	s.log.Error("panic recovered in a task on an event loop", "at", boundaryNames[atCallback], "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
}

// testPanic calls the test hook set by SetPanicHook (export_test.go), which
// panics where a test wants one; it is nil outside tests, and nothing a
// client sends can set it.
func (s *Server) testPanic(at boundary, data []byte) {
	if s.panicHook != nil {
		s.panicHook(at, data)
	}
}
