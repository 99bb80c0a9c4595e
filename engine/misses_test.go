package engine_test

import (
	"bufio"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/engine/misses"
	"github.com/redirectd/redirectd/engine/upstream"
)

// TestMissesForwarded checks that a miss forwarded to a real upstream is
// counted like a 404, that a redirect is not, and that Misses merges
// what both loops counted.
func TestMissesForwarded(t *testing.T) {
	t.Parallel()
	testMissesForwarded(t, plainTCP)
}

func testMissesForwarded(t *testing.T, tr transport) {
	pool := upstream.New(upstream.Config{
		Servers: []string{startUpstream(t, echoUpstream("u"))}, ConnectTimeout: time.Second,
		ReadTimeout: 5 * time.Second, WriteTimeout: 5 * time.Second, MaxConnsPerServer: 8,
	}, nil)
	t.Cleanup(pool.Close)
	srv := tr.start(t, engine.Options{Upstream: &engine.UpstreamOptions{Pool: pool}, MissesCapacity: 32})
	for i := range 6 {
		c := tr.dial(t, srv)
		br := bufio.NewReader(c)
		target := "/forwarded"
		if i%3 == 2 {
			target = "/old" // a rule of testRules: a redirect
		}
		fmt.Fprintf(c, "GET %s?q=%d HTTP/1.1\r\nHost: Shop.Test\r\n\r\n", target, i)
		resp, _ := readFull(t, br, "GET")
		if want := map[bool]int{true: 301, false: 200}[target == "/old"]; resp.StatusCode != want {
			t.Fatalf("%s: %d, want %d", target, resp.StatusCode, want)
		}
		c.Close()
	}
	got, err := srv.Misses(context.Background(), "", 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []misses.Entry{{Host: "shop.test", Path: "/forwarded", Count: 4}}
	if d := cmp.Diff(want, got, cmpopts.IgnoreFields(misses.Entry{}, "FirstSeen", "LastSeen")); d != "" {
		t.Errorf("Misses (-want +got):\n%s", d)
	}
}

// TestMissesOff checks that a server without MissesCapacity says so.
func TestMissesOff(t *testing.T) {
	srv := startServer(t)
	if _, err := srv.Misses(context.Background(), "", 0); err != engine.ErrMissesOff {
		t.Fatalf("Misses: %v, want ErrMissesOff", err)
	}
}
