package h2

import (
	"bufio"
	"errors"
	"io"
	"net"
	"sync"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
	"golang.org/x/time/rate"
)

// Conn is one HTTP/2 connection.
type Conn struct {
	nc      net.Conn
	h       Handler
	o       Options
	closing func() bool
	br      *bufio.Reader
	fr      *http2.Framer
	dec     *hpack.Decoder
	// now is the time of the frame being processed (the reader's).
	now time.Time
	// started is set once the preface is in; peerClosed once a read
	// found the client's end (PeerClosed).
	started, peerClosed bool

	// hb is the header block being received (the reader's), begun at
	// hbStart.
	hb      block
	hbStart time.Time
	// resets and control are the rate bounds' buckets (the reader's),
	// held in the Conn rather than allocated beside it: with them the
	// Conn is 1008 bytes, in the runtime's 1024-byte size class, where two
	// rate.NewLimiter values of 80 bytes each cost an idle connection 160
	// bytes and two objects more (TestConnSize).
	resets, control rate.Limiter
	// maxID is the highest stream the client opened (written by the
	// reader with mu held); lastActive when the last stream closed or
	// opened (mu).
	maxID      uint32
	lastActive time.Time

	// reader and holder are the goroutines running Serve and holding mu,
	// while the ownership checks are on (owner.go).
	reader, holder owner

	mu sync.Mutex
	// room wakes the writers waiting for window (WriteData).
	room *sync.Cond
	bw   *bufio.Writer
	// streams are the open and half-closed ones; free, spent Stream
	// values for reuse; block, the encoder's scratch.
	streams map[uint32]*Stream
	free    []*Stream
	block   []byte
	hdr     [frameHeaderLen]byte // writeFrame's
	// sendWindow is the connection's window toward the peer; peerWindow
	// the peer's SETTINGS_INITIAL_WINDOW_SIZE, peerFrame its
	// SETTINGS_MAX_FRAME_SIZE; recvWindow what the peer may still send
	// on the connection.
	sendWindow, recvWindow int64
	peerWindow             int32
	peerFrame              uint32
	closed                 bool
	// bodyBytes is what the streams' buffered bodies hold in all.
	bodyBytes int
	// stalled counts the streams whose answer waits for window (a hint
	// for expireStalled, recounted there); nextStallCheck is when the
	// reader looks at them next (the reader's).
	stalled        int
	nextStallCheck time.Time
	// bodyWaiting counts the streams whose body has a deadline
	// (discard.go; a hint, recounted by expireBodies); nextBodyCheck is
	// when the reader looks at them next (the reader's: only it starts
	// or checks a body's deadline).
	bodyWaiting   int
	nextBodyCheck time.Time
	// sentResets are the last streams the server reset while the client
	// was sending on them (a ring; sentNext the next slot).
	sentResets [32]uint32
	sentNext   uint32
}

// block is a header block in progress: its stream, what its fields are
// for, its size so far, and the first problem found with it.
type block struct {
	st                  *Stream
	kind                blockKind
	endStream           bool
	bytes, frames, size int
	malformed           bool
	has                 [4]bool // :method, :scheme, :authority, :path seen
	pseudo              [4]fieldOff
	regular             bool // a regular field was seen: no pseudo-header after it
}

type blockKind uint8

const (
	blockNone     blockKind = iota
	blockRequest            // the fields of a new stream's request
	blockTrailers           // trailers: checked, then dropped
	blockDiscard            // a refused or failed stream's: decoded for the table's sake, dropped
)

// NewConn readies a connection that negotiated h2 for Serve. closing,
// when not nil, reports that the server wants the connection closed: it
// is looked at after each read deadline is set, so a close request that
// moved the deadline into the past is not undone.
func NewConn(nc net.Conn, h Handler, o Options, closing func() bool) *Conn {
	o.setDefaults()
	c := &Conn{nc: nc, h: h, o: o, closing: closing, streams: make(map[uint32]*Stream)}
	fill(&c.resets, o.ResetsPerSecond, o.ResetBurst)
	fill(&c.control, o.ControlPerSecond, o.ControlBurst)
	c.room = sync.NewCond(&c.mu)
	c.br = readers.Get().(*bufio.Reader)
	c.br.Reset(nc)
	c.fr = http2.NewFramer(connWriter{c}, connReader{c})
	c.fr.SetReuseFrames()
	// SETTINGS_MAX_FRAME_SIZE is left at its default: a larger frame is a
	// FRAME_SIZE_ERROR, read no further than its header.
	c.fr.SetMaxReadFrameSize(maxReadFrame)
	c.dec = hpack.NewDecoder(4096, c.onField)
	c.sendWindow, c.peerWindow, c.peerFrame = initialWindow, initialWindow, 16384
	c.recvWindow = int64(o.ConnWindow)
	return c
}

