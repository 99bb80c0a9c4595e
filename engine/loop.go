package engine

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/panjf2000/gnet/v2"

	"github.com/redirectd/redirectd/engine/accesslog"
	"github.com/redirectd/redirectd/engine/misses"
	"github.com/redirectd/redirectd/httpparse"
	"github.com/redirectd/redirectd/matcher"
)

// loop is the state one event loop owns. Only that loop's goroutine
// touches it, except scheduleSweep.
type loop struct {
	srv   *Server
	el    gnet.EventLoop
	req   httpparse.Request
	match matcher.Match
	cond  condReq // the request as match's conditions see it (conditions.go)
	// phase is the location phase's working memory (locations.go).
	phase phase
	// byProto: the answer being made depends on the scheme an
	// X-Forwarded-Proto gave (answer_bytes.go, fields); readXFP: on
	// that field as sent, which a step read itself.
	byProto, readXFP bool
	// group is the upstream group the request being answered goes to,
	// set by pickGroup for startForward and startTunnel.
	group *group
	out   []byte
	// tail is redirectTail's answer for the Date line at tailDate.
	tail     []byte
	tailDate *byte
	// answers counts the requests answered by the last serve.
	answers int
	// reads counts the reads served, to time one in timedReads.
	reads uint32
	// readsSeen is reads as the last sweep saw it, for the ticker's
	// spare P (procs.go), which may not read reads itself.
	readsSeen atomic.Uint32
	// alog is the loop's access-log buffer (nil: no access log), with the
	// entry, request fields and Location it reuses for each line.
	alog  *accesslog.Buffer
	entry accesslog.Entry
	ri    requestInfo
	loc   []byte
	// fieldNames are the header fields the log's format reads
	// (accesslog.Format.Fields), ri.fields their values; readStart is
	// when the read being served began.
	fieldNames []string
	readStart  time.Time
	// conns lists the loop's connections for the deadline sweep; each
	// conn knows its index, so removal is a swap with the last.
	conns []*conn
	// free holds closed conns for the next ones to open (newConn).
	free []*conn
	// sweeping is set while a sweep is queued on the loop, so that a slow
	// loop does not get a backlog of them.
	sweeping atomic.Bool
	// misses counts the requests that matched no rule (nil: not counted).
	misses *misses.Sketch
	// dry: answer is deciding only whether a request forwards, from its
	// head (h2conn.NeedsBody): nothing is counted, logged or kept.
	dry bool
}

func newLoop(s *Server, el gnet.EventLoop) *loop {
	l := &loop{srv: s, el: el, out: make([]byte, 0, 4096), misses: s.newMissSketch()}
	if s.opts.AccessLog != nil {
		l.alog = s.opts.AccessLog.NewBuffer()
		l.fieldNames = s.opts.AccessLog.Fields()
		l.ri.fields = make([][]byte, len(l.fieldNames))
	}
	return l
}

func (l *loop) add(cs *conn) {
	cs.idx = len(l.conns)
	l.conns = append(l.conns, cs)
}

// maxFreeConns bounds loop.free. Opens and closes alternate under
// connection churn, so a few suffice; more would only hold memory after a
// burst.
const maxFreeConns = 64

// newConn returns a zeroed conn, a closed one of this loop's if it has
// one: with a connection per request, allocating one was most of
// redirectd's own allocation per connection, and the garbage it made
// cost the collector as much again.
func (l *loop) newConn() *conn {
	if n := len(l.free); n > 0 {
		cs := l.free[n-1]
		l.free[n-1] = nil
		l.free = l.free[:n-1]
		return cs
	}
	return new(conn)
}

// recycle keeps the closed cs for newConn, unless something off the loop
// may still hold it: a forward, a tunnel or a challenge (shared), the
// TLS listener's handshake and HTTP/2 goroutines.
func (l *loop) recycle(cs *conn) {
	if cs.shared || cs.tls || cs.h2 || len(l.free) >= maxFreeConns {
		return
	}
	partial := cs.partial[:0] // its capacity is bounded by release
	*cs = conn{partial: partial}
	l.free = append(l.free, cs)
}

func (l *loop) remove(cs *conn) {
	last := len(l.conns) - 1
	l.conns[cs.idx] = l.conns[last]
	l.conns[cs.idx].idx = cs.idx
	l.conns[last] = nil
	l.conns = l.conns[:last]
}

// scheduleSweep queues a deadline check on the loop; it is called from
// the ticker goroutine.
func (l *loop) scheduleSweep() {
	if l.sweeping.Swap(true) {
		return
	}
	if err := l.el.Execute(context.Background(), l); err != nil {
		l.sweeping.Store(false)
	}
}

// Run is the deadline check, run on the loop (gnet.Runnable). It walks the
// connections from the end, so that closing one (which moves the last
// into its place) skips none.
func (l *loop) Run(context.Context) error {
	l.sweeping.Store(false)
	l.readsSeen.Store(l.reads)
	if l.alog != nil {
		l.alog.Flush()
	}
	now := l.srv.clock.now()
	for i := len(l.conns) - 1; i >= 0; i-- {
		if i >= len(l.conns) {
			continue
		}
		l.conns[i].sweep(now)
	}
	return nil
}
