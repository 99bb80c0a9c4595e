package edits

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/redirectd/redirectd/engine/admin/edit"
)

// Audit is the audit log: JSON lines, each appended in one write and
// synced before the change it records is acknowledged. A write that
// fails part way (a full disk) is cut off again, so the next record
// starts on a line of its own.
type Audit struct {
	mu   sync.Mutex
	path string
}

// OpenAudit opens the audit log at path (made when missing), cuts off a
// last line that a crash left without its newline, and returns the
// records it holds; a line that does not parse (written by an older
// redirectd that glued two records) is skipped and counted in bad.
func OpenAudit(path string) (a *Audit, recs []edit.Record, bad int, err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, nil, 0, fmt.Errorf("cannot make the folder of [admin] audit_log: %w", err)
	}
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return nil, nil, 0, fmt.Errorf("cannot read [admin] audit_log: %w", err)
	}
	if whole := bytes.LastIndexByte(b, '\n') + 1; whole < len(b) {
		if err := os.Truncate(path, int64(whole)); err != nil {
			return nil, nil, 0, fmt.Errorf("cannot cut the torn last line of [admin] audit_log %s: %w", path, err)
		}
		b = b[:whole]
	}
	for line := range bytes.Lines(b) {
		var r edit.Record
		if json.Unmarshal(line, &r) != nil {
			bad++
			continue
		}
		recs = append(recs, r)
	}
	return &Audit{path: path}, recs, bad, nil
}

// Path returns the log's file name.
func (a *Audit) Path() string { return a.path }

// Append writes r as one line, synced. On an error the log is as it was.
func (a *Audit) Append(r edit.Record) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	a.mu.Lock()
	defer a.mu.Unlock()
	f, err := os.OpenFile(a.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o640)
	if err != nil {
		return fmt.Errorf("cannot open [admin] audit_log: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("cannot append to [admin] audit_log: %w", err)
	}
	// One write: a record is never interleaved with another's bytes.
	_, err = f.Write(b)
	if err == nil {
		CrashPoint("audit-written")
		err = f.Sync()
	}
	if err == nil {
		CrashPoint("audit-synced")
	}
	if err == nil && st.Size() == 0 {
		err = syncDir(filepath.Dir(a.path)) // a new file's name, synced too
	}
	if err != nil {
		// Cut a part written off, so the next record starts a line.
		f.Truncate(st.Size())
		return fmt.Errorf("cannot append to [admin] audit_log %s: %w", a.path, err)
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
