package engine

import (
	"context"
	"sync"

	"github.com/panjf2000/gnet/v2"
)

// SetPanicHook has s call hook at each place where a panic is recovered,
// with the place's name ("open", "traffic", "close", "sweep", "forward",
// "tunnel", "tick") and, for "traffic", the bytes buffered; a test panics from it
// to show that the server survives. Call it before Run.
func SetPanicHook(s *Server, hook func(at string, data []byte)) {
	s.panicHook = func(at boundary, data []byte) { hook(boundaryNames[at], data) }
}

// Sweep sets s's clock from its source (Options.Now) and runs every
// loop's deadline check, returning once all have run: after a test moves
// its fake clock, the timeouts that passed have been acted on, and the
// connections still open are those whose timeouts did not.
func Sweep(s *Server) {
	s.clock.tick(&s.date)
	onEveryLoop(s, func(l *loop) { l.Run(context.Background()) })
}

// ConnState is what a test sees of a connection: the clock readings, in
// Unix nanoseconds, its deadlines count from or end at (0 where one is
// not running), and what it holds of the client's bytes.
type ConnState struct {
	// Active is the last read (the idle timeout's and the lingering
	// close's idle start), HeadStart the first byte of a partial head,
	// LingerUntil the end of a lingering close.
	Active, HeadStart, LingerUntil int64
	// Held is the input read and not yet used up (a partial head or
	// PROXY header), LingerRead what a lingering close has dropped.
	Held, LingerRead int
	// Forwarding says a request of the connection is being forwarded
	// (or tunnelled), Moved when its bytes last moved (0 if none).
	Forwarding bool
	Moved      int64
	// SendWait says the answer waits for the client to take its
	// outbound buffer, SendSince since when it took nothing of it
	// (send_timeout counts from it).
	SendWait  bool
	SendSince int64
}

// Conns returns the state of the connections s holds open.
func Conns(s *Server) []ConnState {
	var mu sync.Mutex
	var out []ConnState
	onEveryLoop(s, func(l *loop) {
		mu.Lock()
		defer mu.Unlock()
		for _, cs := range l.conns {
			st := ConnState{Active: cs.active, HeadStart: cs.headStart, LingerUntil: cs.lingerUntil,
				Held: len(cs.partial) + cs.c.InboundBuffered(), LingerRead: cs.lingerRead}
			if cs.fwd != nil {
				st.Forwarding, st.Moved = true, cs.fwd.Moved()
				st.SendWait, st.SendSince = cs.fwd.SendStall()
			}
			out = append(out, st)
		}
	})
	return out
}

// The lingering close's bounds (limits.go), for the tests that check them.
const (
	LingerTotal   = lingerTotal
	LingerIdle    = lingerIdle
	LingerMaxRead = lingerMaxRead
)

// onEveryLoop runs f on every event loop (as the loop: gnet's on its
// goroutine, a TLS loop with its lock held) and waits for all of them,
// however long that takes; the test's timeout bounds it.
func onEveryLoop(s *Server, f func(*loop)) {
	var wg sync.WaitGroup
	s.handler.loops.Range(func(_, v any) bool {
		l := v.(*loop)
		wg.Add(1)
		err := l.el.Execute(context.Background(), gnet.RunnableFunc(func(context.Context) error {
			defer wg.Done()
			f(l)
			return nil
		}))
		if err != nil {
			wg.Done()
		}
		return true
	})
	wg.Wait()
}
