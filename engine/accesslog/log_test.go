package accesslog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// combinedLine matches a whole combined line; the groups are the request
// and the user agent. Escaping guarantees no field holds a '"'.
var combinedLine = regexp.MustCompile(`^\S+ - - \[\d\d/[A-Z][a-z]{2}/\d{4}:\d\d:\d\d:\d\d \+0000\] "([^"]*)" \d{3} \d+ "[^"]*" "([^"]*)" "[^"]*" \d+\.\d{6} "[^"]*" "[^"]*"$`)

// target returns the request target of a line in either format.
func target(t *testing.T, f Format, line string) string {
	t.Helper()
	if f == JSON {
		var v struct{ Target string }
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		return v.Target
	}
	m := combinedLine.FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("line %q is not a combined line", line)
	}
	_, tgt, _ := strings.Cut(m[1], " ")
	return tgt
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 0 && b[len(b)-1] != '\n' {
		t.Errorf("%s ends in a torn line: %q", path, b[max(0, len(b)-80):])
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// TestConcurrentBuffers has four loops log to one real file at once and
// checks that every line arrived whole, once, and that Written counts them.
func TestConcurrentBuffers(t *testing.T) {
	const loops, perLoop = 4, 10000
	for _, f := range []Format{Combined, JSON} {
		t.Run(f.String(), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "access.log")
			l, err := Open(path, f)
			if err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			for g := range loops {
				wg.Go(func() {
					b := l.NewBuffer()
					e := redirect()
					for i := range perLoop {
						e.Target = fmt.Appendf(e.Target[:0], "/g%d/i%d", g, i)
						e.UserAgent = bytes.Repeat([]byte{'a' + byte(g)}, i%300)
						b.Append(&e)
						if i%1000 == 999 {
							b.Flush() // the server's tick
						}
					}
					b.Flush()
				})
			}
			wg.Wait()
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}

			lines := readLines(t, path)
			seen := make(map[string]bool, len(lines))
			for _, line := range lines {
				tgt := target(t, f, line)
				if seen[tgt] {
					t.Fatalf("line for %s written twice", tgt)
				}
				seen[tgt] = true
			}
			if got, want := l.Written()+l.Dropped(), uint64(loops*perLoop); got != want {
				t.Errorf("Written()+Dropped() = %d, want %d", got, want)
			}
			if got := uint64(len(lines)); got != l.Written() {
				t.Errorf("file has %d lines, Written() = %d", got, l.Written())
			}
			if l.Dropped() != 0 {
				t.Logf("%d lines dropped: the disk was slow", l.Dropped())
			}
		})
	}
}

// TestDropWhenBehind puts a pipe nobody reads behind the log: once the pipe
// and the queue are full, Append must drop and count rather than wait.
func TestDropWhenBehind(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	l := newLog(w, Combined)
	b := l.NewBuffer()
	e := redirect()
	var appended uint64
	deadline := time.Now().Add(10 * time.Second)
	for l.Dropped() == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no line dropped after %d appends: Append is waiting on the writer?", appended)
		}
		b.Append(&e)
		appended++
	}
	for range 1000 { // well past the point of dropping, still not blocking
		b.Append(&e)
		appended++
	}
	b.Flush()

	// Let the writer finish, and check the books balance.
	read := make(chan []byte)
	go func() {
		got, _ := io.ReadAll(r)
		read <- got
	}()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	got := <-read
	if n := l.Written() + l.Dropped(); n != appended {
		t.Errorf("Written()+Dropped() = %d, want %d appended", n, appended)
	}
	if n := uint64(bytes.Count(got, []byte{'\n'})); n != l.Written() {
		t.Errorf("pipe got %d lines, Written() = %d", n, l.Written())
	}
}

