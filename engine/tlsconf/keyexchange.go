package tlsconf

import "crypto/tls"

// The key exchanges the HTTPS listener offers (tls.Config.CurvePreferences;
// since Go 1.24 it only filters Go's own order, which puts X25519 first).
//
// classicGroups is the default: X25519, then the NIST curves for clients
// without it, as OpenSSL 3.0 (nginx and HAProxy on Debian 12) offers.
// Go's default adds the post-quantum hybrids X25519MLKEM768 and, since
// Go 1.26, SecP256r1MLKEM768 and SecP384r1MLKEM1024, and picks a hybrid
// whenever the client sends its key share, which every current Chrome,
// Firefox and Safari does. A hybrid handshake costs the server an ML-KEM
// encapsulation and the client's 1,216-byte share on top of the X25519
// exchange: BenchmarkTLSHandshake (engine) measured 599 against 775 us of
// server CPU per full handshake, and 39 against 58 KiB allocated
// (benchmarks/README.md, "Full handshakes").
// What it buys is secrecy of today's traffic against a future quantum
// computer; on a redirector that is the request line, Host and cookies.
// [tls] post_quantum turns the hybrids back on (hybridGroups).
var classicGroups = []tls.CurveID{tls.X25519, tls.CurveP256, tls.CurveP384, tls.CurveP521}

// hybridGroups is [tls] post_quantum = true: Go's default set, the
// hybrids first, then classicGroups for clients that offer none.
var hybridGroups = append([]tls.CurveID{tls.X25519MLKEM768, tls.SecP256r1MLKEM768, tls.SecP384r1MLKEM1024}, classicGroups...)

// keyExchanges returns the groups of the listener's tls.Config.
func keyExchanges(postQuantum bool) []tls.CurveID {
	if postQuantum {
		return hybridGroups
	}
	return classicGroups
}
