package httpparse

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fullResult is a result with the header lines, for comparing ParseResume
// with Parse.
type fullResult struct {
	Result  result
	Headers [][2]string
}

func summarizeFull(n int, err error, r *Request) fullResult {
	f := fullResult{Result: summarize(n, err)(r)}
	if n > 0 && err == nil {
		for _, h := range r.Headers {
			f.Headers = append(f.Headers, [2]string{string(h.Name), string(h.Value)})
		}
	}
	return f
}

// checkResume feeds buf to ParseResume in pieces of the sizes given (cycled,
// each at least 1), as a connection's buffer grows, and checks that every
// answer is Parse's for the same bytes, headers included. Each call gets a
// fresh copy of the bytes so far, and the copy before it is overwritten,
// so that anything ParseResume kept of an earlier buffer would show.
// It returns how many calls it made.
func checkResume(t *testing.T, buf []byte, lim *Limits, sizes []int) int {
	t.Helper()
	var (
		pr      Progress
		r, want Request
		bufs    [2][]byte
		calls   int
	)
	for k := 0; k < len(buf); calls++ {
		k = min(len(buf), k+max(1, sizes[calls%len(sizes)]))
		cur := append(bufs[calls%2][:0], buf[:k]...)
		bufs[calls%2] = cur
		n, err := ParseResume(cur, &r, lim, &pr)
		got := summarizeFull(n, err, &r)
		wn, werr := Parse(buf[:k], &want, lim)
		if d := cmp.Diff(summarizeFull(wn, werr, &want), got, cmp.AllowUnexported(fullResult{})); d != "" {
			t.Fatalf("ParseResume(%q) after pieces of %v differs from Parse (-Parse +ParseResume):\n%s", buf[:k], sizes, d)
		}
		if (n > 0 || err != nil) && pr != (Progress{}) {
			t.Fatalf("ParseResume(%q) = %d, %v but left progress %+v", buf[:k], n, err, pr)
		}
		prev := bufs[(calls+1)%2]
		for i := range prev {
			prev[i] = 0xff
		}
	}
	return calls
}

// resumeSplits are the piece sizes TestParseResume tries on every case.
var resumeSplits = [][]int{{1}, {2}, {3, 1, 7}, {5, 11, 2}, {16}, {64}}

// TestParseResume checks that ParseResume answers as Parse does on every
// case of request_test.go, however the head is split.
func TestParseResume(t *testing.T) {
	for _, group := range [][]parseCase{validCases, errorCases, limitCases, incompleteCases} {
		for _, tc := range group {
			t.Run(tc.name, func(t *testing.T) {
				for _, sizes := range resumeSplits {
					if len(tc.in) > 4096 && sizes[0] < 16 {
						continue // quadratic through Parse; the 16- and 64-byte splits cover them
					}
					checkResume(t, []byte(tc.in), tc.lim, sizes)
				}
			})
		}
	}
	for _, h := range dribbledHeads {
		t.Run("dribbled "+h.name, func(t *testing.T) {
			checkResume(t, []byte(h.head), nil, []int{997})
		})
	}
}

// TestParseResumeLinear checks that a head sent a byte at a time is
// scanned about once: after each byte, the progress kept reaches the end
// of the bytes so far (less the version, or a CR waiting for its LF), so
// the next call scans only the new byte, and the work of all the calls
// together grows with the head's length, not with its square.
func TestParseResumeLinear(t *testing.T) {
	for _, h := range dribbledHeads {
		t.Run(h.name, func(t *testing.T) {
			buf := []byte(h.head)
			var r Request
			var pr Progress
			for k := 1; k < len(buf); k++ {
				if n, err := ParseResume(buf[:k], &r, nil, &pr); n != 0 || err != nil {
					t.Fatalf("prefix of %d bytes: %d, %v", k, n, err)
				}
				reach := max(pr.target, pr.line, pr.hint.scanned)
				if pr.hdr > 0 && reach < k-1 || k > 16 && reach < k-len(" HTTP/1.1\r") {
					t.Fatalf("prefix of %d bytes: progress %+v stops short of its end", k, pr)
				}
			}
			if n, err := ParseResume(buf, &r, nil, &pr); n != len(buf) || err != nil {
				t.Fatalf("whole head: %d, %v", n, err)
			}
		})
	}
}
