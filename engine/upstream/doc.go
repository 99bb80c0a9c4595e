// Package upstream holds the application servers that misses are forwarded
// to: a fasthttp HostClient per server (each its own keep-alive pool, and
// each dialing its fixed address, whatever Host the request carries),
// round-robin or least-connections balancing over the healthy ones, passive
// health (a server failing several connections in a row is taken out for a
// back-off period) and an optional active check. An https:// server is
// dialled over TLS (tls.go), within the connect timeout, and its TLS
// connections are pooled like plain ones.
//
// Everything here runs on the forwarding goroutines, never on an event
// loop: Pick and Done are lock-free.
package upstream
