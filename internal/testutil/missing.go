package testutil

import (
	"os"
	"os/exec"
	"testing"
)

// RequirePrograms names the environment variable under which a test whose
// program is missing fails instead of skipping. .ci/run sets it once it
// has installed what the suite needs (nginx, haproxy, redis-server,
// promtool, chromium), so that CI cannot pass by skipping what it was
// meant to run; a user's clone without them skips, saying which.
const RequirePrograms = "REDIRECTD_REQUIRE_PROGRAMS"

// Missing ends tb for want of a program, why saying which and how to
// install it: a skip, or a failure under RequirePrograms.
func Missing(tb testing.TB, why string) {
	tb.Helper()
	if os.Getenv(RequirePrograms) != "" {
		tb.Fatalf("%s; %s is set, so the program is required", why, RequirePrograms)
		return
	}
	tb.Skip(why)
}

// FindProgram returns the first of names found on PATH or as a path (a
// Debian package's own, such as /usr/sbin/nginx, which a user's PATH may
// not hold), or ends tb by Missing with why.
func FindProgram(tb testing.TB, why string, names ...string) string {
	tb.Helper()
	for _, name := range names {
		if bin, err := exec.LookPath(name); err == nil {
			return bin
		}
	}
	Missing(tb, why)
	return ""
}
