//go:build !race

// The race detector allocates: allocation tests run without it.

package tlsconf

import (
	"crypto/tls"
	"testing"
	"time"
)

// TestLookupAllocs checks that choosing a certificate from files
// allocates nothing for a lower-case name.
func TestLookupAllocs(t *testing.T) {
	ca, dir := newTestCA(t), t.TempDir()
	c, k := ca.issue(t, dir, "w", time.Now().Add(time.Hour), "*.wild.example")
	m := newManager(t, &Settings{Certificates: pairs(c, k)})
	hello := &tls.ClientHelloInfo{ServerName: "x.wild.example"}
	if n := testing.AllocsPerRun(100, func() { m.getCertificate(hello) }); n != 0 {
		t.Errorf("getCertificate allocates %v times, want 0", n)
	}
}
