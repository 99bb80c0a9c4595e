package engine

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/engine/h2"
)

// TestHTTP2Options: the HTTP/2 bounds that apply are [tls]'s where it
// sets them, the server's timeouts where it does not (idle_timeout;
// header_timeout for the preface and a dropped body), and engine/h2's
// defaults for the rest, resolved once (http2Options).
func TestHTTP2Options(t *testing.T) {
	for _, tt := range []struct {
		name string
		set  h2.Options
		want h2.Options
	}{
		{"server's timeouts", h2.Options{MaxConcurrentStreams: 5},
			h2.Options{MaxConcurrentStreams: 5, IdleTimeout: 7 * time.Second, PrefaceTimeout: 3 * time.Second, BodyTimeout: 3 * time.Second}},
		{"set for HTTP/2", h2.Options{IdleTimeout: time.Minute, PrefaceTimeout: time.Second, BodyTimeout: 2 * time.Second},
			h2.Options{IdleTimeout: time.Minute, PrefaceTimeout: time.Second, BodyTimeout: 2 * time.Second}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := &Server{opts: Options{IdleTimeout: 7 * time.Second, HeaderTimeout: 3 * time.Second, TLS: &TLSOptions{HTTP2: tt.set}}}
			if diff := cmp.Diff(tt.want.WithDefaults(), s.http2Options()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
