package accesslog

import (
	"fmt"

	"github.com/redirectd/redirectd/internal/safego"
)

// run is the writer goroutine: it writes each slice with one Write, so a
// line is never split between two write(2) calls nor interleaved with
// another loop's lines, and gives the slice back for reuse.
func (l *Log) run() {
	defer safego.Recover("access log writer")
	defer close(l.done)
	for {
		select {
		case b := <-l.queue:
			l.write(b)
		case answer := <-l.reopen:
			l.drain()
			answer <- l.reopenFile()
		case <-l.quit:
			// Close set closed before closing quit, so nothing is
			// sent after this drain.
			l.drain()
			if l.file != nil {
				if err := l.file.Close(); err != nil && l.err == nil {
					l.err = fmt.Errorf("cannot close access log %q: %w", l.name, err)
				}
			}
			return
		}
	}
}

// drain writes every slice already queued.
func (l *Log) drain() {
	for {
		select {
		case b := <-l.queue:
			l.write(b)
		default:
			return
		}
	}
}

func (l *Log) write(b batch) {
	// os.File.Write retries short writes itself; one that still fails
	// (disk full) loses the rest of this slice. The first error is kept
	// for Close rather than logged per slice, which would flood stderr.
	if _, err := l.out.Write(b.buf); err != nil && l.err == nil {
		l.err = fmt.Errorf("cannot write access log %q: %w", l.name, err)
	}
	select {
	case l.free <- b.buf[:0]:
	default: // more slices than the free list holds: let the GC have it
	}
}

// reopenFile opens the path again and switches to it; on failure it keeps
// the old file, so the log goes on.
func (l *Log) reopenFile() error {
	file, err := openFile(l.path)
	if err != nil {
		return fmt.Errorf("cannot reopen, still writing to the old file: %w", err)
	}
	old := l.file
	l.out, l.file = file, file
	// The new file is in use either way; a failed close of the old one
	// (its last lines were written already) is only reported.
	if err := old.Close(); err != nil {
		return fmt.Errorf("cannot close rotated access log %q: %w", l.path, err)
	}
	return nil
}
