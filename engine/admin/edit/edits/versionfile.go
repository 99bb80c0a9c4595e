package edits

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/redirectd/redirectd/engine/admin/edit"
)

// writeAtomic replaces name with what fill writes, as source.WriteAtomic
// does (a temporary name, synced, renamed, the folder synced), streamed
// through a buffer: a version of a million edits is 130 MB, which
// json.Marshal would hold whole, twice over while its buffer grows.
// step names its crash points (CrashSteps): "version" or "current".
func writeAtomic(name, step string, fill func(*bufio.Writer) error) error {
	tmp := name + ".tmp"
	err := writeSynced(tmp, step, fill)
	if err == nil {
		err = os.Rename(tmp, name)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("cannot write %s: %w", name, err)
	}
	CrashPoint(step + "-renamed")
	d, err := os.Open(filepath.Dir(name))
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("cannot sync %s: %w", filepath.Dir(name), err)
	}
	CrashPoint(step + "-durable")
	return nil
}

// writeSynced writes a new file name with fill and syncs it.
func writeSynced(name, step string, fill func(*bufio.Writer) error) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	err = fill(w)
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		CrashPoint(step + "-written")
		err = f.Sync()
	}
	if err == nil {
		CrashPoint(step + "-synced")
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// encode writes v as its Marshal does, byte for byte (a test holds
// it), without reflection per edit: at a million edits, Marshal took a
// second of a promote and 256 MB of garbage.
func encode(v *edit.Version, w *bufio.Writer) error {
	// Its other fields as Marshal writes them: edits come last, and
	// are left out when there are none.
	head := *v
	head.Edits = nil
	hb, err := head.Marshal()
	if err != nil {
		return err
	}
	if len(v.Edits) == 0 {
		_, err = w.Write(hb)
		return err
	}
	hb = hb[:len(hb)-1] // its }
	w.Write(hb)
	if len(hb) > 1 {
		w.WriteByte(',')
	}
	w.WriteString(`"edits":[`)
	var b []byte
	for i := range v.Edits {
		b = b[:0]
		if i > 0 {
			b = append(b, ',')
		}
		if b, err = appendEdit(b, &v.Edits[i]); err != nil {
			return err
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	_, err = w.WriteString("]}")
	return err
}

// appendEdit appends e as json.Marshal writes it. An edit with
// conditions or headers (few: the console's form makes them one at a
// time) goes through Marshal itself, so its maps are written as Marshal
// writes them, keys sorted.
func appendEdit(b []byte, e *edit.Edit) ([]byte, error) {
	if (*edit.Entry)(&e.Entry).Conditioned() {
		j, err := json.Marshal(e)
		return append(b, j...), err
	}
	b = append(b, `{"op":`...)
	b = appendString(b, e.Op)
	b = append(b, `,"host":`...)
	b = appendString(b, e.Host)
	b = append(b, `,"from":`...)
	b = appendString(b, e.From)
	if e.To != "" {
		b = append(b, `,"to":`...)
		b = appendString(b, e.To)
	}
	if e.Status != 0 {
		b = append(b, `,"status":`...)
		b = strconv.AppendInt(b, int64(e.Status), 10)
	}
	if e.Kind != "" {
		b = append(b, `,"kind":`...)
		b = appendString(b, e.Kind)
	}
	if e.By != "" {
		b = append(b, `,"by":`...)
		b = appendString(b, e.By)
	}
	b = append(b, `,"at":`...)
	if y := e.At.Year(); e.At.Location() == time.UTC && y >= 0 && y <= 9999 {
		// What MarshalJSON writes, without its allocation.
		b = append(b, '"')
		b = e.At.AppendFormat(b, time.RFC3339Nano)
		b = append(b, '"')
	} else {
		at, err := e.At.MarshalJSON()
		if err != nil {
			return nil, err
		}
		b = append(b, at...)
	}
	if e.Version != 0 {
		b = append(b, `,"version":`...)
		b = strconv.AppendInt(b, int64(e.Version), 10)
	}
	if e.Restored != 0 {
		b = append(b, `,"restored":`...)
		b = strconv.AppendInt(b, int64(e.Restored), 10)
	}
	return append(b, '}'), nil
}

// appendString appends s quoted as json.Marshal quotes it: printable
// ASCII other than the characters it escapes (", \, and <, > and & as
// HTML) as it is, anything else through Marshal itself.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// WriteFile replaces name with b as writeAtomic does: what is kept
// beside the versions for the operator (GET /ruleset's copy).
func WriteFile(name string, b []byte) error {
	return writeAtomic(name, "file", func(w *bufio.Writer) error {
		_, err := w.Write(b)
		return err
	})
}
