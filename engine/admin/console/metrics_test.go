package console

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const exposition = "# HELP redirectd_requests_total Answers.\n# TYPE redirectd_requests_total counter\n" +
	"redirectd_requests_total{outcome=\"redirect\",status=\"301\"} 10\nredirectd_requests_total{outcome=\"redirect\",status=\"308\"} 5\n" +
	"redirectd_requests_total{outcome=\"miss\",status=\"404\"} 4\nredirectd_requests_totalx{outcome=\"miss\"} 99\nredirectd_rules{kind=\"exact\"} 3\n"

// TestOutcomeScanner sums the counter by outcome, whatever the writes'
// split, and the sampler turns two looks into rates.
func TestOutcomeScanner(t *testing.T) {
	t.Parallel()
	want := map[string]float64{"redirect": 15, "miss": 4}
	for split := 1; split < len(exposition); split += 7 {
		o := &outcomeScanner{sums: map[string]float64{}}
		o.Write([]byte(exposition[:split]))
		o.Write([]byte(exposition[split:]))
		if diff := cmp.Diff(want, o.sums); diff != "" {
			t.Fatalf("split at %d (-want +got):\n%s", split, diff)
		}
	}
	var rs rateSampler
	now := time.Now()
	write := func(text string) func(*outcomeScanner) {
		return func(o *outcomeScanner) { o.Write([]byte(text)) }
	}
	if r, _ := rs.sample(write(exposition), now); r != nil {
		t.Errorf("rates on the first look: %v", r)
	}
	later := "redirectd_requests_total{outcome=\"redirect\",status=\"301\"} 30\nredirectd_requests_total{outcome=\"miss\",status=\"404\"} 4\n"
	r, window := rs.sample(write(later), now.Add(2*time.Second))
	if diff := cmp.Diff([]rate{{"miss", 0, 4}, {"redirect", 7.5, 30}}, r); diff != "" || window != 2 {
		t.Errorf("rates over %v s (-want +got):\n%s", window, diff)
	}
}

// FuzzOutcomeScanner: any bytes, split anywhere, sum as the whole does,
// and never a negative or missing outcome for a line that is not ours.
func FuzzOutcomeScanner(f *testing.F) {
	f.Add([]byte(exposition), 17)
	f.Add([]byte("redirectd_requests_total{outcome=\"a\"} 1e3\nredirectd_requests_total{} 2\n"), 3)
	f.Fuzz(func(t *testing.T, in []byte, split int) {
		if len(in) > 1<<16 {
			return
		}
		whole := &outcomeScanner{sums: map[string]float64{}}
		whole.Write(in)
		whole.Write([]byte("\n"))
		parts := &outcomeScanner{sums: map[string]float64{}}
		if split < 0 {
			split = -split
		}
		split %= len(in) + 1
		parts.Write(in[:split])
		parts.Write(in[split:])
		parts.Write([]byte("\n"))
		if diff := cmp.Diff(whole.sums, parts.sums, cmp.Comparer(func(a, b float64) bool { return a == b || a != a && b != b })); diff != "" {
			t.Errorf("split at %d (-whole +parts):\n%s", split, diff)
		}
	})
}
