package redisstore

import "errors"

// ErrNotLocked is returned (wrapped) by Unlock for a lock this process
// does not hold.
var ErrNotLocked = errors.New("redisstore: lock not held by this process")

// ErrLockLost is returned (wrapped) by Unlock when the lock had expired
// before it, and may be held by another node now: the work done under it
// was not exclusive (Redis was unreachable for longer than the lock's
// time to live).
var ErrLockLost = errors.New("redisstore: lock expired while held")

// ErrDown is returned (wrapped) by Layered's writes and locks while Redis
// cannot be reached, so that nothing is ordered that the fleet cannot
// share.
var ErrDown = errors.New("redisstore: redis is unreachable")
