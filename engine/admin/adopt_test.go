package admin

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/redirectd/redirectd/engine/testport"
)

// TestAdopt: a server started on a temporary address takes another one
// and lets the first go, as serve -upgrade takes the configured admin
// port back; before Start and after Shutdown there is nothing to adopt.
func TestAdopt(t *testing.T) {
	s, err := New(Options{Listen: "127.0.0.1:0"}, newFake())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Adopt(testport.Free(t)); !errors.Is(err, errNotStarted) {
		t.Errorf("Adopt before Start = %v, want errNotStarted", err)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	first := s.Addr()
	second := testport.Free(t)
	if err := s.Adopt(second); err != nil {
		t.Fatal(err)
	}
	if s.Addr() != second {
		t.Errorf("Addr() = %s after Adopt(%s)", s.Addr(), second)
	}
	resp, err := http.Get("http://" + second + "/healthz")
	if err != nil {
		t.Fatalf("the adopted address does not answer: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("/healthz on the adopted address: %d", resp.StatusCode)
	}
	http.DefaultClient.CloseIdleConnections()
	if resp, err := http.Get("http://" + first + "/healthz"); err == nil {
		resp.Body.Close()
		t.Errorf("the first address still answers after Adopt")
	}
	if err := s.Adopt(second); err == nil {
		t.Errorf("Adopt of the address it listens on succeeded")
	}
	s.Shutdown(context.Background())
	if err := s.Adopt(testport.Free(t)); !errors.Is(err, errNotStarted) {
		t.Errorf("Adopt after Shutdown = %v, want errNotStarted", err)
	}
}
