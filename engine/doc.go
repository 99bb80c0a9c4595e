// Package engine serves the traffic port: a gnet multi-reactor (one event
// loop per CPU, SO_REUSEPORT) that parses every complete request a read
// delivered, answers each from the current matcher.Set, and writes all the
// answers of one read with one write. Around that path it decides who the
// client is behind proxies, forwards the requests no rule answers to an
// upstream, relays WebSocket tunnels, answers ACME HTTP-01 challenges, and
// serves a TLS listener through the same code.
//
// # The path of a request
//
// handler.OnTraffic (handler.go) takes the bytes of a read; conn.serve
// (conn.go) parses each complete request in them (httpparse) and frames
// it; conn.answer (answer_decide.go) decides what it gets: an ACME
// challenge, the https redirect, a rule's answer (conn.lookup, the one call
// into the matcher), the upstream, or 404. A local answer's bytes are
// appended to the loop's output buffer (answer_bytes.go, and location.go
// for a redirect's Location), which OnTraffic writes once. Who the client
// is (the peer, the PROXY protocol header, a trusted X-Forwarded-For, the
// scheme from the listener or a trusted X-Forwarded-Proto) is decided in
// client.go; rule conditions see the request through condReq
// (conditions.go). Allocation contract: answering a redirect (parse,
// match, write) allocates nothing once a loop's buffers have grown.
//
// A request answered off the loop becomes the connection's forward
// (forwarding.go): the requests after it wait in the buffer until its
// answer is written, so answers keep request order. The exchange is
// driven by package exchange (engine/forward/exchange), which reaches the
// connection only through exchange.Conn, implemented by forward: its body
// is fed from the loop, the exchange runs on a worker (forward.Workers)
// with the header policy of package forward, and the upstream's answer is
// relayed to the client, or a fallback rule's answer written instead. A
// WebSocket upgrade is a forward over an upstream connection of its own,
// which becomes a tunnel on 101. An ACME HTTP-01 challenge is answered on
// a worker, written through a forward without an exchange (challenge.go).
//
// The deadlines (header, idle, lingering close, body, send, tunnel idle)
// are checked by a sweep that each loop runs over its own connections
// (loop.go, conn.checkDeadline, conn.checkForward). A panic in a gnet
// callback, the sweep, a forward's or a tunnel's goroutine or a callback
// run on the loop is recovered there and closes only the connection
// concerned (recover.go).
//
// # Goroutines, and what each may touch
//
// Event loops (gnet, Options.EventLoops of them). A loop runs OnOpen,
// OnTraffic and OnClose for the connections it accepted (OnTraffic also
// when a forward wakes the connection), the AsyncWrite callbacks of their
// forwards (exchange.Forward.onLoop), and the tasks
// handed to it with Execute: the deadline sweep (loop.Run), Swap's reset
// of the loop's Match, the access log flush of Shutdown, and Misses' copy
// of the loop's sketch. It alone touches its loop struct (request, Match,
// output buffer, access-log Buffer, misses sketch) and its conns, and the
// fields of their forwards marked loop-only (the body being fed, buffered
// or pending, the rate, refused, waitDrain, outLast and outSince). Shared state it
// reads is atomic: the rule set pointer, the coarse clock, the Date line,
// draining, the counters. The locks it takes are held for a few
// instructions, never across I/O: a shard of the connection limiter
// (connlimit.go) when a connection opens, when its PROXY header names its
// client and when it closes, a duration histogram's, the access log's
// read lock around a hand-over. It never waits on the disk (the access
// log hands full buffers to its writer without blocking), an upstream or
// a forward.
//
// The ticker (gnet's, OnTick). It sets the coarse clock and, once a
// second, the Date line, queues a sweep on every loop
// (loop.scheduleSweep) and, from the reads the sweeps publish, gives or
// takes back the P spare beside the loops (procs.go); it touches no loop
// or connection itself.
//
// Forward workers (forward.Workers: a worker per forward or challenge
// running at once, which exits after ten idle seconds). A worker runs
// exchange.Forward.Run or exchange.Stream.Run, the upstream exchange, or
// challenge.Run. It touches the
// forward's fields that are not loop-only (the request built on the loop
// before the hand-over, the server picked, the atomics: status, bytes
// sent, abort, stalled, moved), the upstream pool (its HostClients and
// lock-free counters), the per-client slots (upstream_routes.go: sharded
// mutexes) and the metrics, and reads the connection's fields that are
// fixed before its first request (tls, ip, what its peer is trusted
// with). It
// reaches the connection only through AsyncWrite and Wake, which gnet
// allows from any goroutine, and the callbacks those run on the loop,
// which hand the connection back (exchange.Conn.Released). The request
// body reaches the exchange over a channel (exchange's bodyReader), whose
// reader wakes the connection when the loop waits for room.
//
// Tunnels (exchange's tunnel.go: up to three goroutines per WebSocket
// upgrade, not workers). runTunnel dials the upstream, sends the upgrade, relays the
// answer and then the upstream's bytes to the client; once dialled, a
// second goroutine closes the upstream connection when the forward is
// aborted (the client went), and on 101 a third copies the client's bytes,
// which the loop feeds as a body, to the upstream. They touch the forward
// as a worker does, and the upstream connection, which is theirs alone.
//
// TLS connections (tls.go, engine/tlsport). One goroutine accepts, started
// by Run and waiting until the plain listeners are up; each
// connection has one goroutine at a time (the PROXY header and the
// handshake, then reading and serving, handed to a fresh goroutine when
// the connection goes quiet), plus short-lived goroutines for a flush, an
// AsyncWrite made on the loop, a Wake and a close callback; each task
// Executed on a TLS loop runs on a goroutine of its own. Whatever gnet
// would run on a loop runs for a TLS connection with its tlsport.Loop's mutex
// held, so the loop struct and conns of a TLS loop are touched by one
// goroutine at a time, under the rules of an event loop above; the
// network writes (tlsport's Conn.flush) are made with the mutex released.
// A connection that negotiated HTTP/2 is served instead by engine/h2's
// loop on the connection's goroutine (engine/h2bridge): each stream is
// decided (h2conn.go) with the tlsport.Loop's mutex held, as a read
// is, and its frames written with it released; a forwarded stream's exchange runs on a forward
// worker (exchange.Stream), which writes its answer through the h2.Stream
// and takes the mutex only to log.
//
// The access-log writer (engine/accesslog: one per Log). It takes the
// loops' full buffers over a channel and writes them, and reopens the
// file; it touches nothing of the engine.
//
// Upstream health checks (engine/upstream: one goroutine per server, with
// a health_path). Each probes its server and sets its state, which Pick
// reads atomically. fasthttp's HostClients run goroutines of their own for
// their pooled connections.
//
// Waiters. onLoops (Swap, Shutdown) and tlsport.Listener.Stop wait on a
// goroutine each for the work they handed out, with a time bound.
//
// Callers (the daemon, the admin listener's handlers) may call the
// Server's exported methods but Run from any goroutine: they read
// atomics (the metrics too, the misses gauges summing each loop's
// sketch's atomic counts), or hand work to the loops with Execute and wait
// for it with a time bound or their context.
package engine
