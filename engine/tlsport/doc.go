// Package tlsport is the TLS listener of the traffic port: it accepts
// connections, does the handshake (after a PROXY protocol header when the
// engine asks for one) and dresses each connection as a gnet.Conn (Conn),
// so that the engine's handler serves it with the code that serves the
// plain port, under a Loop that stands in for a gnet event loop. HTTP/2
// connections are handed back to the engine (Handler.ServeH2), which
// frames its answers with engine/h2. Writes are made off the loop's lock,
// each bounded by the send timeout; a quiet connection waits on its
// socket with no buffer and a small stack (wait.go).
package tlsport
