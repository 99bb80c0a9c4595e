package engine

import (
	"testing"

	"github.com/redirectd/redirectd/engine/promtext"
	"github.com/redirectd/redirectd/engine/upstream"
)

// TestMetricHelp fails when a family registered in newServerMetrics or
// forServer has no line in metricHelp: /metrics would send it with an
// empty HELP, which promtool rejects.
func TestMetricHelp(t *testing.T) {
	m := newServerMetrics(&Server{})
	pool := upstream.New(upstream.Config{Servers: []string{"127.0.0.1:1"}}, nil)
	defer pool.Close()
	m.forServer("default", pool.Servers()[0]) // the per-upstream families
	for _, fam := range promtext.Missing(m.set, metricHelp) {
		t.Errorf("metric family %s has no help: add a one-line description to metricHelp in engine/metrics.go", fam)
	}
}
