package engine

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/panjf2000/gnet/v2"

	"github.com/redirectd/redirectd/engine/misses"
	"github.com/redirectd/redirectd/httpparse"
)

// Each event loop counts its own misses in a sketch of its own, so that
// counting takes no lock and shares no cache line; GET /misses merges
// them. Options.MissesCapacity is shared out between the loops (the TLS
// listener's stand-in loops included, which run the handler with their
// lock held, one goroutine at a time, as a gnet loop does), so memory
// stays what was configured whatever the number of loops.

// missSketches are the loops' sketches, made by New so that a loop does
// not allocate and clear megabytes when it takes its first connection;
// newMissSketch hands them out.
type missSketches struct {
	list []*misses.Sketch
	next atomic.Int32
}

// initMisses makes the sketches and registers their gauges; called once
// by New.
func (s *Server) initMisses() {
	if s.opts.MissesCapacity <= 0 {
		return
	}
	n := max(s.opts.EventLoops, 1)
	if s.opts.TLS != nil {
		n *= 2 // the TLS listener has as many loops of its own
	}
	for range n {
		s.missSketches.list = append(s.missSketches.list, misses.New((s.opts.MissesCapacity+n-1)/n))
	}
	sum := func(f func(*misses.Sketch) float64) func() float64 {
		return func() float64 {
			var t float64
			s.handler.loops.Range(func(_, v any) bool {
				if sk := v.(*loop).misses; sk != nil {
					t += f(sk)
				}
				return true
			})
			return t
		}
	}
	s.m.set.NewGauge(`redirectd_misses_tracked`, sum(func(sk *misses.Sketch) float64 { return float64(sk.Tracked()) }))
	s.m.set.NewGauge(`redirectd_misses_error_bound`, sum(func(sk *misses.Sketch) float64 { return float64(sk.MinCount()) }))
}

// newMissSketch returns a loop's sketch, nil when misses are not counted.
func (s *Server) newMissSketch() *misses.Sketch {
	if s.opts.MissesCapacity <= 0 {
		return nil
	}
	if i := int(s.missSketches.next.Add(1)) - 1; i < len(s.missSketches.list) {
		return s.missSketches.list[i]
	}
	// More loops than EventLoops (a test's fixture loop, or a gnet
	// that made more): a sketch of the same size.
	return misses.New(s.missSketches.list[0].Cap())
}

// miss counts a request that matched no rule (answered 404 or forwarded).
func (l *loop) miss(req *httpparse.Request) {
	if l.misses != nil && !l.dry {
		l.misses.Add(req.Host, req.Path, l.srv.clock.now())
	}
}

// ErrMissesOff is returned by Misses when Options.MissesCapacity is 0.
var ErrMissesOff = errors.New("misses are not counted: [misses] capacity is 0")

// Misses returns the most requested paths that matched no rule, merged
// from every loop's sketch and sorted by count (see misses.Merge for host
// and limit). Each loop copies its counters on its own goroutine (a copy
// of at most a few MB, no lock); a loop that has not done so when ctx
// ends is left out, and ctx's error returned with what the others gave.
func (s *Server) Misses(ctx context.Context, host string, limit int) ([]misses.Entry, error) {
	if s.opts.MissesCapacity <= 0 {
		return nil, ErrMissesOff
	}
	type job struct {
		snap *misses.Snapshot
		done chan struct{}
	}
	var jobs []job
	s.handler.loops.Range(func(_, v any) bool {
		l := v.(*loop)
		if l.misses == nil {
			return true
		}
		j := job{misses.NewSnapshot(l.misses.Cap()), make(chan struct{})}
		err := l.el.Execute(context.Background(), gnet.RunnableFunc(func(context.Context) error {
			l.misses.CopyTo(j.snap)
			close(j.done)
			return nil
		}))
		if err == nil {
			jobs = append(jobs, j)
		}
		return true
	})
	var snaps []*misses.Snapshot
	var err error
	for _, j := range jobs {
		select {
		case <-j.done:
			snaps = append(snaps, j.snap)
		case <-ctx.Done():
			err = ctx.Err()
		}
	}
	return misses.Merge(snaps, host, limit), err
}

// The HELP text of the misses gauges, kept here with the gauges rather
// than in metrics.go's table, which every feature edits.
func init() {
	metricHelp["redirectd_misses_tracked"] = "Paths that matched no rule tracked for GET /misses, summed over the event loops' sketches (a path seen on two loops counts twice)."
	metricHelp["redirectd_misses_error_bound"] = "The most any count of GET /misses can be over the truth: the sum of the loops' smallest counts once their sketches are full."
}
