package tlsconf

import (
	"crypto/tls"
	"testing"
	"time"

	"github.com/redirectd/redirectd/internal/testutil"

	"github.com/google/go-cmp/cmp"
)

// TestKeyExchange checks the group each kind of client gets, with and
// without [tls] post_quantum, over a real handshake: no hybrid by default,
// even to a client that sends its share, and never a HelloRetryRequest
// for a client that sent a share the server accepts.
func TestKeyExchange(t *testing.T) {
	t.Parallel()
	ca, dir := testutil.NewCA(t), t.TempDir()
	c, k := ca.WriteCert(t, dir, "a", time.Now().Add(time.Hour), "a.example.com")
	type result struct {
		Group tls.CurveID
		Retry bool
		Err   bool
	}
	// Go's client, as Chrome and Firefox, sends a share for the hybrid
	// and one for X25519 when it offers the hybrid; else one for its
	// first group in Go's order.
	clients := []struct {
		name   string
		max    uint16
		groups []tls.CurveID
	}{
		{"openssl-3.0", tls.VersionTLS13, []tls.CurveID{tls.X25519, tls.CurveP256, tls.CurveP384}},
		{"browser", tls.VersionTLS13, []tls.CurveID{tls.X25519MLKEM768, tls.X25519, tls.CurveP256}},
		{"p256-only", tls.VersionTLS13, []tls.CurveID{tls.CurveP256}},
		{"hybrid-only", tls.VersionTLS13, []tls.CurveID{tls.X25519MLKEM768}},
		{"tls12", tls.VersionTLS12, []tls.CurveID{tls.X25519, tls.CurveP256}},
	}
	for _, tt := range []struct {
		postQuantum bool
		want        map[string]result
	}{
		{false, map[string]result{
			"openssl-3.0": {Group: tls.X25519},
			"browser":     {Group: tls.X25519},
			"p256-only":   {Group: tls.CurveP256},
			"hybrid-only": {Err: true},
			"tls12":       {Group: tls.X25519},
		}},
		{true, map[string]result{
			"openssl-3.0": {Group: tls.X25519},
			"browser":     {Group: tls.X25519MLKEM768},
			"p256-only":   {Group: tls.CurveP256},
			"hybrid-only": {Group: tls.X25519MLKEM768},
			"tls12":       {Group: tls.X25519},
		}},
	} {
		m := newManager(t, &Settings{Certificates: pairs(c, k), PostQuantum: tt.postQuantum})
		addr := serveTLS(t, m, nil)
		got := map[string]result{}
		for _, cl := range clients {
			st, err := dial(addr, &tls.Config{ServerName: "a.example.com", RootCAs: ca.Pool(), MaxVersion: cl.max, CurvePreferences: cl.groups})
			got[cl.name] = result{Group: st.CurveID, Retry: st.HelloRetryRequest, Err: err != nil}
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("post_quantum %v: groups (-want +got):\n%s", tt.postQuantum, d)
		}
	}
}
