package accesslog

// Buffer formats one event loop's entries into a slice and hands the slice
// to the Log's writer when it is full or flushed. It is not safe for
// concurrent use: each loop owns one.
type Buffer struct {
	log   *Log
	buf   []byte
	lines uint64
	lf    formatter // line formatter, with this loop's time cache
}

// Append formats e into the buffer and hands the buffer over when it holds
// flushAt bytes. It never waits for the disk; if the writer is behind, the
// buffer's lines are dropped and counted. e's byte slices are not kept.
func (b *Buffer) Append(e *Entry) {
	if len(b.buf) > 0 && len(b.buf)+b.lf.maxLen(e) > cap(b.buf) {
		// Hand over first rather than let append regrow the slice.
		b.Flush()
	}
	b.buf = b.lf.appendLine(b.buf, e)
	b.lines++
	if len(b.buf) >= flushAt {
		b.Flush()
	}
}

// Flush hands over what is buffered, if anything. The server calls it every
// tick (about 100 ms), so a quiet loop's lines reach the file soon, and
// before Close.
func (b *Buffer) Flush() {
	if b.lines == 0 {
		return
	}
	if b.log.handOver(batch{buf: b.buf, lines: b.lines}) {
		b.buf = b.log.getBuf()
	} else {
		b.buf = b.buf[:0] // dropped: reuse the slice
	}
	b.lines = 0
}
