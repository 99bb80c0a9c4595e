// Package accesslog writes the server's access log without ever making an
// event loop wait on the disk.
//
// Each event loop owns a *Buffer and formats every answered request into it
// with Append. When the buffer holds about 32 KiB (and on Flush, which the
// server calls every tick) the filled slice is handed to the Log's single
// writer goroutine over a channel, without blocking. The writer writes each
// slice with one write(2) on a file opened O_APPEND, so lines are never torn
// or interleaved, and returns the slice to a free list for the next
// hand-over. If the writer is behind (the channel is full) the buffer's lines
// are dropped and counted in Dropped: a slow disk costs log lines, never
// latency.
//
// # Hot-path contract
//
//   - Append and Flush never block on the disk; they take a read lock only
//     for the non-blocking channel send, which Close holds for a few
//     instructions.
//   - Append allocates nothing in steady state. It makes a 64 KiB slice
//     only when the writer has not yet given one back; every slice stays in
//     circulation, so a Log makes at most about 66 of them plus one per
//     Buffer over its life. An entry whose escaped fields would not fit in
//     64 KiB (a huge target) grows its slice once.
//   - The byte slices in Entry are read only during Append; they may point
//     into the loop's buffers.
//   - A Buffer is not safe for concurrent use: one per event loop. Lines
//     still in a Buffer are not written until it is flushed, so the server
//     flushes every loop's Buffer before Close.
//
// # Formats
//
// Every string that came from the request is escaped, so a client can neither
// forge a line (CR, LF) nor break a field (quotes) nor smuggle terminal escape
// sequences into whoever tails the log.
//
// "combined" is nginx's combined format extended at the end with the Location
// (or upstream address), the duration in seconds with microsecond resolution,
// the matched rule and the Host:
//
//	client - - [time] "method target protocol" status body_bytes "referer" "user_agent" "location-or-upstream" duration_seconds "rule" "host"
//
//	203.0.113.7 - - [30/Nov/2026:05:10:14 +0000] "GET /old?x=1 HTTP/1.1" 301 0 "https://ref.example/" "curl/8.5.0" "https://new.example/page?x=1" 0.000042 "rules.toml:12" "old.example"
//
// The first nine fields mean what nginx's combined format's do: body_bytes
// is $body_bytes_sent, the bytes of the answer's body (0 for an
// empty-bodied redirect, where nginx's own 301 page counts about 169), and
// the Host comes last, as sent, so a parser of nginx's combined lines reads
// redirectd's unchanged. The duration runs from the start of the read that
// brought the request's first byte to its answer, for every answer. Time
// is in UTC. An empty string field is printed as "-" (the client too, when
// its address is unknown); status and bytes are always numbers. Like
// nginx's access_log, the bytes '"', '\', those below 0x20 and those from
// 0x7f up are written as \xHH (upper-case hex), so every line is printable
// ASCII.
//
// A layout of nginx log_format $variables ("$remote_addr [$time_local]
// \"$request\" $status ...") is compiled once by ParseFormat into a list
// of ops; an unknown variable is refused there, and a line costs no
// allocation. The variables are those of Variables and $http_NAME; each
// means what nginx's does, checked against a real nginx by
// TestAccessLogAsNginx in the engine: $host is lower-case without the
// port, $uri is the path decoded and with dot segments and "//"
// resolved, $request_time is seconds with milliseconds, $upstream_* are
// "-" for an answer that was not forwarded, and a variable that is empty
// or does not apply is "-" ($is_args excepted). Times are in UTC, where
// nginx uses the local zone. $remote_user is always "-"; $rule and
// $shadow_rule are redirectd's own. With escape "json" strings are
// escaped for a JSON string and an absent variable is empty, as nginx's
// escape=json.
//
// "json" is one object per line with fixed keys in a fixed order:
//
//	{"time":"2026-11-30T05:10:14.123Z","client":"203.0.113.7","host":"old.example","method":"GET","target":"/old?x=1","status":301,"location":"https://new.example/page?x=1","upstream":"","bytes":162,"body_bytes":0,"duration_ms":0.042,"user_agent":"curl/8.5.0","referer":"https://ref.example/","rule":"rules.toml:12"}
//
// bytes is the whole answer, head included (nginx's $bytes_sent), and
// body_bytes its body ($body_bytes_sent).
//
// A request that a shadow rule would have answered (mode = "shadow") adds
// two fields after rule in combined, "shadow_rule" "shadow_location", and
// the keys "shadow_rule" and "shadow_location" after "rule" in json; other
// lines are unchanged.
//
// time is RFC 3339 in UTC with milliseconds; duration_ms is a number with
// microsecond resolution; empty fields are "". Strings are escaped as
// RFC 8259 requires; besides, DEL and the C1 controls are written as \u00XX
// and U+2028/U+2029 as \u2028/\u2029 (as encoding/json does), and a byte
// that is not valid UTF-8 becomes \ufffd, so every line is valid UTF-8 JSON.
package accesslog
