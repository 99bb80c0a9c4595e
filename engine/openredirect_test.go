package engine_test

import (
	"bufio"
	"fmt"
	"testing"

	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/matcher"
)

// TestOpenRedirects sends, over a real socket, the requests that turned
// prefix and capture rules into redirects to another host, and checks that every Location keeps the host written in `to`, or
// stays on the request's own host when `to` names none.
func TestOpenRedirects(t *testing.T) {
	t.Parallel()
	testOpenRedirects(t, plainTCP)
}

func testOpenRedirects(t *testing.T, tr transport) {
	srv := tr.start(t, engine.Options{})
	set, err := matcher.Compile([]matcher.Rule{
		{Kind: matcher.Prefix, Host: "a.example", From: "/old", To: "https://new.example.com", Status: 301},
		{Kind: matcher.Prefix, Host: "b.example", From: "/blog/", To: "/", Status: 301},
		{Kind: matcher.Regex, Host: "c.example", From: `^/blog/(.*)$`, To: "/$1", Status: 301},
		{Kind: matcher.Prefix, Host: "d.example", From: "/", To: "https://new.example.com", Status: 301},
		{Kind: matcher.Regex, Host: "e.example", From: `^/go(.*)$`, To: "https://new.example.com$1", Status: 302},
		{Kind: matcher.Regex, Host: "f.example", From: `^/r/(.*)$`, To: "$1", Status: 302},
	})
	if err != nil {
		t.Fatal(err)
	}
	srv.Swap(set)
	tests := []struct{ host, target, want string }{
		{"a.example", "/old.evil.net", "https://new.example.com/.evil.net"},
		{"a.example", "/old@evil.net", "https://new.example.com/@evil.net"},
		{"a.example", "/old/x", "https://new.example.com/x"},
		{"a.example", "/old?q=1", "https://new.example.com?q=1"},
		{"b.example", "/blog//evil.net", "/evil.net"},
		{"b.example", "/blog/%2F/evil.net", "/%2F/evil.net"},
		{"c.example", "/blog//evil.net", "/evil.net"},
		{"c.example", "/blog/%5Cevil.net", "/%5Cevil.net"},
		{"d.example", "/", "https://new.example.com"},
		{"d.example", "/@evil.net", "https://new.example.com/@evil.net"},
		{"e.example", "/go.evil.net/x", "https://new.example.com/.evil.net/x"},
		{"e.example", "/go:8080@evil.net", "https://new.example.com/:8080@evil.net"},
		{"f.example", "/r/https://evil.net/", "/https://evil.net/"},
		{"f.example", "/r///evil.net", "/evil.net"},
	}
	for _, tc := range tests {
		t.Run(tc.host+tc.target, func(t *testing.T) {
			c := tr.dial(t, srv)
			fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", tc.target, tc.host)
			a := readAnswer(t, bufio.NewReader(c), "GET")
			if a.Location != tc.want {
				t.Errorf("Location %q, want %q", a.Location, tc.want)
			}
		})
	}
}
