package daemon

import (
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"github.com/redirectd/redirectd/config/source"
	"github.com/redirectd/redirectd/internal/safego"
)

// lastAnsweredEvery is how often when each rule last answered is
// written to edits_dir, so that a restart keeps it (at most this much
// is lost to a crash; a clean stop writes it too).
const lastAnsweredEvery = time.Minute

// maxLastAnsweredBytes bounds the snapshot read back at start.
const maxLastAnsweredBytes = 512 << 20

// lastAnsweredFile is the snapshot's path, "" without edits_dir.
func (s *service) lastAnsweredFile() string {
	if s.ed.Store() == nil {
		return ""
	}
	return filepath.Join(s.ed.Store().Dir(), "last_answered.json")
}

// restoreLastAnswered reads the snapshot into the serving rules.
func (s *service) restoreLastAnswered() {
	f := s.lastAnsweredFile()
	if f == "" {
		return
	}
	st, err := os.Stat(f)
	if err != nil || st.Size() > maxLastAnsweredBytes {
		return // none yet, or not ours to read whole
	}
	b, err := os.ReadFile(f)
	if err != nil {
		return
	}
	var snap map[string]int64
	if err := json.Unmarshal(b, &snap); err != nil {
		s.log.Warn("cannot read when the rules last answered; starting without", "file", f, "err", err)
		return
	}
	n := s.srv.Rules().RestoreLastAnswered(snap)
	s.log.Info("restored when the rules last answered", "file", f, "rules", n)
}

// writeLastAnswered writes the snapshot, atomically.
func (s *service) writeLastAnswered() {
	f := s.lastAnsweredFile()
	if f == "" {
		return
	}
	b, err := json.Marshal(s.srv.Rules().LastAnswered())
	if err == nil {
		err = source.WriteAtomic(f, b)
	}
	if err != nil {
		s.log.Error("cannot write when the rules last answered", "file", f, "err", err)
	}
}

// snapshotLastAnswered writes the snapshot every lastAnsweredEvery
// until stop closes; it runs on its own goroutine, off the event loops.
func (s *service) snapshotLastAnswered(stop <-chan struct{}) {
	defer safego.Recover("last answered snapshot")
	every(lastAnsweredEvery, stop, s.writeLastAnswered)
}

// withLastAnswered keeps the snapshot written while serve runs, and
// writes it once more when serve returns its exit code. (newService
// restored it, before anything could read /rules.)
func (s *service) withLastAnswered(stop <-chan struct{}, serve func() int) int {
	go s.snapshotLastAnswered(stop)
	code := serve()
	s.writeLastAnswered()
	return code
}
