package daemon

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/config"
)

// TestRestartNeeded: a reload names each setting it cannot apply by its
// table and key, not a list of every section.
func TestRestartNeeded(t *testing.T) {
	old := &config.Config{Server: config.Server{Listen: "127.0.0.1:8080"}, Admin: config.Admin{Listen: "127.0.0.1:9180"}}
	same := *old
	if got := restartNeeded(old, &same); len(got) != 0 {
		t.Errorf("unchanged: %v", got)
	}
	cur := *old
	cur.Server.Listen = "127.0.0.1:8081"
	cur.Admin.Token = "t0k"
	cur.TLS.HSTS = "max-age=60"
	cur.TLS.PostQuantum = true
	cur.Upstream = &config.Upstream{}
	want := []string{"[server] listen", "[admin] token", "[tls] hsts", "[tls] post_quantum"}
	if d := cmp.Diff(want, restartNeeded(old, &cur)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}
