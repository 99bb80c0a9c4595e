package engine

import (
	"sync"
	"time"

	"github.com/panjf2000/gnet/v2"

	"github.com/redirectd/redirectd/engine/tlsport"
)

// handler implements gnet.EventHandler for a Server.
type handler struct {
	gnet.BuiltinEventEngine
	srv      *Server
	tuneOnce sync.Once
	// loops maps each gnet event loop to its state. It is read once per
	// connection, in OnOpen (the connection keeps the pointer), and by the
	// ticker to reach every loop.
	loops sync.Map // gnet.EventLoop -> *loop
}

func (h *handler) OnBoot(eng gnet.Engine) gnet.Action {
	s := h.srv
	s.engMu.Lock()
	s.eng = eng
	s.engMu.Unlock()
	close(s.ready)
	return gnet.None
}

// OnOpen admits a connection if its address and the server are under
// their connection limits; gnet still calls OnClose for a refused one,
// which has no context.
func (h *handler) OnOpen(c gnet.Conn) (out []byte, action gnet.Action) {
	s := h.srv
	defer s.recoverConn(atOpen, c, nil, &action)
	pc, ip, ok := s.proxy.open(remoteIP(c.RemoteAddr())) // client.go
	if !ok {
		return nil, gnet.Close
	}
	if r := s.conns.open(ip); r != accepted {
		s.m.rejected[r].Inc()
		return nil, gnet.Close
	}
	s.m.accepted.Inc()
	el := c.EventLoop()
	v, ok := h.loops.Load(el)
	if !ok {
		v, _ = h.loops.LoadOrStore(el, newLoop(s, el))
	}
	l := v.(*loop)
	_, isTLS := c.(*tlsport.Conn)
	cs := l.newConn()
	*cs = conn{c: c, loop: l, ip: ip, tls: isTLS, proxy: pc, active: s.clock.fresh(), local: addrPort(c.LocalAddr()), partial: cs.partial}
	l.add(cs)
	c.SetContext(cs)
	s.testPanic(atOpen, nil)
	return nil, gnet.None
}

func (h *handler) OnClose(c gnet.Conn, _ error) gnet.Action {
	defer h.srv.recoverConn(atClose, c, nil, nil)
	cs, ok := c.Context().(*conn)
	if !ok {
		return gnet.None
	}
	cs.loop.remove(cs)
	h.srv.conns.close(cs.ip)
	if cs.fwd != nil {
		cs.fwd.Stop(0) // the client is gone
	}
	c.SetContext(nil)
	cs.loop.recycle(cs)
	h.srv.testPanic(atClose, nil)
	return gnet.None
}

// OnTick advances the coarse clock, refreshes the Date header once a
// second, and has every loop check its connections' deadlines. It runs on
// gnet's ticker goroutine, not on a loop, so the checks are handed to each
// loop with Execute.
func (h *handler) OnTick() (delay time.Duration, action gnet.Action) {
	defer h.srv.recoverTick(&delay)
	h.srv.testPanic(atTick, nil)
	if h.srv.opts.DeferAccept {
		// Here rather than in OnBoot: gnet opens the listening sockets of
		// all loops but the first after OnBoot.
		h.tuneOnce.Do(h.srv.deferAccept)
	}
	s := h.srv
	s.clock.tick(&s.date)
	var reads uint32
	h.loops.Range(func(_, v any) bool {
		l := v.(*loop)
		reads += l.readsSeen.Load()
		l.scheduleSweep()
		return true
	})
	// The loops' read rate is the machine's, whatever clock the
	// timeouts follow (Options.Now).
	s.procs.tune(time.Now(), reads)
	return s.tick(), gnet.None
}

// tick is how often deadlines are checked: a fifth of the shortest
// timeout, between 10 ms and 100 ms.
func (s *Server) tick() time.Duration {
	d := min(s.opts.IdleTimeout, s.opts.HeaderTimeout, lingerIdle) / 5
	return max(minTick, min(d, maxTick))
}

// timedReads is how many reads share one sample of the local answer
// duration histogram.
const timedReads = 16

// OnTraffic answers every complete request in the connection's buffer and
// writes the answers with one write. A partial request stays buffered
// until the rest arrives, or until the header timeout.
func (h *handler) OnTraffic(c gnet.Conn) (action gnet.Action) {
	s := h.srv
	defer s.recoverConn(atTraffic, c, nil, &action)
	cs := c.Context().(*conn)
	now := s.clock.now()
	cs.active = now
	buf, _ := c.Peek(-1)
	s.testPanic(atTraffic, buf)
	if cs.proxy.waiting { // the PROXY protocol header comes first (client.go)
		var more bool
		if buf, more, action = cs.proxyHeader(c, buf); !more {
			return action
		}
	}
	if cs.lingerUntil != 0 {
		return cs.drop(c, len(buf))
	}
	if cs.fwd != nil {
		return cs.whileForwarding(c, buf)
	}
	// One read in timedReads is timed: two clock reads and a histogram
	// update on every read cost about 2% of a keep-alive answer's CPU.
	l := cs.loop
	l.reads++
	timed := l.reads%timedReads == 0
	var start time.Time
	if timed || l.alog != nil {
		start = time.Now()
		l.readStart = start
	}
	s.m.bytesIn.Add(len(buf))
	buf = cs.input(c, buf)
	used, res := cs.serve(buf, s)
	if n := l.answers; n > 0 && timed {
		// The mean time of the read's answers.
		s.m.localDur.Update(time.Since(start).Seconds() / float64(n))
	}
	// gnet's Discard(0) drops the whole buffer, partial request included.
	if used > 0 {
		c.Discard(used)
	}
	if out := cs.loop.out; len(out) > 0 {
		s.m.bytesOut.Add(len(out))
		if _, err := c.Write(out); err != nil {
			return gnet.Close
		}
	}
	switch {
	case res == closeLinger:
		return cs.startLinger(c, now, len(buf)-used)
	case res == closeNow:
		return gnet.Close
	case c.OutboundBuffered() > maxOutbound:
		return gnet.Close
	}
	if used < len(buf) {
		// A partial head is buffered; its clock starts with its first byte.
		cs.hold(c, buf, used)
		if cs.headStart == 0 || cs.answered {
			cs.headStart = now
			cs.firstRead = start
		}
	} else {
		cs.release()
		cs.headStart = 0
		cs.firstRead = time.Time{}
	}
	cs.answered = false
	return gnet.None
}
