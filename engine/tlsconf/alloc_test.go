//go:build !race

// The race detector allocates: allocation tests run without it.

package tlsconf

import (
	"crypto/tls"
	"testing"
	"time"

	"github.com/redirectd/redirectd/internal/testutil"
)

// TestLookupAllocs checks that choosing a certificate from files
// allocates nothing for a lower-case name.
func TestLookupAllocs(t *testing.T) {
	ca, dir := testutil.NewCA(t), t.TempDir()
	c, k := ca.WriteCert(t, dir, "w", time.Now().Add(time.Hour), "*.wild.example")
	m := newManager(t, &Settings{Certificates: pairs(c, k)})
	hello := &tls.ClientHelloInfo{ServerName: "x.wild.example"}
	if n := testing.AllocsPerRun(100, func() { m.getCertificate(hello) }); n != 0 {
		t.Errorf("getCertificate allocates %v times, want 0", n)
	}
}
