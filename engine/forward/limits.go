package forward

import "time"

// The package's internal bounds, each with its reason. The engine's own
// (what may wait while a request is forwarded) are in its limits.go.

// workerIdle is how long a worker without work waits before it exits. The
// workers a burst started then go away, and stacks with them.
const workerIdle = 10 * time.Second
