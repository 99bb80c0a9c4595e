// Package engine serves redirects on the traffic port: a gnet multi-reactor
// (one event loop per CPU, SO_REUSEPORT) that parses every complete request
// a read delivered, answers each from the current matcher.Set, and writes
// all the answers of one read with one write.
//
// Concurrency: each event loop owns its buffers (request struct, matcher
// scratch, output buffer); a connection is served only by the loop that
// accepted it. The rule set is read through an atomic pointer, so Swap
// publishes a new one without stopping or locking the loops.
//
// Allocation contract: answering a redirect (parse, match, write) allocates
// nothing once a loop's buffers have grown.
package engine
