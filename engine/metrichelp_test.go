package engine

import (
	"testing"

	"github.com/redirectd/redirectd/engine/promtext"
)

// TestMetricHelp fails when a family registered in newServerMetrics or
// forServer has no line in metricHelp: /metrics would send it with an
// empty HELP, which promtool rejects.
func TestMetricHelp(t *testing.T) {
	m := newServerMetrics(&Server{})
	m.forServer("127.0.0.1:1") // the per-upstream families
	for _, fam := range promtext.Missing(m.set, metricHelp) {
		t.Errorf("metric family %s has no help: add a one-line description to metricHelp in engine/metrics.go", fam)
	}
}
