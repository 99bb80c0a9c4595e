package source

import (
	"os"

	"github.com/redirectd/redirectd/engine/admin/edit/edits"
)

// CrashSteps are the cache's own write points at which a crash drill
// has the process kill itself (edits.CrashPoint, through
// REDIRECTD_TEST_KILL_AT; TestCrashDrillCache): a fetch's files whole
// under tmp/ (staged); a version kept already swapped for the same files
// fetched again (replaced); the fetched folder renamed into versions/
// (moved); each file the cache replaces (its record, current, pinned,
// loading) written under its temporary name, then renamed; pinned
// removed; and loading rewritten without the version, or removed, once
// its load ended (loaded).
var CrashSteps = []string{
	"cache-staged", "cache-replaced", "cache-moved",
	"cache-record-written", "cache-record-renamed",
	"cache-current-written", "cache-current-renamed",
	"cache-pinned-written", "cache-pinned-renamed", "cache-pinned-removed",
	"cache-loading-written", "cache-loading-renamed", "cache-loaded",
}

// crashPoint kills the process at the cache's step, in a crash drill.
func crashPoint(step string) { edits.CrashPoint("cache-" + step) }

// killLoading is REDIRECTD_TEST_KILL_LOADING: the hash of a version whose
// every load kills the process as soon as BeginLoad has recorded it, as a
// rule set that runs a node out of memory would (TestSourceHostile's
// crashing version). Unlike CrashPoint it is live from the start: such a
// version ends a node whenever it is loaded. No one else sets it.
var killLoading = os.Getenv("REDIRECTD_TEST_KILL_LOADING")

// crashLoading kills the process when hash is killLoading.
func crashLoading(hash string) {
	if killLoading == "" || hash != killLoading {
		return
	}
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		p.Kill()
	}
	select {} // SIGKILL is on its way: the load must not run
}
