// Package proxyproto parses the PROXY protocol header (versions 1 and 2,
// https://www.haproxy.org/download/2.9/doc/proxy-protocol.txt) that a load
// balancer sends before a connection's first byte, in place, for an event
// loop that holds the connection's bytes in a buffer.
//
// Its one job: given the bytes buffered so far, say whether they start
// with a whole header, and if so fill a Header with the addresses it
// carries. It does not decide whom to trust; the caller does.
//
// # Incremental use
//
// Parse looks only at the start of the buffer. It returns (0, nil) while
// the bytes there are a valid prefix of a header, and never once the
// buffer holds MaxV1 bytes (version 1) or 16+MaxV2Body bytes (version 2):
// a caller that buffers that much gets an answer. Bytes that cannot begin
// a header are ErrMissing as soon as the first one differs from both
// signatures, so a client that speaks HTTP directly is refused on its
// first read. Every error is final for every longer buffer with the same
// start.
//
// # Hot-path contract
//
// Parse allocates nothing on any input it accepts. Header holds values,
// not slices of the buffer, so it may be kept after the bytes are
// discarded. Version 2 TLVs are skipped, not read.
//
// # Where it differs from github.com/pires/go-proxyproto
//
// The fuzz target FuzzParseVsPires checks this package against that
// library's Read on the same bytes: the same verdict, and for an accepted
// PROXY command the same addresses. The differences, each on purpose:
//
//   - The library refuses a version 1 line that did not arrive in one read
//     (its reader cannot wait); Parse waits for the rest, up to MaxV1.
//     The fuzz target gives the library all bytes at once, so it does not
//     see this.
//   - For LOCAL (and version 1 UNKNOWN) the library may return the address
//     block as informational addresses; Header leaves Source and
//     Destination zero, because the spec says the receiver must use the
//     connection's own endpoints then, and so does the caller.
//   - For the AF_UNIX families the library returns socket paths; Header has
//     no place for them and leaves Source zero, so the caller keeps the
//     connection's own address, as for LOCAL.
package proxyproto
