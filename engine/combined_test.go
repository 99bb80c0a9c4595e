package engine_test

import (
	"bufio"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/engine/upstream"
	"github.com/redirectd/redirectd/matcher"
)

// TestAnswersWindowsConditionsTogether serves one path with a rule of each
// kind of rule gate (windows, shadow, conditions, 410), in the order a site would write them: a German
// campaign inside a window, a shadow rule being tried on mobile devices,
// and a 410 with a cache header for everyone else. Each request must get
// the answer of the first rule that holds, with the Vary of the
// conditions read on the way, and the 410's own header fields.
func TestAnswersWindowsConditionsTogether(t *testing.T) {
	now := time.Now()
	cache := []matcher.Header{{Name: "Cache-Control", Value: "max-age=60"}}
	set, err := matcher.Compile([]matcher.Rule{
		{From: "/promo", To: "https://example.com/de/promo", Status: 302, Headers: cache,
			Active: matcher.Window{From: now.Add(-time.Hour), Until: now.Add(time.Hour)},
			When:   &matcher.When{Language: []string{"de"}}},
		{From: "/promo", To: "https://m.example.com/promo", Status: 302, Shadow: true,
			When: &matcher.When{Header: []matcher.KeyValue{{Name: "X-Device", Value: "mobile"}}}},
		{From: "/promo", Status: 410, Headers: cache},
		{From: "/over", To: "https://example.com/de/over", Status: 302,
			Active: matcher.Window{Until: now.Add(-time.Hour)}, When: &matcher.When{Language: []string{"de"}}},
		{From: "/only-de", To: "https://example.com/de/", Status: 302, When: &matcher.When{Language: []string{"de"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := startServer(t)
	srv.Swap(set)
	type got struct {
		Status                int
		Location, Vary, Cache string
	}
	tests := []struct {
		name, target, fields string
		want                 got
	}{
		{"campaign", "/promo", "Accept-Language: de-DE\r\n", got{302, "https://example.com/de/promo", "Accept-Language", "max-age=60"}},
		{"gone", "/promo", "", got{410, "", "Accept-Language, X-Device", "max-age=60"}},
		{"shadow answers nothing", "/promo", "X-Device: mobile\r\n", got{410, "", "Accept-Language, X-Device", "max-age=60"}},
		{"window over", "/over", "Accept-Language: de\r\n", got{404, "", "", ""}},
		{"miss after a failed condition", "/only-de", "Accept-Language: fr\r\n", got{404, "", "Accept-Language", ""}},
	}
	c := dial(t, srv)
	br := bufio.NewReader(c)
	for _, tt := range tests {
		if _, err := c.Write([]byte("GET " + tt.target + " HTTP/1.1\r\nHost: a\r\n" + tt.fields + "\r\n")); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(br, &http.Request{Method: "GET"})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		resp.Body.Close()
		g := got{resp.StatusCode, resp.Header.Get("Location"), resp.Header.Get("Vary"), resp.Header.Get("Cache-Control")}
		if diff := cmp.Diff(tt.want, g); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestForwardVaryAfterConditions checks that a miss forwarded after a
// rule's conditions failed carries the Vary of the fields they read, next
// to the upstream's own, and that a plain miss carries none.
func TestForwardVaryAfterConditions(t *testing.T) {
	addr := startUpstream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Vary", "Accept-Encoding")
		io.WriteString(w, "upstream\n")
	}))
	srv := startProxy(t, upstream.Config{Servers: []string{addr}}, engine.UpstreamOptions{})
	set, err := matcher.Compile([]matcher.Rule{
		{From: "/home", To: "/de/", Status: 302, When: &matcher.When{Language: []string{"de"}, Cookie: []matcher.KeyValue{{Name: "beta", Value: "1"}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	srv.Swap(set)
	c := dial(t, srv)
	br := bufio.NewReader(c)
	for _, tt := range []struct {
		target string
		want   []string
	}{
		{"/home", []string{"Accept-Encoding", "Accept-Language, Cookie"}},
		{"/other", []string{"Accept-Encoding"}},
	} {
		io.WriteString(c, "GET "+tt.target+" HTTP/1.1\r\nHost: a\r\nAccept-Language: fr\r\n\r\n")
		resp, body := readFull(t, br, "GET")
		if resp.StatusCode != 200 || body != "upstream\n" {
			t.Fatalf("%s: %d %q, want the upstream's answer", tt.target, resp.StatusCode, body)
		}
		if diff := cmp.Diff(tt.want, resp.Header.Values("Vary")); diff != "" {
			t.Errorf("%s: Vary lines (-want +got):\n%s", tt.target, diff)
		}
	}
}