// Serve reads and answers until the connection ends, and returns why
// (nil for a clean end: the client closed, or the idle timeout after
// GOAWAY NO_ERROR), or until it goes quiet (quiet true: buffers.go): the
// caller then calls Serve again, on a fresh goroutine. The caller closes
// the net.Conn once Serve returns without quiet.
//
// Allocation: a stream answered at once allocates nothing once the
// connection's buffers and its first streams have been made
// (TestConnAnswerAllocs); hpack makes a string of each literal field not
// yet in its dynamic table.
func (c *Conn) Serve() (quiet bool, err error) {
	c.reader.set()
	defer c.reader.clear()
	if !c.started {
		if err := c.start(); err != nil {
			c.shut()
			return false, err
		}
	} else {
		c.wake()
	}
	for {
		if c.br.Buffered() == 0 {
			if err := c.flush(); err != nil {
				return false, c.end(err)
			}
			if last, ok := c.idleSince(); ok {
				idle := last.Add(c.o.IdleTimeout)
				c.nc.SetReadDeadline(minTime(time.Now().Add(c.o.QuietAfter), idle))
				if c.closing != nil && c.closing() {
					return false, c.end(c.goAway(http2.ErrCodeNo, nil))
				}
				if _, err := c.br.Peek(1); err != nil {
					var ne net.Error
					if !errors.As(err, &ne) || !ne.Timeout() || !time.Now().Before(idle) {
						return false, c.end(c.readFailed(err))
					}
					c.nc.SetReadDeadline(idle)
					if c.closing != nil && c.closing() {
						return false, c.end(c.goAway(http2.ErrCodeNo, nil))
					}
					c.idleWait()
					return true, nil
				}
			}
			if err := c.waitFrame(); err != nil {
				if err == errDrained {
					err = nil // a clean end
				}
				return false, c.end(err)
			}
		}
		c.now = time.Now()
		if ok, err := c.readHeaders(); ok {
			if err := c.frameDone(err); err != nil {
				return false, c.end(err)
			}
			continue
		}
		f, err := c.fr.ReadFrame()
		c.now = time.Now()
		if err != nil {
			var se http2.StreamError
			if errors.As(err, &se) {
				// The Framer found a stream's frame malformed (a
				// WINDOW_UPDATE of 0); the rest of the connection is
				// sound, unless the stream is idle: a frame there other
				// than HEADERS or PRIORITY, which the Framer never
				// refuses this way, is a connection error (RFC 9113 5.1).
				if c.idle(se.StreamID) {
					return false, c.end(c.goAway(http2.ErrCodeProtocol, err))
				}
				if err := c.frameDone(se); err != nil {
					return false, c.end(err)
				}
				continue
			}
			return false, c.end(c.readFailed(err))
		}
		if err := c.frameDone(c.process(f)); err != nil {
			return false, c.end(err)
		}
		if !c.now.Before(c.nextStallCheck) {
			c.lock()
			c.expireStalled(c.now)
			c.unlock()
		}
		c.checkBodies()
	}
}

// waitFrame waits for the next frame while a stream is open: up to
// IdleTimeout, or PrefaceTimeout (the engine's header_timeout) from the
// start of a header block still in progress (only its CONTINUATION may
// come meanwhile, RFC 9113 6.10), and in steps no longer than the next
// body deadline's check, so that a client that sends nothing at all
// cannot hold a body past its deadline either.
func (c *Conn) waitFrame() error {
	c.reading()
	idle := time.Now().Add(c.o.IdleTimeout)
	if c.hb.kind != blockNone {
		idle = minTime(idle, c.hbStart.Add(c.o.PrefaceTimeout))
	}
	for {
		next := c.nextBodyCheck
		if c.bodyWaiting == 0 || !next.Before(idle) {
			break
		}
		c.nc.SetReadDeadline(next)
		if c.closing != nil && c.closing() {
			return c.drained()
		}
		if _, err := c.br.Peek(1); err == nil {
			break
		} else if ne := net.Error(nil); !errors.As(err, &ne) || !ne.Timeout() {
			return c.readFailed(err)
		}
		c.now = time.Now()
		c.checkBodies()
		if err := c.flush(); err != nil {
			return err
		}
	}
	c.nc.SetReadDeadline(idle)
	if c.closing != nil && c.closing() {
		return c.drained()
	}
	return nil
}

