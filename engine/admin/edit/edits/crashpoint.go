package edits

import (
	"os"
	"strconv"
	"strings"
	"sync/atomic"
)

// The steps of a change, in its write-ahead order, at which the crash
// drills have the process kill itself (CrashPoint): the rules loaded;
// the version file written, synced, renamed and its folder synced (it
// is written while the rules load, so these may come before "loaded");
// the audit record written, then synced; the commit record (current)
// written, synced, renamed and durable; the change committed (edits_dir
// or cache_dir); the rules swapped, the answer not yet sent.
var CrashSteps = []string{
	"loaded",
	"version-written", "version-synced", "version-renamed", "version-durable",
	"audit-written", "audit-synced",
	"current-written", "current-synced", "current-renamed", "current-durable",
	"committed", "swapped",
}

// killAt and killNth are REDIRECTD_TEST_KILL_AT, "step" or "step@N":
// the step a crash drill kills the process at, the Nth time a change
// passes it (the first by default), so that changes acknowledged before
// it are checked too. No one else sets it.
var killAt, killNth = parseKillAt(os.Getenv("REDIRECTD_TEST_KILL_AT"))

// passed counts the changes that passed killAt.
var passed atomic.Int64

func parseKillAt(v string) (string, int64) {
	step, nth, ok := strings.Cut(v, "@")
	n, err := strconv.ParseInt(nth, 10, 64)
	if !ok || err != nil || n < 1 {
		n = 1
	}
	return step, n
}

// armed is set once the node serves (ArmCrashPoints): recovery at start
// passes some of the same steps, and a node that kills itself there
// would never come up for the drill to check.
var armed atomic.Bool

// ArmCrashPoints makes CrashPoint kill from now on.
func ArmCrashPoints() { armed.Store(killAt != "") }

// CrashPoint SIGKILLs the process when REDIRECTD_TEST_KILL_AT names
// step, so that a drill kills a change at each step of its write-ahead
// order every run instead of hoping a random moment falls there. It
// costs one comparison of an empty string otherwise.
func CrashPoint(step string) {
	if !armed.Load() || step != killAt || passed.Add(1) < killNth {
		return
	}
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		p.Kill()
	}
	select {} // SIGKILL is on its way: nothing after this step may run
}
