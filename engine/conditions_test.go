package engine_test

import (
	"bufio"
	"net/http"
	"testing"

	"github.com/redirectd/redirectd/config/geoip"
	"github.com/redirectd/redirectd/config/geoip/geoiptest"
	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/matcher"
)

// conditionRules are rules for one path with each kind of condition, the
// unconditional one first in file order.
var conditionRules = []matcher.Rule{
	{From: "/home", To: "https://example.com/en/", Status: 302},
	{From: "/home", To: "https://example.com/de/", Status: 302, When: &matcher.When{Language: []string{"de", "de-*"}}},
	{From: "/home", To: "https://example.com/mobile/", Status: 302, When: &matcher.When{Header: []matcher.KeyValue{{Name: "X-Device", Value: "mobile"}}}},
	{From: "/home", To: "https://example.com/fr/", Status: 302, When: &matcher.When{Cookie: []matcher.KeyValue{{Name: "lang", Value: "fr"}}}},
	{From: "/home", To: "https://example.com/at/", Status: 302, When: &matcher.When{Country: []string{"AT", "CH"}}},
}

// startConditionServer serves conditionRules with a country database in
// which 203.0.113.0/24 is Austria and 198.51.100.0/24 France, trusting
// loopback peers' X-Forwarded-For.
func startConditionServer(t *testing.T) *engine.Server {
	t.Helper()
	set, err := matcher.Compile(conditionRules)
	if err != nil {
		t.Fatal(err)
	}
	db, err := geoip.Open(geoiptest.Write(t, map[string]string{"203.0.113.0/24": "AT", "198.51.100.0/24": "FR"}))
	if err != nil {
		t.Fatal(err)
	}
	set.SetCountries(db)
	srv := startServerWith(t, engine.Options{Proxies: engine.ProxyOptions{Trusted: trustLoopback}})
	srv.Swap(set)
	return srv
}

func TestConditionsEndToEnd(t *testing.T) {
	srv := startConditionServer(t)
	const all = "Accept-Language, X-Device, Cookie"
	tests := []struct {
		name, fields   string
		location, vary string
	}{
		{"none", "", "https://example.com/en/", all},
		{"german", "Accept-Language: de-AT, en;q=0.8\r\n", "https://example.com/de/", "Accept-Language"},
		{"german second choice", "Accept-Language: en, de;q=0.9\r\n", "https://example.com/en/", all},
		{"header", "X-Device: mobile\r\n", "https://example.com/mobile/", "Accept-Language, X-Device"},
		{"cookie", "Cookie: a=1; lang=fr\r\n", "https://example.com/fr/", all},
		{"country from trusted X-Forwarded-For", "X-Forwarded-For: 203.0.113.9\r\n", "https://example.com/at/", all},
		{"country not listed", "X-Forwarded-For: 198.51.100.1\r\n", "https://example.com/en/", all},
		{"language before country", "X-Forwarded-For: 203.0.113.9\r\nAccept-Language: de\r\n", "https://example.com/de/", "Accept-Language"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := dial(t, srv)
			if _, err := c.Write([]byte("GET /home HTTP/1.1\r\nHost: a\r\n" + tt.fields + "\r\n")); err != nil {
				t.Fatal(err)
			}
			resp, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: "GET"})
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 302 || resp.Header.Get("Location") != tt.location || resp.Header.Get("Vary") != tt.vary {
				t.Errorf("got %d Location %q Vary %q; want 302 %q %q", resp.StatusCode, resp.Header.Get("Location"), resp.Header.Get("Vary"), tt.location, tt.vary)
			}
		})
	}
}

// TestConditionsRawAnswer checks the bytes of an answer with Vary: one
// line, after Content-Length.
func TestConditionsRawAnswer(t *testing.T) {
	srv := startConditionServer(t)
	c := dial(t, srv)
	if _, err := c.Write([]byte("GET /home HTTP/1.1\r\nHost: a\r\nAccept-Language: de\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	var head []string
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if line == "\r\n" {
			break
		}
		head = append(head, line)
	}
	want := []string{"HTTP/1.1 302 Found\r\n", "Location: https://example.com/de/\r\n", "Content-Length: 0\r\n", "Vary: Accept-Language\r\n"}
	if len(head) < len(want) {
		t.Fatalf("head %q, want it to start with %q", head, want)
	}
	for i, w := range want {
		if head[i] != w {
			t.Errorf("head line %d = %q, want %q (head %q)", i, head[i], w, head)
		}
	}
}

// TestSchemeCondition serves the layout certbot writes for nginx, as the
// import translates it: on plain HTTP every path of old.example goes to
// https, and over TLS the host's own rules answer, ending in a
// no-redirect entry. The plain port's catch-all must never answer a
// request over TLS (it would redirect https://old.example/about to
// itself).
func TestSchemeCondition(t *testing.T) {
	plain, tlsOnly := &matcher.When{Scheme: "http"}, &matcher.When{Scheme: "https"}
	set, err := matcher.Compile([]matcher.Rule{
		{Kind: matcher.Regex, From: "^", To: "https://old.example${path}", Status: 301, Host: "old.example", When: plain},
		{Kind: matcher.Exact, From: "/moved", To: "/new", Status: 301, Host: "old.example", When: tlsOnly},
		{Kind: matcher.Regex, From: "^", Pass: true, Host: "old.example", When: tlsOnly},
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := startServerWith(t, engine.Options{TLS: testTLSOptions(t)})
	srv.Swap(set)
	tests := []struct {
		name     string
		tls      bool
		target   string
		status   int
		location string
	}{
		{"plain: to https", false, "/about?x=1", 301, "https://old.example/about?x=1"},
		{"plain: even a path the TLS server redirects", false, "/moved", 301, "https://old.example/moved"},
		{"TLS: the host's own rule", true, "/moved", 301, "/new"},
		{"TLS: the host's end, not the plain catch-all", true, "/about", 404, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := "GET " + tt.target + " HTTP/1.1\r\nHost: old.example\r\n\r\n"
			var br *bufio.Reader
			if tt.tls {
				br, _ = readTLSAnswer(t, srv, req)
			} else {
				c := dial(t, srv)
				if _, err := c.Write([]byte(req)); err != nil {
					t.Fatal(err)
				}
				br = bufio.NewReader(c)
			}
			resp, err := http.ReadResponse(br, &http.Request{Method: "GET"})
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.status || resp.Header.Get("Location") != tt.location {
				t.Errorf("got %d %q, want %d %q", resp.StatusCode, resp.Header.Get("Location"), tt.status, tt.location)
			}
		})
	}
}
