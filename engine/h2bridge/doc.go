// Package h2bridge serves the streams of a TLS connection that
// negotiated h2 with the engine's HTTP/1.1 decisions: engine/h2 frames
// the connection, tlsport holds the TLS connection, and each stream
// becomes the HTTP/1.1 head it stands for, which the engine decides as a
// request read on the plain port (serve.go). One decision, two framings.
//
// What it needs of the engine is the Conn interface, which the engine
// implements for each connection: a stream's head decided (a local
// answer, a reset, or a forward it started), whether a stream needs its
// body, and the client's budget of buffered body bytes. Nothing here
// reads the engine's connection or loop state; the engine's counters,
// access log and panic recovery stay behind Conn.
package h2bridge
