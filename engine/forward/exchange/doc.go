// Package exchange drives a request forwarded to an upstream group, on
// the goroutines that do the exchange, apart from the event loop and the
// connection it came on: the request body passed on from the loop
// (body.go), the exchange with the upstream and the server's own answers
// when it fails (exchange.go), the upstream's answer relayed to the
// client (relay.go), a fallback rule's answer in its place (fallback.go),
// WebSocket tunnels (tunnel.go), HTTP/2 streams (stream.go), and what the
// loop does with a forwarding connection meanwhile (forward.go: bytes
// that arrive, its deadlines).
//
// The policy it applies, which fields go upstream and come back, is
// package forward's; what it needs of the engine, the connection it
// answers, is the Conn interface, which the engine implements: the clock,
// its text answers, the hand-back to the loop, the access log, a refusal,
// a close and a recovered panic. Nothing here reads the engine's
// connection or loop state.
package exchange
