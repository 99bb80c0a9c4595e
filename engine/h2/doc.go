// Package h2 serves HTTP/2 (RFC 9113) on one connection that negotiated
// "h2" by ALPN: it reads frames with golang.org/x/net/http2's Framer,
// decodes header blocks with its hpack Decoder, keeps the streams' states
// and both directions' flow control, enforces the connection's limits,
// and hands each complete request to a Handler, whose answer it frames as
// HEADERS (and DATA). It knows nothing of rules or upstreams: the engine's
// Handler turns a Stream into the same request the HTTP/1.1 path decides
// on and gives back the answer that path writes, as HTTP/1.1 bytes, which
// Stream.Answer frames.
//
// # Why a loop of its own rather than http2.Server
//
// http2.Server serves through net/http: a Request, a ResponseWriter, a
// header map and a goroutine per stream. Here one goroutine (the
// connection's, Conn.Serve) reads, decodes and answers every stream whose
// answer is local (a redirect, a 404, a 410), writing the frames before it
// reads the next; only a forwarded stream's answer is written from another
// goroutine (the exchange's). Answer heads are encoded by this package
// (encode.go) as literals that never enter the peer's dynamic table, so an
// answer allocates nothing; what is left per stream is the Framer's own
// HeadersFrame (the Framer allocates one per HEADERS frame it reads) and
// the strings the hpack Decoder makes of literal fields that are not
// already in its dynamic table (none for a client that repeats its
// fields, as browsers and h2load do). See Conn.Serve for the per-stream
// figure the tests hold it to.
//
// # Limits
//
// Every limit is in Options, with its default: concurrent streams,
// header list bytes, header block bytes and frames (CONTINUATION floods),
// the receive windows, the buffered body, streams reset by the client per
// second (rapid reset, CVE-2023-44487), control frames per second
// (SETTINGS, PING, PRIORITY, WINDOW_UPDATE floods), the preface and idle
// timeouts. Past a rate bound the connection gets GOAWAY
// ENHANCE_YOUR_CALM and is closed.
//
// # Goroutines
//
// Serve runs on the connection's goroutine and is the only reader; when
// the connection goes quiet it gives back its buffers and returns, and
// the caller calls it again on a fresh goroutine (buffers.go). Writes
// are made with Conn.mu held, by Serve or by a goroutine answering a
// stream it was handed (Stream.Answer, Stream.WriteData): mu guards the
// streams, the windows, the Framer's write side and the buffered writer.
// A network write is made with mu held, so a client that does not read
// holds back the connection's own reader too, until the send timeout
// (the net.Conn's write deadline, set by the caller) fails the write.
// Who owns what is checked, not only written: owner.go asserts it in race
// builds, in this package's tests and with REDIRECTD_H2_CHECK=1.
package h2
