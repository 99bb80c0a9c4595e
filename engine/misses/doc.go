// Package misses counts, in bounded memory, the most requested paths per
// host that matched no rule: the redirects still missing after a
// migration. It is a space-saving heavy-hitters sketch (Metwally, Agrawal
// and El Abbadi, "Efficient computation of frequent and top-k elements in
// data streams", 2005) kept as a stream-summary: counters grouped in
// buckets of equal count, the buckets in a list ordered by count.
//
// Guarantees of one Sketch of capacity k after N updates: every key seen
// more than N/k times is tracked; a tracked key's Count is at least its
// true count and at most Error more (Error is at most N/k, the count of
// the smallest counter when it was taken over). Merge sums sketches kept
// apart (one per event loop) the same way, so a merged Count may be over
// by the sum of the sketches' errors, and is never under.
//
// Hot-path contract: Add costs one hash of the key and O(1) list moves,
// and allocates nothing: keys are copied into fixed slots allocated by
// New (MaxHost bytes of host, MaxPath bytes of path; longer ones are
// truncated and marked so). A Sketch is owned by one goroutine (an event
// loop): Add and CopyTo must not run concurrently; Tracked and MinCount
// may be read from any goroutine. Everything else (Snapshot, Merge) runs
// off the hot path and allocates freely.
package misses
