package tlsconf

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// TestAsk checks the answers of the ask URL: 200 allows; another status,
// a redirect and an endpoint that is down refuse; answers are kept.
func TestAsk(t *testing.T) {
	var asked atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		switch r.URL.Query().Get("domain") {
		case "yes.example.com":
		case "moved.example.com":
			http.Redirect(w, r, "/elsewhere", http.StatusFound)
		default:
			http.Error(w, "no", http.StatusNotFound)
		}
	}))
	a, err := newAsker(srv.URL + "/allowed")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		want bool
	}{{"yes.example.com", true}, {"no.example.com", false}, {"moved.example.com", false}, {"yes.example.com", true}} {
		if ok, why := a.allowed(ctx, tc.name); ok != tc.want {
			t.Errorf("%s: allowed = %v (%v), want %v", tc.name, ok, why, tc.want)
		}
	}
	if n := asked.Load(); n != 3 {
		t.Errorf("asked %d times, want 3 (the second yes is kept)", n)
	}
	srv.Close()
	if ok, why := a.allowed(ctx, "down.example.com"); ok || why == nil {
		t.Errorf("an ask URL that is down: allowed = %v, %v; want refused with the reason", ok, why)
	}
	if _, err := newAsker("ftp://x/allowed"); err == nil {
		t.Error("newAsker took an ftp URL")
	}
}
