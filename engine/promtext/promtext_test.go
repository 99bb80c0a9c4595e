package promtext

import (
	"bytes"
	"strings"
	"testing"

	"github.com/VictoriaMetrics/metrics"
	"github.com/google/go-cmp/cmp"
)

func TestWriteSet(t *testing.T) {
	set := metrics.NewSet()
	set.NewCounter(`demo_requests_total{code="200"}`).Add(3)
	set.NewCounter(`demo_requests_total{code="404"}`).Inc()
	set.NewGauge(`demo_open`, func() float64 { return 2 })
	set.NewPrometheusHistogramExt(`demo_seconds`, []float64{0.5}).Update(0.25)
	set.NewGauge(`demo_unhelped`, func() float64 { return 1 })
	help := Help{
		"demo_requests_total": "Requests by code.",
		"demo_open":           `Open things; a \ and a` + "\nnewline.",
		"demo_seconds":        "Time taken.",
	}
	var b bytes.Buffer
	WriteSet(&b, set, help)
	want := `# HELP demo_open Open things; a \\ and a\nnewline.
# TYPE demo_open gauge
demo_open 2
# HELP demo_requests_total Requests by code.
# TYPE demo_requests_total counter
demo_requests_total{code="200"} 3
demo_requests_total{code="404"} 1
# HELP demo_seconds Time taken.
# TYPE demo_seconds histogram
demo_seconds_bucket{le="0.5"} 1
demo_seconds_bucket{le="+Inf"} 1
demo_seconds_sum 0.25
demo_seconds_count 1
# HELP demo_unhelped
# TYPE demo_unhelped gauge
demo_unhelped 1
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("WriteSet (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"demo_unhelped"}, Missing(set, help)); diff != "" {
		t.Errorf("Missing (-want +got):\n%s", diff)
	}
}

// TestFilterPieces feeds the same text in pieces of every size and split
// at every point: a line cut between two Writes must come out whole.
func TestFilterPieces(t *testing.T) {
	in := "# HELP a_total\n# TYPE a_total gauge\na_total 1\n# HELP gone\n# TYPE gone gauge\ngone 5\n# HELP b has text\n# TYPE b gauge\nb{x=\"y\"} 2\nlast 3"
	f := func() *filter {
		return &filter{help: Help{"a_total": "A.", "b": "B."}, retype: map[string]string{"a_total": "counter"}, drop: map[string]bool{"gone": true}}
	}
	want := "# HELP a_total A.\n# TYPE a_total counter\na_total 1\n# HELP b B.\n# TYPE b gauge\nb{x=\"y\"} 2\nlast 3"
	for size := 1; size <= len(in); size++ {
		var b bytes.Buffer
		fw := f()
		fw.w = &b
		for i := 0; i < len(in); i += size {
			fw.Write([]byte(in[i:min(i+size, len(in))]))
		}
		fw.flush()
		if b.String() != want {
			t.Fatalf("pieces of %d bytes:\n%s\nwant:\n%s", size, b.String(), want)
		}
	}
}

// TestProcessHelp checks that every family WriteProcess writes has its HELP
// text and a TYPE, and that none is one processDrop leaves out.
func TestProcessHelp(t *testing.T) {
	var b bytes.Buffer
	WriteProcess(&b)
	fams, problems := Lint(b.String())
	if len(fams) < 20 {
		t.Fatalf("only %d families:\n%s", len(fams), b.String())
	}
	for _, p := range problems {
		t.Errorf("%s: add a one-line help for it to processHelp in engine/promtext/process.go (or to processDrop, saying why)", p)
	}
	for f := range processDrop {
		if _, ok := fams[f]; ok {
			t.Errorf("%s is written; processDrop should have left it out", f)
		}
	}
	for f, typ := range processRetype {
		if got, ok := fams[f]; ok && got != typ {
			t.Errorf("%s has TYPE %s, want %s", f, got, typ)
		}
	}
}

func TestLint(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"clean", "# HELP a A.\n# TYPE a gauge\na 1\n", nil},
		{"no text", "# HELP a\n# TYPE a gauge\na 1\n", []string{"family a has no HELP text"}},
		{"no type", "# HELP a A.\na 1\n", []string{"family a has no TYPE line after its HELP"}},
		{"other type", "# HELP a A.\n# TYPE b gauge\n", []string{"family a has no TYPE line after its HELP"}},
		{"twice", "# HELP a A.\n# TYPE a gauge\na 1\n# HELP a A.\n# TYPE a gauge\na 2\n",
			[]string{"family a has a second HELP line: is it registered in two metrics.Sets?"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, got := Lint(tc.text)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Lint (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzFilter checks that the filter's output does not depend on how its
// input is cut into Writes, and that text with no HELP or TYPE line passes
// through unchanged.
func FuzzFilter(f *testing.F) {
	f.Add("# HELP a_total\n# TYPE a_total gauge\na_total 1\n", uint8(3))
	f.Add("# HELP gone\n# TYPE gone gauge\ngone 5\nx 1", uint8(1))
	f.Add("no metadata\nat all", uint8(7))
	f.Fuzz(func(t *testing.T, in string, size uint8) {
		if len(in) > 4096 {
			return
		}
		run := func(size int) string {
			var b bytes.Buffer
			fw := &filter{w: &b, help: Help{"a_total": "A.", "x": `back\slash`}, retype: map[string]string{"a_total": "counter"}, drop: map[string]bool{"gone": true}}
			for i := 0; i < len(in); i += size {
				fw.Write([]byte(in[i:min(i+size, len(in))]))
			}
			fw.flush()
			return b.String()
		}
		whole := run(max(len(in), 1))
		if got := run(int(size) + 1); got != whole {
			t.Fatalf("in pieces of %d: %q, whole: %q", int(size)+1, got, whole)
		}
		if !strings.Contains(in, "# HELP ") && !strings.Contains(in, "# TYPE ") && whole != in {
			t.Fatalf("text without metadata changed: %q -> %q", in, whole)
		}
	})
}
