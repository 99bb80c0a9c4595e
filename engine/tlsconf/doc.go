// Package tlsconf has one job: the TLS configuration of the traffic side.
// It loads certificates from files, picks one per handshake by SNI
// (wildcards included, a default for clients without SNI), rotates the
// session ticket keys, obtains and renews certificates through ACME
// (caddyserver/certmagic), and counts handshakes and certificate expiry
// in the server's metrics.
//
// The listener is not here: the engine accepts TLS connections, runs the
// handshake with Manager.TLSConfig() under a deadline, and reports the
// result with HandshakeDone or HandshakeFailed. HTTP-01 challenges are
// answered by the engine's plain listener through HTTPChallenge.
//
// Contract: TLSConfig's GetCertificate runs on the handshake's goroutine
// and does a map lookup for certificates from files; for ACME names it may
// read the storage (the folder, or Redis with [acme.redis]: see
// redisstore), and for an on-demand name it may ask the ask URL and wait
// on the CA (bounded by the handshake's context); a name the decision
// function refuses costs an atomic load and a map lookup. Call Prune
// after each swap of the serving rule set. HTTPChallenge may read the
// storage too: call it from a goroutine, never from an event loop. Reload
// swaps the whole certificate set atomically, or keeps the old one.
package tlsconf
