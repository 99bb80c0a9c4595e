package safego

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
)

// signalled is a slog handler that writes to a buffer and tells when a
// record came.
type signalled struct {
	slog.Handler
	came chan struct{}
}

func (h signalled) Handle(ctx context.Context, r slog.Record) error {
	err := h.Handler.Handle(ctx, r)
	h.came <- struct{}{}
	return err
}

// TestRecover: a panic on a goroutine started with Go, or one that
// defers Recover or RecoverErr, is logged with the goroutine's name and
// counted, and the process goes on; RecoverErr hands the waiter an error.
func TestRecover(t *testing.T) {
	var mu sync.Mutex
	var logged bytes.Buffer
	h := signalled{slog.NewTextHandler(&lockedWriter{&mu, &logged}, nil), make(chan struct{}, 2)}
	SetLogger(slog.New(h))
	t.Cleanup(func() { SetLogger(nil) })
	Go("test-go", func() { panic("boom") })
	<-h.came
	errc := make(chan error, 1)
	go func() {
		var err error
		defer func() { errc <- err }()
		defer RecoverErr("test-err", &err)
		var s []int
		_ = s[len(s)] // a runtime panic
	}()
	if err := <-errc; err == nil || !strings.Contains(err.Error(), "test-err: panic: runtime error: index out of range") {
		t.Errorf("RecoverErr: %v", err)
	}
	<-h.came
	var out bytes.Buffer
	Metrics().WritePrometheus(&out)
	for _, want := range []string{`redirectd_goroutine_panics_total{goroutine="test-go"} 1`, `redirectd_goroutine_panics_total{goroutine="test-err"} 1`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("metrics lack %q:\n%s", want, out.String())
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(logged.String(), "goroutine=test-go panic=boom") {
		t.Errorf("log: %s", logged.String())
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}
