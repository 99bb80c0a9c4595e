// Package redisstore has one job: keeping certmagic's storage (the ACME
// account, certificates and keys, OCSP staples, challenge data and
// issuance locks) in Redis, so that a fleet of redirectd nodes obtains
// each certificate once and every node serves it.
//
// Redis implements certmagic.Storage and certmagic.TryLocker on one Redis
// server: files are hashes under a key prefix, a sorted set indexes their
// names for List and for directories, and locks are SET NX PX keys
// holding a random token, refreshed while held and deleted only by their
// holder, so that the lock of a crashed node expires.
//
// Layered puts a local folder under Redis: Redis stays the source of
// truth, and every certificate, key and account read from or written to
// it is copied into the folder. While Redis cannot be reached, reads
// (Load, Exists, Stat, List) are answered from the folder, so that a node
// keeps serving every certificate it holds, and writes and locks fail, so
// that no certificate is ordered that the fleet cannot share. The
// redirectd_tls_storage_up gauge and a log line mark each transition.
//
// Contract: every method may wait on the network (bounded by the dial and
// read timeouts, 2 s each, and by ctx); call them off event loops, as
// certmagic does.
package redisstore
