package forward

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestWithDefaults(t *testing.T) {
	got := Options{}.WithDefaults()
	want := Options{Name: "default", BodyTimeout: DefaultBodyTimeout, SendTimeout: DefaultSendTimeout,
		TunnelIdleTimeout: DefaultTunnelIdleTimeout, RequestBufferBytes: DefaultRequestBufferBytes,
		BodyMinRate: DefaultBodyMinRate, MaxConnsPerClient: DefaultMaxConnsPerClient}
	if d := cmp.Diff(want, got, cmpopts.IgnoreUnexported(Options{})); d != "" {
		t.Errorf("zero options (-want +got):\n%s", d)
	}
	set := Options{Name: "api", BodyTimeout: time.Second, SendTimeout: 2 * time.Second, TunnelIdleTimeout: 3 * time.Second,
		RequestBufferBytes: 1, BodyMinRate: 1, MaxConnsPerClient: 1}
	if d := cmp.Diff(set, set.WithDefaults(), cmpopts.IgnoreUnexported(Options{})); d != "" {
		t.Errorf("set options changed (-want +got):\n%s", d)
	}
}