// errDrained is waitFrame's error once the server asked to close and
// GOAWAY NO_ERROR is sent: Serve ends there, cleanly, rather than read
// on into the deadline moved to now and send a second GOAWAY.
var errDrained = errors.New("h2: closed by the server")

func (c *Conn) drained() error {
	c.goAway(http2.ErrCodeNo, nil)
	return errDrained
}

// checkBodies runs expireBodies when its time has come.
func (c *Conn) checkBodies() {
	c.reading()
	if c.bodyWaiting == 0 || c.now.Before(c.nextBodyCheck) {
		return
	}
	c.lock()
	c.expireBodies(c.now)
	c.unlock()
}

// PeerClosed reports that Serve ended because the client closed the
// connection: its read reached the end, with or without a close_notify
// first. The caller may then close without a close_notify of its own, as
// nginx does (a write to a connection the client has closed, which costs
// a system call and draws a reset).
func (c *Conn) PeerClosed() bool { return c.peerClosed }

// frameDone acts on what processing a frame returned: a StreamError
// resets the stream and the connection goes on (nil); a ConnectionError
// sends GOAWAY and ends it.
func (c *Conn) frameDone(err error) error {
	if err == nil {
		return nil
	}
	var se http2.StreamError
	if errors.As(err, &se) {
		if err := c.streamError(se.StreamID, se.Code); err != nil {
			return c.frameDone(err) // past the reset budget
		}
		return nil
	}
	var ce http2.ConnectionError
	if errors.As(err, &ce) {
		return c.goAway(http2.ErrCode(ce), err)
	}
	return err
}

// end ends the connection's streams and returns err.
func (c *Conn) end(err error) error {
	c.shut()
	return err
}

// start reads the client preface and sends the server's SETTINGS.
func (c *Conn) start() error {
	c.started = true
	c.nc.SetReadDeadline(time.Now().Add(c.o.PrefaceTimeout))
	var pre [len(http2.ClientPreface)]byte
	if _, err := io.ReadFull(c.br, pre[:]); err != nil || string(pre[:]) != http2.ClientPreface {
		return errors.New("h2: no client preface")
	}
	c.lock()
	c.fr.WriteSettings(
		http2.Setting{ID: http2.SettingMaxConcurrentStreams, Val: c.o.MaxConcurrentStreams},
		http2.Setting{ID: http2.SettingInitialWindowSize, Val: c.o.StreamWindow},
		http2.Setting{ID: http2.SettingMaxHeaderListSize, Val: c.o.MaxHeaderListSize},
		http2.Setting{ID: http2.SettingEnablePush, Val: 0},
	)
	if d := c.o.ConnWindow - initialWindow; d > 0 {
		c.fr.WriteWindowUpdate(0, d)
	}
	c.lastActive = time.Now()
	c.unlock()
	return nil
}

