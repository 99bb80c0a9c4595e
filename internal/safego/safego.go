// Package safego is how the server's goroutines end a panic: Recover,
// deferred first on a goroutine, recovers it, logs it with its stack and
// counts it, so that no goroutine the project starts can end the process
// with every connection on it, whatever an input (a client's bytes, an
// upstream's or a Redis server's reply) makes a library do. The engine's
// connection goroutines recover through recoverConn, which also closes
// the connection; every other go statement starts a function that defers
// Recover (TestGoroutinesRecover finds any that does not).
//
// A goroutine that recovered has stopped: what it did (a loop polling a
// source, writing the access log) is not done again until the process
// restarts or the part is rebuilt by a reload. The log line says which.
package safego

import (
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync/atomic"

	"github.com/VictoriaMetrics/metrics"
)

var (
	set    = metrics.NewSet()
	logger atomic.Pointer[slog.Logger]
)

// SetLogger sets where recovered panics are logged (slog.Default until
// then).
func SetLogger(l *slog.Logger) { logger.Store(l) }

// Go runs fn on a new goroutine named name, recovering a panic there.
func Go(name string, fn func()) {
	go func() {
		defer Recover(name)
		fn()
	}()
}

// Recover, deferred as a goroutine's first statement, recovers a panic
// on it: logged with its stack, counted as
// redirectd_goroutine_panics_total{goroutine=name}.
func Recover(name string) {
	if v := recover(); v != nil {
		report(name, v)
	}
}

// RecoverErr is Recover that also sets *err to an error naming the
// panic, for a goroutine whose result someone waits for: it is not left
// waiting for a result that never comes.
func RecoverErr(name string, err *error) {
	if v := recover(); v != nil {
		report(name, v)
		*err = fmt.Errorf("%s: panic: %v", name, v)
	}
}

func report(name string, v any) {
	set.GetOrCreateCounter(fmt.Sprintf(`redirectd_goroutine_panics_total{goroutine=%q}`, name)).Inc()
	l := logger.Load()
	if l == nil {
		l = slog.Default()
	}
	l.Error("panic recovered: the goroutine stopped", "goroutine", name, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
}

// Metrics is the set of redirectd_goroutine_panics_total, for /metrics.
func Metrics() *metrics.Set { return set }
