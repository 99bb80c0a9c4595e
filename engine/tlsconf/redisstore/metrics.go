package redisstore

import (
	"fmt"
	"sync"

	"github.com/VictoriaMetrics/metrics"
)

// storageMetrics are Layered's metrics:
//
//	redirectd_tls_storage_up{backend="redis"}            1 while Redis answers
//	redirectd_tls_storage_errors_total{op}                failed calls to Redis (and local_copy writes)
//	redirectd_tls_storage_fallbacks_total{op}             reads answered by the local copy
//	redirectd_tls_storage_restored_total                  files written back to a Redis that lacked them
type storageMetrics struct {
	set      *metrics.Set
	up       *metrics.Gauge
	restored *metrics.Counter

	mu   sync.Mutex
	errs map[string]*metrics.Counter
	fall map[string]*metrics.Counter
}

// ops are the label values, created at start so that a dashboard sees
// zeros rather than no series.
var ops = []string{"ping", "load", "store", "delete", "exists", "stat", "list", "lock", "unlock", "local_copy"}

func newStorageMetrics(set *metrics.Set) *storageMetrics {
	if set == nil {
		set = metrics.NewSet()
	}
	m := &storageMetrics{set: set, up: set.GetOrCreateGauge(`redirectd_tls_storage_up{backend="redis"}`, nil),
		restored: set.GetOrCreateCounter(`redirectd_tls_storage_restored_total`),
		errs:     map[string]*metrics.Counter{}, fall: map[string]*metrics.Counter{}}
	for _, op := range ops {
		m.errors(op)
		if op == "load" || op == "exists" || op == "stat" || op == "list" {
			m.fallbacks(op)
		}
	}
	return m
}

func (m *storageMetrics) errors(op string) *metrics.Counter {
	return m.counter(m.errs, "redirectd_tls_storage_errors_total", op)
}

func (m *storageMetrics) fallbacks(op string) *metrics.Counter {
	return m.counter(m.fall, "redirectd_tls_storage_fallbacks_total", op)
}

// counter is family{op}, made on first use and kept in byOp.
func (m *storageMetrics) counter(byOp map[string]*metrics.Counter, family, op string) *metrics.Counter {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := byOp[op]
	if c == nil {
		c = m.set.GetOrCreateCounter(fmt.Sprintf(`%s{op=%q}`, family, op))
		byOp[op] = c
	}
	return c
}