// TestReopen does what logrotate does: rename the file, then signal.
func TestReopen(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "access.log")
	l, err := Open(path, JSON)
	if err != nil {
		t.Fatal(err)
	}
	b := l.NewBuffer()
	appendFlush := func(targets ...string) {
		for _, tgt := range targets {
			e := redirect()
			e.Target = []byte(tgt)
			b.Append(&e)
		}
		b.Flush()
	}
	appendFlush("/1", "/2", "/3")
	if err := os.Rename(path, path+".1"); err != nil {
		t.Fatal(err)
	}
	if err := l.Reopen(); err != nil {
		t.Fatal(err)
	}
	appendFlush("/4", "/5")
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string][]string{path + ".1": {"/1", "/2", "/3"}, path: {"/4", "/5"}} {
		var got []string
		for _, line := range readLines(t, file) {
			got = append(got, target(t, JSON, line))
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", filepath.Base(file), diff)
		}
	}
	if info, err := os.Stat(path); err != nil {
		t.Error(err)
	} else if perm := info.Mode().Perm(); perm&^0o640 != 0 {
		t.Errorf("new file mode %v, want at most 0640", perm)
	}
	if err := l.Reopen(); !errors.Is(err, ErrClosed) {
		t.Errorf("Reopen after Close = %v, want ErrClosed", err)
	}
}

// TestReopenFails removes the log's directory after rotation: Reopen must
// say so and the log must go on in the old file.
func TestReopenFails(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "logs", "access.log")
	if err := os.Mkdir(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	l, err := Open(path, Combined)
	if err != nil {
		t.Fatal(err)
	}
	b := l.NewBuffer()
	e := redirect()
	b.Append(&e)
	b.Flush()
	rotated := filepath.Join(dir, "access.log.1")
	if err := os.Rename(path, rotated); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Dir(path)); err != nil {
		t.Fatal(err)
	}
	err = l.Reopen()
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("Reopen = %v, want an error naming %s", err, path)
	}
	b.Append(&e)
	b.Flush()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if n := len(readLines(t, rotated)); n != 2 {
		t.Errorf("old file has %d lines, want 2", n)
	}
}

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "nope", "access.log")
	tests := []struct {
		name, path, wantErr string
	}{
		{"stderr", "-", ""},
		{"new file", filepath.Join(dir, "access.log"), ""},
		{"missing directory", missing, fmt.Sprintf("cannot open access log %q: directory %q does not exist: no such file or directory", missing, filepath.Dir(missing))},
		{"directory", dir, fmt.Sprintf("cannot open access log %q: is a directory", dir)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := Open(tt.path, Combined)
			var gotErr string
			if err != nil {
				gotErr = err.Error()
			} else {
				if err := l.Reopen(); err != nil {
					t.Errorf("Reopen: %v", err)
				}
				if err := l.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
			}
			if diff := cmp.Diff(tt.wantErr, gotErr); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAfterClose checks that a loop still logging after Close neither panics
// nor writes: its lines are dropped and counted.
func TestAfterClose(t *testing.T) {
	var out bytes.Buffer
	l := newLog(&out, Combined)
	b := l.NewBuffer()
	e := redirect()
	b.Append(&e)
	b.Flush()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		b.Append(&e)
	}
	b.Flush()
	b.Flush() // nothing left: counts nothing
	l.NewBuffer().Flush()
	if err := l.Close(); err != nil {
		t.Errorf("second Close = %v, want nil", err)
	}
	got := [3]uint64{l.Written(), l.Dropped(), uint64(strings.Count(out.String(), "\n"))}
	if want := [3]uint64{1, 3, 1}; got != want {
		t.Errorf("written, dropped, lines = %v, want %v", got, want)
	}
}

// TestWriteError checks that Close reports the writer's first error.
func TestWriteError(t *testing.T) {
	l := newLog(failWriter{}, JSON)
	b := l.NewBuffer()
	e := redirect()
	b.Append(&e)
	b.Flush()
	err := l.Close()
	if want := `cannot write access log "-": disk full`; err == nil || err.Error() != want {
		t.Errorf("Close = %v, want %s", err, want)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// TestHugeEntry checks that an entry larger than a buffer is written whole.
func TestHugeEntry(t *testing.T) {
	var out bytes.Buffer
	l := newLog(&out, Combined)
	b := l.NewBuffer()
	e := redirect()
	b.Append(&e)
	e.Target = bytes.Repeat([]byte{'\n'}, 3*bufCap)
	b.Append(&e)
	b.Flush()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 16*bufCap)
	var lens []int
	for sc.Scan() {
		if !combinedLine.MatchString(sc.Text()) {
			t.Errorf("line %.80q... is not a combined line", sc.Text())
		}
		lens = append(lens, len(sc.Text()))
	}
	if len(lens) != 2 || lens[1] < 4*3*bufCap {
		t.Errorf("line lengths %v, want 2 lines, the second over %d", lens, 4*3*bufCap)
	}
}
