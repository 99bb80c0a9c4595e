package testutil

import (
	"testing"
)

// recorder is a testing.TB that records how a test was ended.
type recorder struct {
	testing.TB
	ended string
}

func (r *recorder) Helper()                   {}
func (r *recorder) Skip(args ...any)          { r.ended = "skip" }
func (r *recorder) Fatalf(string, ...any)     { r.ended = "fatal" }
func (r *recorder) Fatal(args ...any)         { r.ended = "fatal" }
func (r *recorder) Skipf(string, ...any)      { r.ended = "skip" }
func (r *recorder) Errorf(f string, a ...any) {}

// TestMissing: a missing program skips in a user's clone and fails
// where the programs are required (CI).
func TestMissing(t *testing.T) {
	t.Setenv(RequirePrograms, "")
	r := &recorder{TB: t}
	Missing(r, "x is not installed")
	if r.ended != "skip" {
		t.Errorf("without %s: %s, want skip", RequirePrograms, r.ended)
	}
	t.Setenv(RequirePrograms, "1")
	r = &recorder{TB: t}
	Missing(r, "x is not installed")
	if r.ended != "fatal" {
		t.Errorf("with %s: %s, want fatal", RequirePrograms, r.ended)
	}
}