// idleSince reports whether no stream is open, and since when.
func (c *Conn) idleSince() (time.Time, bool) {
	c.lock()
	defer c.unlock()
	return c.lastActive, len(c.streams) == 0
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// readFailed ends the connection after ReadFrame's err.
func (c *Conn) readFailed(err error) error {
	var ce http2.ConnectionError
	var ne net.Error
	switch {
	case errors.As(err, &ce):
		return c.goAway(http2.ErrCode(ce), err)
	case errors.Is(err, http2.ErrFrameTooLarge):
		return c.goAway(http2.ErrCodeFrameSize, err)
	case errors.Is(err, io.EOF):
		c.peerClosed = true
		return nil
	case errors.As(err, &ne) && ne.Timeout():
		// Idle, or the server asked to close: tell the client it may
		// retry its requests elsewhere.
		return c.goAway(http2.ErrCodeNo, nil)
	}
	return err
}

// process handles one frame; a StreamError resets that stream, a
// ConnectionError ends the connection.
func (c *Conn) process(f http2.Frame) error {
	c.reading()
	switch f := f.(type) {
	case *http2.HeadersFrame:
		return c.onHeaders(f)
	case *http2.ContinuationFrame:
		return c.onContinuation(f)
	case *http2.DataFrame:
		return c.onData(f)
	case *http2.RSTStreamFrame:
		return c.onReset(f)
	case *http2.WindowUpdateFrame:
		if err := c.calm(); err != nil {
			return err
		}
		return c.onWindowUpdate(f)
	case *http2.SettingsFrame:
		if err := c.calm(); err != nil {
			return err
		}
		return c.onSettings(f)
	case *http2.PingFrame:
		if err := c.calm(); err != nil {
			return err
		}
		if !f.IsAck() {
			c.lock()
			c.fr.WritePing(true, f.Data)
			c.unlock()
		}
	case *http2.PriorityFrame:
		if err := c.calm(); err != nil {
			return err
		}
		if f.StreamDep == f.StreamID {
			return http2.StreamError{StreamID: f.StreamID, Code: http2.ErrCodeProtocol}
		}
	case *http2.GoAwayFrame:
		// The client opens nothing more; what is open is answered, and
		// the client closes.
	case *http2.PushPromiseFrame:
		return http2.ConnectionError(http2.ErrCodeProtocol) // a client cannot push (RFC 9113 8.4)
	default:
		return c.calm() // unknown frame types are ignored (RFC 9113 5.5)
	}
	return nil
}

// calm takes a token for a control frame; past the rate it is a
// ConnectionError ENHANCE_YOUR_CALM.
func (c *Conn) calm() error {
	c.reading()
	if !c.control.AllowN(c.now, 1) {
		return http2.ConnectionError(http2.ErrCodeEnhanceYourCalm)
	}
	return nil
}

func (c *Conn) onSettings(f *http2.SettingsFrame) error {
	if f.IsAck() {
		return nil
	}
	c.lock()
	defer c.unlock()
	err := f.ForeachSetting(func(s http2.Setting) error {
		if err := s.Valid(); err != nil {
			return err
		}
		switch s.ID {
		case http2.SettingInitialWindowSize:
			delta := int64(s.Val) - int64(c.peerWindow)
			c.peerWindow = int32(s.Val)
			for _, st := range c.streams {
				st.sendWindow += delta
				if st.sendWindow > maxWindow {
					return http2.ConnectionError(http2.ErrCodeFlowControl)
				}
			}
		case http2.SettingMaxFrameSize:
			c.peerFrame = s.Val
		}
		return nil
	})
	if err != nil {
		return err
	}
	c.fr.WriteSettingsAck()
	c.sendAll()
	return nil
}

func (c *Conn) onWindowUpdate(f *http2.WindowUpdateFrame) error {
	c.lock()
	defer c.unlock()
	inc := int64(f.Increment)
	if f.StreamID == 0 {
		c.sendWindow += inc
		if c.sendWindow > maxWindow {
			return http2.ConnectionError(http2.ErrCodeFlowControl)
		}
		c.sendAll()
		return nil
	}
	st := c.streams[f.StreamID]
	if st == nil {
		if f.StreamID > c.maxID {
			return http2.ConnectionError(http2.ErrCodeProtocol) // idle (RFC 9113 5.1)
		}
		return nil // closed: a late update is allowed
	}
	st.sendWindow += inc
	if st.sendWindow > maxWindow {
		return http2.StreamError{StreamID: f.StreamID, Code: http2.ErrCodeFlowControl}
	}
	c.sendPending(st)
	c.room.Broadcast()
	return nil
}

func (c *Conn) onReset(f *http2.RSTStreamFrame) error {
	c.lock()
	defer c.unlock()
	st := c.streams[f.StreamID]
	if st == nil {
		if f.StreamID > c.maxID {
			return http2.ConnectionError(http2.ErrCodeProtocol) // idle
		}
		return nil
	}
	st.reset = true
	c.remove(st)
	if !c.resets.AllowN(c.now, 1) {
		return http2.ConnectionError(http2.ErrCodeEnhanceYourCalm) // rapid reset
	}
	return nil
}

// onData takes a DATA frame: the windows, the body, the stream's end.
func (c *Conn) onData(f *http2.DataFrame) error {
	c.reading()
	n := int64(f.Length)
	c.lock()
	defer c.unlock()
	if n > c.recvWindow {
		return http2.ConnectionError(http2.ErrCodeFlowControl)
	}
	// The connection's window is given back at once: what a stream may
	// buffer is bounded by its own window and MaxBodyBytes.
	c.recvWindow -= n
	if c.recvWindow < int64(c.o.ConnWindow)/2 {
		c.fr.WriteWindowUpdate(0, uint32(int64(c.o.ConnWindow)-c.recvWindow))
		c.recvWindow = int64(c.o.ConnWindow)
	}
	id := f.StreamID
	st := c.streams[id]
	switch {
	case st == nil && id > c.maxID:
		return http2.ConnectionError(http2.ErrCodeProtocol) // idle
	case st == nil && id != 0 && c.wasReset(id):
		// Sent before the client read the server's RST_STREAM: dropped,
		// the connection's window counted above; each costs a control
		// token, as it answers nothing.
		return c.calm()
	case st == nil || st.remoteEnded:
		return http2.StreamError{StreamID: id, Code: http2.ErrCodeStreamClosed}
	case n > st.recvWindow:
		return http2.StreamError{StreamID: id, Code: http2.ErrCodeFlowControl}
	}
	data := f.Data()
	if len(data) == 0 && !f.StreamEnded() {
		if err := c.calm(); err != nil { // an empty DATA frame does nothing but cost
			return err
		}
	}
	st.recvWindow -= n
	st.received += int64(len(data))
	if len(data) > 0 {
		st.bodyAt = c.now // progress: the body's deadline starts again
	}
	if st.ContentLength >= 0 && (st.received > st.ContentLength || f.StreamEnded() && st.received != st.ContentLength) {
		return http2.StreamError{StreamID: id, Code: http2.ErrCodeProtocol} // RFC 9113 8.1.1
	}
	switch {
	case st.streaming:
		// Its reader gives the window back as it takes the bytes: what
		// waits here is bounded by the stream's window.
		st.Body = append(st.Body, data...)
		c.room.Broadcast()
	case !st.handed:
		c.bufferData(st, data)
	case st.HeadOnly:
		c.dropData(st, f.StreamEnded())
		if st.removed {
			return nil
		}
	}
	if f.StreamEnded() {
		st.remoteEnded = true
		c.room.Broadcast()
	}
	if !st.handed && (st.remoteEnded || st.BodyTooLarge) {
		c.handOver(st)
	} else if st.remoteEnded && st.localEnded {
		c.remove(st)
	}
	return nil
}

// handOver calls the handler (with mu held on entry and exit, released
// meanwhile).
func (c *Conn) handOver(st *Stream) {
	c.reading()
	c.locked()
	st.handed, st.sync = true, true
	c.unlock()
	c.h.Serve(st)
	c.lock()
	st.sync = false
}

// streamError resets stream id with code (RFC 9113 5.4.2), in answer to
// the peer's frame. Every reset the peer's frames draw takes a token from
// the bucket of the resets it sends (ResetsPerSecond): a frame that costs
// the client a few bytes and the server a reset (a WINDOW_UPDATE of 0,
// DATA on a closed stream) is bounded like a rapid reset, whatever its
// kind; past the bucket it is a connection error ENHANCE_YOUR_CALM.
func (c *Conn) streamError(id uint32, code http2.ErrCode) error {
	c.reading()
	c.lock()
	defer c.unlock()
	if st := c.streams[id]; st != nil {
		c.resetStream(st, code)
	} else {
		c.fr.WriteRSTStream(id, code)
	}
	if !c.resets.AllowN(c.now, 1) {
		return http2.ConnectionError(http2.ErrCodeEnhanceYourCalm)
	}
	return nil
}

// idle reports whether stream id is idle: never opened by the peer.
// The peer opens odd ids in increasing order (RFC 9113 5.1.1), so every
// id above the highest opened is idle.
func (c *Conn) idle(id uint32) bool {
	c.lock()
	defer c.unlock()
	return id > c.maxID
}

// goAway sends GOAWAY with code and ends the connection (Serve's return
// value is cause).
func (c *Conn) goAway(code http2.ErrCode, cause error) error {
	c.lock()
	c.fr.WriteGoAway(c.maxID, code, nil)
	c.out().Flush()
	c.unlock()
	if code != http2.ErrCodeNo {
		c.linger()
	}
	return cause
}

// linger reads and drops what the client still sends, for up to
// LingerTimeout or LingerBytes, so that closing does not reset the connection and destroy
// the GOAWAY before the client reads it.
func (c *Conn) linger() {
	if cw, ok := c.nc.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
	}
	c.nc.SetReadDeadline(time.Now().Add(c.o.LingerTimeout))
	io.CopyN(io.Discard, c.nc, c.o.LingerBytes)
}

// flush writes what is buffered.
func (c *Conn) flush() error {
	c.lock()
	defer c.unlock()
	if c.bw == nil {
		return nil
	}
	return c.bw.Flush()
}

// flushAfter releases mu after a stream's write, flushing first unless
// the write was made by Serve's handler (the reader flushes before it
// waits for the next frame).
func (c *Conn) flushAfter(st *Stream) {
	if !st.sync && c.bw != nil {
		c.bw.Flush()
	}
	c.unlock()
}

// shut ends every stream, so that writers waiting on them return.
func (c *Conn) shut() {
	c.lock()
	c.closed = true
	for _, st := range c.streams {
		st.reset = true
		c.uncount(st) // now: a stream kept by its handler or a block gives its budget back late
		c.remove(st)
	}
	c.room.Broadcast()
	c.unlock()
}
