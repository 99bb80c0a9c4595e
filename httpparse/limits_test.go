package httpparse

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestResolve checks the defaults and the request line derived from
// MaxTarget.
func TestResolve(t *testing.T) {
	defaults := resolved{target: 8192, line: 8192 + 1024, header: 64 << 10, count: 100}
	tests := []struct {
		name string
		lim  *Limits
		want resolved
	}{
		{"nil", nil, defaults},
		{"zero", &Limits{}, defaults},
		{"DefaultLimits", &DefaultLimits, defaults},
		{"negative", &Limits{MaxTarget: -1, MaxRequestLine: -1, MaxHeaderBytes: -1, MaxHeaders: -1}, defaults},
		{"target moves the line", &Limits{MaxTarget: 100}, resolved{100, 1124, 64 << 10, 100}},
		{"copy of DefaultLimits with a new target", &Limits{MaxTarget: 16384, MaxHeaderBytes: DefaultLimits.MaxHeaderBytes,
			MaxHeaders: DefaultLimits.MaxHeaders}, resolved{16384, 16384 + 1024, 64 << 10, 100}},
		{"line set", &Limits{MaxRequestLine: 50}, resolved{8192, 50, 64 << 10, 100}},
		{"all set", &Limits{1, 2, 3, 4}, resolved{1, 2, 3, 4}},
		{"huge target saturates", &Limits{MaxTarget: maxInt - 1}, resolved{maxInt - 1, maxInt, 64 << 10, 100}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.lim.resolve(), cmp.AllowUnexported(resolved{})); diff != "" {
				t.Errorf("resolve() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
