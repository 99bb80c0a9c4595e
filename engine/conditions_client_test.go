package engine_test

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/matcher"
)

// clientConditionRules tell /home apart by client network and method,
// and /split by a share of clients.
func clientConditionRules(t *testing.T) *matcher.Set {
	t.Helper()
	var office []netip.Prefix
	for _, s := range []string{"203.0.113.0/24", "2001:db8::/32", "198.51.100.7", "127.0.0.7"} {
		p, err := matcher.ParseNetwork(s)
		if err != nil {
			t.Fatal(err)
		}
		office = append(office, p)
	}
	set, err := matcher.Compile([]matcher.Rule{
		{From: "/home", To: "https://example.com/everyone", Status: 302},
		{From: "/home", To: "https://example.com/office", Status: 302, When: &matcher.When{IP: office}},
		{From: "/home", To: "https://example.com/post", Status: 307, When: &matcher.When{Method: []string{"POST"}}},
		{From: "/split", To: "https://example.com/b", Status: 302},
		{From: "/split", To: "https://example.com/a", Status: 302, When: &matcher.When{Sample: 0.5}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// askRaw writes raw request bytes on c and returns the answer's status
// and Location.
func askRaw(t *testing.T, c net.Conn, raw string) string {
	t.Helper()
	if _, err := c.Write([]byte(raw)); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: "GET"})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return fmt.Sprintf("%d %s", resp.StatusCode, resp.Header.Get("Location"))
}

// TestClientConditionsEndToEnd sends raw requests to the real server
// over loopback: the client as a trusted X-Forwarded-For names it, the
// method, and requests without either.
func TestClientConditionsEndToEnd(t *testing.T) {
	srv := startServerWith(t, engine.Options{Proxies: engine.ProxyOptions{Trusted: trustLoopback}})
	srv.Swap(clientConditionRules(t))
	tests := []struct{ name, raw, want string }{
		{"office network", "GET /home HTTP/1.1\r\nHost: a\r\nX-Forwarded-For: 203.0.113.9\r\n\r\n", "302 https://example.com/office"},
		{"office IPv6", "GET /home HTTP/1.1\r\nHost: a\r\nX-Forwarded-For: 2001:db8::5\r\n\r\n", "302 https://example.com/office"},
		{"office address", "GET /home HTTP/1.1\r\nHost: a\r\nX-Forwarded-For: 10.0.0.1, 198.51.100.7\r\n\r\n", "302 https://example.com/office"},
		{"next address", "GET /home HTTP/1.1\r\nHost: a\r\nX-Forwarded-For: 198.51.100.8\r\n\r\n", "302 https://example.com/everyone"},
		{"the peer", "GET /home HTTP/1.1\r\nHost: a\r\n\r\n", "302 https://example.com/everyone"},
		{"post", "POST /home HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n", "307 https://example.com/post"},
		{"post from the office", "POST /home HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\nX-Forwarded-For: 203.0.113.1\r\n\r\n", "302 https://example.com/office"},
		{"put", "PUT /home HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n", "302 https://example.com/everyone"},
	}
	var got, want []string
	for _, tt := range tests {
		got = append(got, tt.name+": "+askRaw(t, dial(t, srv), tt.raw))
		want = append(want, tt.name+": "+tt.want)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers (-want +got)\n%s", diff)
	}
}

// TestClientConditionsPeerAndProxy checks the client as the peer itself
// (no proxy trusted: X-Forwarded-For is not believed) and as a PROXY
// protocol header gives it.
func TestClientConditionsPeerAndProxy(t *testing.T) {
	plain := startServerWith(t, engine.Options{})
	plain.Swap(clientConditionRules(t))
	const req = "GET /home HTTP/1.1\r\nHost: a\r\nX-Forwarded-For: 203.0.113.9\r\n\r\n"
	got := []string{
		askRaw(t, dialFrom(t, plain, "127.0.0.7"), req),
		askRaw(t, dialFrom(t, plain, "127.0.0.8"), req),
	}
	pp := startServerWith(t, engine.Options{Proxies: engine.ProxyOptions{Protocol: true, Trusted: trustLoopback}})
	pp.Swap(clientConditionRules(t))
	got = append(got,
		askRaw(t, dial(t, pp), "PROXY TCP4 198.51.100.7 127.0.0.1 5555 80\r\nGET /home HTTP/1.1\r\nHost: a\r\n\r\n"),
		askRaw(t, dial(t, pp), "PROXY TCP6 2001:db8::9 ::1 5555 80\r\nGET /home HTTP/1.1\r\nHost: a\r\n\r\n"),
		askRaw(t, dial(t, pp), "PROXY TCP4 192.0.2.1 127.0.0.1 5555 80\r\nGET /home HTTP/1.1\r\nHost: a\r\n\r\n"),
	)
	want := []string{
		"302 https://example.com/office",   // peer 127.0.0.7
		"302 https://example.com/everyone", // peer 127.0.0.8; its X-Forwarded-For is not believed
		"302 https://example.com/office",
		"302 https://example.com/office",
		"302 https://example.com/everyone",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers (-want +got)\n%s", diff)
	}
}

// TestSampleEndToEnd checks that a share of clients gets the same answer
// on every connection, and that both answers are given.
func TestSampleEndToEnd(t *testing.T) {
	srv := startServerWith(t, engine.Options{Proxies: engine.ProxyOptions{Trusted: trustLoopback}})
	srv.Swap(clientConditionRules(t))
	seen := map[string]int{}
	for i := range 40 {
		raw := fmt.Sprintf("GET /split HTTP/1.1\r\nHost: a\r\nX-Forwarded-For: 192.0.2.%d\r\n\r\n", i)
		first := askRaw(t, dial(t, srv), raw)
		if again := askRaw(t, dial(t, srv), raw); again != first {
			t.Errorf("client 192.0.2.%d: %s, then %s", i, first, again)
		}
		seen[first]++
	}
	if len(seen) != 2 {
		t.Errorf("answers %v, want both of a 0.5 share among 40 clients", seen)
	}
}
