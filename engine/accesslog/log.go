package accesslog

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
)

const (
	// flushAt is the fill at which a Buffer hands its slice over: large
	// enough that a busy loop makes a few hundred write(2) calls a second
	// rather than one per request.
	flushAt = 32 << 10
	// bufCap is the capacity of a fresh slice: flushAt plus room for the
	// entry that crosses it, so crossing never regrows the slice.
	bufCap = 2 * flushAt
	// queueLen is how many filled slices may wait for the writer: about
	// 2 MiB, some ten thousand lines, of slack for a disk that stalls,
	// before lines are dropped.
	queueLen = 64
)

// Log is the access log: a single writer goroutine that owns the file, fed
// by any number of Buffers. Its methods are safe for concurrent use.
type Log struct {
	format Format
	path   string // "" when the log cannot be reopened (stderr, tests)
	name   string // the path, or "-", for error messages

	// mu orders hand-overs against Close: Buffers send under the read
	// lock after checking closed, so once Close has set closed under the
	// write lock no slice can enter queue behind the writer's last drain.
	mu     sync.RWMutex
	closed bool

	queue   chan batch      // filled slices, to the writer
	free    chan []byte     // written slices, back to the Buffers
	reopen  chan chan error // Reopen's requests, answered by the writer
	quit    chan struct{}   // closed by Close
	done    chan struct{}   // closed when the writer has exited
	dropped atomic.Uint64
	written atomic.Uint64

	// Owned by the writer goroutine; err is read by Close after done.
	out  io.Writer
	file *os.File // nil when out is not ours to close or reopen
	err  error    // the first write error
}

// batch is a filled slice and the number of lines in it.
type batch struct {
	buf   []byte
	lines uint64
}

// Open starts the access log at path, opened O_APPEND|O_CREATE|O_WRONLY with
// mode 0640 (before umask), or on stderr when path is "-". The directory
// must exist: the log does not create it.
func Open(path string, f Format) (*Log, error) {
	if path == "-" {
		return newLog(os.Stderr, f), nil
	}
	file, err := openFile(path)
	if err != nil {
		return nil, err
	}
	l := newLog(file, f)
	l.path, l.name, l.file = path, path, file
	return l, nil
}

// newLog starts a log writing to w, which it neither closes nor reopens.
// Tests use it to put a pipe or a slow writer behind the log.
func newLog(w io.Writer, f Format) *Log {
	l := &Log{
		format: f,
		queue:  make(chan batch, queueLen),
		// queueLen+1 holds every slice the writer can give back (the
		// queue's and the one in hand) even when no Buffer takes one.
		free:   make(chan []byte, queueLen+1),
		reopen: make(chan chan error),
		quit:   make(chan struct{}),
		done:   make(chan struct{}),
		name:   "-",
		out:    w,
	}
	go l.run()
	return l
}

func openFile(path string) (*os.File, error) {
	file, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o640)
	if err == nil {
		return file, nil
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err // the path is in our message already
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("cannot open access log %q: directory %q does not exist: %w",
			path, filepath.Dir(path), err)
	}
	return nil, fmt.Errorf("cannot open access log %q: %w", path, err)
}

// Fields returns the request header fields the format reads
// (Format.Fields), whose values go into Entry.Fields in this order.
func (l *Log) Fields() []string { return l.format.Fields() }

// NewBuffer returns a Buffer for one event loop.
func (l *Log) NewBuffer() *Buffer {
	return &Buffer{log: l, buf: l.getBuf(), lf: formatter{format: l.format}}
}

// Reopen makes the writer write everything already handed over to the
// current file, then open path again and switch to it: after logrotate has
// renamed the file, lines flushed before Reopen are in the renamed file and
// later ones in the new. If the open fails, the error is returned and the
// log goes on writing to the old file. Reopen does nothing for stderr.
func (l *Log) Reopen() error {
	if l.path == "" {
		return nil
	}
	answer := make(chan error, 1)
	select {
	case l.reopen <- answer:
		return <-answer
	case <-l.done:
		return ErrClosed
	}
}

// Close writes everything handed over, closes the file (never stderr) and
// returns the first error the writer met. Lines still in a Buffer are not
// written: flush each Buffer first. Append and Flush after Close drop and
// count their lines; a second Close returns nil.
func (l *Log) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.closed = true
	l.mu.Unlock()
	close(l.quit)
	<-l.done
	return l.err
}

// Dropped returns the number of lines dropped because the writer was behind
// (or the log was closed).
func (l *Log) Dropped() uint64 { return l.dropped.Load() }

// Written returns the number of lines handed to the writer. A failed write
// can still lose some of them; Close returns the first such error.
func (l *Log) Written() uint64 { return l.written.Load() }

// handOver queues a filled slice for the writer without waiting. It reports
// whether the writer took it; if not, the caller keeps the slice and the
// lines are counted as dropped.
func (l *Log) handOver(b batch) bool {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if !l.closed {
		select {
		case l.queue <- b:
			l.written.Add(b.lines)
			return true
		default:
		}
	}
	l.dropped.Add(b.lines)
	return false
}

// getBuf returns an empty slice, a written one when the writer has given
// one back.
func (l *Log) getBuf() []byte {
	select {
	case b := <-l.free:
		return b
	default:
		return make([]byte, 0, bufCap)
	}
}
