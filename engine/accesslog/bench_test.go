package accesslog

import (
	"testing"

	"github.com/redirectd/redirectd/internal/testutil"
)

// BenchmarkAppend measures formatting a typical redirect into a loop's
// buffer, hand-overs to a writer that discards included. dropped/op should
// stay near 0: a dropped buffer skips the hand-over and flatters the result.
func BenchmarkAppend(b *testing.B) {
	for _, f := range testFormats(b) {
		b.Run(formatName(f), func(b *testing.B) {
			l, buf := warmLog(b, f)
			defer l.Close()
			e := redirect()
			b.SetBytes(int64(len(buf.lf.appendLine(nil, &e))))
			dropped := l.Dropped()
			b.ReportAllocs()
			for b.Loop() {
				buf.Append(&e)
			}
			b.ReportMetric(float64(l.Dropped()-dropped)/float64(b.N), "dropped/op")
			buf.Flush()
		})
	}
}

// warmLog returns a Log that discards, and a Buffer, with every slice the
// Log will ever need already in circulation: it stalls the writer until
// the queue is full, then lets it give all the slices back. What a server
// reaches after a disk stall, a test reaches without depending on how
// often the writer happens to be scheduled.
func warmLog(tb testing.TB, f Format) (*Log, *Buffer) {
	w := gateWriter{open: make(chan struct{})}
	l := newLog(w, f)
	b := l.NewBuffer()
	e := redirect()
	for l.Dropped() == 0 {
		b.Append(&e)
	}
	close(w.open)
	testutil.WaitFor(tb, testutil.Patience, "the writer giving the slices back", func() bool { return len(l.queue) == 0 && len(l.free) >= queueLen })
	return l, b
}

// gateWriter blocks every Write until open is closed, then discards.
type gateWriter struct{ open chan struct{} }

func (w gateWriter) Write(p []byte) (int, error) {
	<-w.open
	return len(p), nil
}

// testFormats are the built-in formats and a layout of every variable.
func testFormats(tb testing.TB) []Format {
	layout, err := ParseFormat(everyVariable)
	if err != nil {
		tb.Fatal(err)
	}
	return []Format{Combined, JSON, layout}
}

func formatName(f Format) string {
	if f.kind == customKind {
		return "layout"
	}
	return f.String()
}
