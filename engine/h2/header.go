package h2

import (
	"encoding/binary"
	"strconv"

	"golang.org/x/net/http/httpguts"
	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// onHeaders starts a header block: a new stream's request, or a stream's
// trailers. The block is decoded as its fragments come, whatever becomes
// of the stream, since the decoder's table depends on every block.
func (c *Conn) onHeaders(f *http2.HeadersFrame) error {
	dep := uint32(0)
	if f.HasPriority() {
		dep = f.Priority.StreamDep
	}
	return c.headers(f.StreamID, f.StreamEnded(), f.HeadersEnded(), f.HasPriority(), dep, f.HeaderBlockFragment())
}

// headers is onHeaders for a HEADERS frame's parts: its stream, its
// END_STREAM and END_HEADERS flags, its priority's dependency (when
// prio) and its fragment.
func (c *Conn) headers(id uint32, endStream, endHeaders, prio bool, dep uint32, frag []byte) error {
	c.reading()
	if id%2 == 0 {
		return http2.ConnectionError(http2.ErrCodeProtocol) // client streams are odd (RFC 9113 5.1.1)
	}
	c.hb = block{kind: blockDiscard, endStream: endStream}
	c.hbStart = c.now
	c.lock()
	st := c.streams[id]
	var refuse, calm bool
	switch {
	case st != nil:
		c.hb.st = st
		st.inBlock = true
		switch {
		case st.remoteEnded:
			c.hb.malformed = true // HEADERS on a half-closed stream: STREAM_CLOSED below
		case !endStream:
			c.hb.malformed = true // trailers must end the stream (RFC 9113 8.1)
		default:
			c.hb.kind = blockTrailers
		}
	case id <= c.maxID:
		c.unlock()
		return http2.ConnectionError(http2.ErrCodeProtocol) // a closed or lower stream (RFC 9113 5.1.1)
	default:
		c.maxID = id
		if len(c.streams) >= int(c.o.MaxConcurrentStreams) {
			refuse = true
			calm = !c.resets.AllowN(c.now, 1)
		} else {
			st = c.newStream(id)
			c.streams[id] = st
			c.lastActive = c.now
			c.hb.st, c.hb.kind = st, blockRequest
			st.inBlock = true
		}
	}
	c.unlock()
	if calm {
		return http2.ConnectionError(http2.ErrCodeEnhanceYourCalm)
	}
	if refuse {
		c.streamError(id, http2.ErrCodeRefusedStream)
	}
	if prio && dep == id {
		c.hb.malformed = true // a stream cannot depend on itself (RFC 9113 5.3.1)
	}
	return c.fragment(frag, endHeaders)
}

// readHeaders takes a whole HEADERS frame with END_HEADERS from the read
// buffer itself, when no header block is in progress, and reports
// whether it did. The Framer would allocate a HeadersFrame for it: the
// one allocation an answered stream would cost. Anything unusual (a frame
// too large for the buffer or for SETTINGS_MAX_FRAME_SIZE, stream 0, bad
// padding) is left to the Framer, which reads it and reports the error.
func (c *Conn) readHeaders() (handled bool, err error) {
	c.reading()
	if c.hb.kind != blockNone {
		return false, nil
	}
	// Peek waits for the next frame's header (a read's error is met again
	// by the Framer).
	h, err := c.br.Peek(frameHeaderLen)
	if err != nil {
		return false, nil
	}
	length := int(h[0])<<16 | int(h[1])<<8 | int(h[2])
	flags := http2.Flags(h[4])
	id := binary.BigEndian.Uint32(h[5:]) & (1<<31 - 1)
	if http2.FrameType(h[3]) != http2.FrameHeaders || !flags.Has(http2.FlagHeadersEndHeaders) || id == 0 ||
		length > maxReadFrame || frameHeaderLen+length > c.br.Size() {
		return false, nil
	}
	frame, err := c.br.Peek(frameHeaderLen + length)
	if err != nil {
		return false, nil
	}
	p := frame[frameHeaderLen:]
	pad := 0
	if flags.Has(http2.FlagHeadersPadded) {
		if len(p) < 1 || int(p[0]) >= len(p) {
			return false, nil
		}
		pad = int(p[0])
		p = p[1:]
	}
	var dep uint32
	prio := flags.Has(http2.FlagHeadersPriority)
	if prio {
		if len(p) < 5+pad {
			return false, nil
		}
		dep = binary.BigEndian.Uint32(p) & (1<<31 - 1)
		p = p[5:]
	}
	if len(p) < pad {
		return false, nil
	}
	err = c.headers(id, flags.Has(http2.FlagHeadersEndStream), true, prio, dep, p[:len(p)-pad])
	c.br.Discard(frameHeaderLen + length)
	return true, err
}

// frameHeaderLen is a frame header's length; maxReadFrame the largest
// frame read (SETTINGS_MAX_FRAME_SIZE's default, which the server keeps).
const (
	frameHeaderLen = 9
	maxReadFrame   = 16384
)

func (c *Conn) onContinuation(f *http2.ContinuationFrame) error {
	// The Framer has checked that it follows a HEADERS or CONTINUATION
	// frame of the same stream without END_HEADERS.
	return c.fragment(f.HeaderBlockFragment(), f.HeadersEnded())
}

// fragment decodes one fragment of the block, and ends the block with
// the last. The block's bytes and frames are bounded before the fragment
// is decoded (CONTINUATION floods): the decoder holds at most one field's
// bytes across fragments.
func (c *Conn) fragment(p []byte, last bool) error {
	c.reading()
	hb := &c.hb
	hb.bytes += len(p)
	hb.frames++
	if hb.bytes > c.o.MaxHeaderBlockBytes || hb.frames > c.o.MaxHeaderBlockFrames {
		return http2.ConnectionError(http2.ErrCodeEnhanceYourCalm)
	}
	if _, err := c.dec.Write(p); err != nil {
		return http2.ConnectionError(http2.ErrCodeCompression)
	}
	if !last {
		return nil
	}
	if err := c.dec.Close(); err != nil {
		return http2.ConnectionError(http2.ErrCodeCompression)
	}
	c.dec.SetEmitEnabled(true)
	return c.endBlock()
}

// onField is the decoder's emit function: it checks each field (RFC 9113
// 8.2 and 8.3) and keeps a request's in its stream's arena.
func (c *Conn) onField(f hpack.HeaderField) {
	hb := &c.hb
	if hb.kind == blockDiscard || hb.malformed {
		return
	}
	hb.size += len(f.Name) + len(f.Value) + 32
	if hb.size > int(c.o.MaxHeaderListSize) {
		if hb.kind == blockRequest {
			hb.st.HeadersTooLarge = true
		}
		c.dec.SetEmitEnabled(false) // the rest is decoded without making strings
		return
	}
	if !validValue(f.Value) {
		hb.malformed = true
		return
	}
	if len(f.Name) > 0 && f.Name[0] == ':' {
		if hb.regular || hb.kind != blockRequest {
			hb.malformed = true // pseudo-header fields come first, and only in a request (8.3)
			return
		}
		i := pseudoIndex(f.Name)
		if i < 0 || hb.has[i] {
			hb.malformed = true
			return
		}
		hb.has[i] = true
		hb.pseudo[i] = hb.st.keep("", f.Value)
		return
	}
	hb.regular = true
	if !validName(f.Name) || isConnectionField(f.Name, f.Value) {
		hb.malformed = true
		return
	}
	if hb.kind != blockRequest {
		return
	}
	st := hb.st
	if f.Name == "content-length" {
		n, ok := parseLength(f.Value)
		if !ok || st.ContentLength >= 0 && st.ContentLength != n {
			hb.malformed = true
			return
		}
		st.ContentLength = n
	}
	st.offs = append(st.offs, st.keep(f.Name, f.Value))
}

// keep appends a field's bytes to the arena.
func (st *Stream) keep(name, value string) fieldOff {
	var o fieldOff
	o.ns = len(st.arena)
	st.arena = append(st.arena, name...)
	o.ne, o.vs = len(st.arena), len(st.arena)
	st.arena = append(st.arena, value...)
	o.ve = len(st.arena)
	return o
}

// endBlock acts on a whole header block.
func (c *Conn) endBlock() error {
	c.reading()
	hb := c.hb
	c.hb = block{}
	st := hb.st
	if st == nil {
		return nil // a refused stream's
	}
	c.lock()
	defer c.unlock()
	st.inBlock = false
	if hb.malformed || hb.kind == blockRequest && !hb.complete() {
		c.release(st)
		if hb.kind == blockDiscard && st.remoteEnded {
			return http2.StreamError{StreamID: st.id, Code: http2.ErrCodeStreamClosed}
		}
		return http2.StreamError{StreamID: st.id, Code: http2.ErrCodeProtocol} // malformed (8.1.1)
	}
	if hb.kind == blockRequest {
		st.fill(hb.pseudo[0], hb.pseudo[1], hb.pseudo[2], hb.pseudo[3], hb.has)
	}
	if hb.endStream {
		st.remoteEnded = true
		if st.ContentLength >= 0 && st.received != st.ContentLength {
			return http2.StreamError{StreamID: st.id, Code: http2.ErrCodeProtocol}
		}
		if st.localEnded {
			c.remove(st) // trailers ending a body dropped after its answer
			return nil
		}
	}
	if hb.kind == blockRequest && !st.remoteEnded && !st.HeadersTooLarge {
		c.headDecide(st) // discard.go
	}
	if !st.handed && (st.remoteEnded || st.HeadersTooLarge || st.HeadOnly) {
		c.handOver(st)
	}
	return nil
}

// complete reports whether a request's pseudo-header fields are all
// there (RFC 9113 8.3.1): :method, :scheme and a non-empty :path, or for
// CONNECT :authority alone.
func (hb *block) complete() bool {
	if !hb.has[0] {
		return false
	}
	st := hb.st
	m := st.arena[hb.pseudo[0].vs:hb.pseudo[0].ve]
	if string(m) == "CONNECT" {
		return hb.has[2] && !hb.has[1] && !hb.has[3]
	}
	return hb.has[1] && hb.has[3] && hb.pseudo[3].ve > hb.pseudo[3].vs
}

func pseudoIndex(name string) int {
	switch name {
	case ":method":
		return 0
	case ":scheme":
		return 1
	case ":authority":
		return 2
	case ":path":
		return 3
	}
	return -1 // :status, :protocol (no extended CONNECT is offered) and the rest
}

// validName: a token (httpguts's check, as x/net's server makes) in lower
// case (RFC 9113 8.2.1, 8.2).
func validName(n string) bool {
	if !httpguts.ValidHeaderFieldName(n) {
		return false
	}
	for i := 0; i < len(n); i++ {
		if b := n[i]; b >= 'A' && b <= 'Z' {
			return false
		}
	}
	return true
}

// validValue: no NUL, CR or LF, and no white space at either end (RFC
// 9113 8.2.1). Not httpguts.ValidHeaderFieldValue: it refuses every
// control byte, which would reset the stream where the HTTP/1.1 path
// answers 400; the HTTP/1.1 parser checks the rest when the engine hands
// it the request, so both framings give the same answer.
func validValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if b := v[i]; b == 0 || b == '\r' || b == '\n' {
			return false
		}
	}
	return v == "" || v[0] != ' ' && v[0] != '\t' && v[len(v)-1] != ' ' && v[len(v)-1] != '\t'
}

// isConnectionField: the fields HTTP/2 forbids (RFC 9113 8.2.2); TE is
// allowed with "trailers" only.
func isConnectionField(name, value string) bool {
	switch name {
	case "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade":
		return true
	case "te":
		return value != "trailers"
	}
	return false
}

// parseLength parses a content-length: digits only (ParseUint takes no
// sign), at most 18 of them.
func parseLength(v string) (int64, bool) {
	if len(v) > 18 {
		return 0, false
	}
	n, err := strconv.ParseUint(v, 10, 63)
	return int64(n), err == nil
}
