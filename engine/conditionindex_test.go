package engine_test

import (
	"bufio"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/matcher"
)

// TestConditionIndexEndToEnd serves the usual migration shape, 20,000
// rules on /article.php told apart by their id parameter and 2,000 on /c
// by a cookie, and sends raw requests over one connection: each answer
// comes from the rule its parameter or cookie names (looked up by name
// and value, not tried in turn), the plain rule answers the rest, and a
// parameter or cookie past the first matcher.MaxParams is not read.
func TestConditionIndexEndToEnd(t *testing.T) {
	var rs []matcher.Rule
	for i := range 20000 {
		rs = append(rs, matcher.Rule{From: "/article.php", To: "https://example.com/articles/" + strconv.Itoa(i), Status: 301,
			QueryString: matcher.QueryDrop, Query: []matcher.QueryCond{{Name: "id", Value: strconv.Itoa(i)}}})
	}
	rs = append(rs, matcher.Rule{From: "/article.php", To: "https://example.com/articles/", Status: 301, QueryString: matcher.QueryDrop})
	for i := range 2000 {
		rs = append(rs, matcher.Rule{From: "/c", To: "https://example.com/variant/" + strconv.Itoa(i), Status: 302,
			When: &matcher.When{Cookie: []matcher.KeyValue{{Name: "v", Value: strconv.Itoa(i)}}}})
	}
	rs = append(rs, matcher.Rule{From: "/c", To: "https://example.com/plain", Status: 302})
	set, err := matcher.Compile(rs)
	if err != nil {
		t.Fatal(err)
	}
	srv := startServer(t)
	srv.Swap(set)

	// filler is n parameters (or cookies, with sep "; ") that no rule has.
	filler := func(n int, sep string) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "f%d=%d%s", i, i, sep)
		}
		return b.String()
	}
	type answer struct {
		Status         int
		Location, Vary string
	}
	tests := []struct {
		name, target, cookie string
		want                 answer
	}{
		{"first rule", "/article.php?id=0", "", answer{301, "https://example.com/articles/0", ""}},
		{"a rule deep in the list", "/article.php?id=12345", "", answer{301, "https://example.com/articles/12345", ""}},
		{"last rule", "/article.php?utm_source=x&id=19999", "", answer{301, "https://example.com/articles/19999", ""}},
		{"escaped", "/article.php?i%64=4%32", "", answer{301, "https://example.com/articles/42", ""}},
		{"no rule's id", "/article.php?id=20000", "", answer{301, "https://example.com/articles/", ""}},
		{"no query", "/article.php", "", answer{301, "https://example.com/articles/", ""}},
		{"id within the bound", "/article.php?" + filler(matcher.MaxParams-1, "&") + "id=7", "", answer{301, "https://example.com/articles/7", ""}},
		{"id past the bound", "/article.php?" + filler(matcher.MaxParams, "&") + "id=7", "", answer{301, "https://example.com/articles/", ""}},
		{"cookie", "/c", "a=1; v=1500", answer{302, "https://example.com/variant/1500", "Cookie"}},
		{"cookie first in a long field", "/c", "v=3; " + filler(4000, "; "), answer{302, "https://example.com/variant/3", "Cookie"}},
		{"cookie past the bound", "/c", filler(matcher.MaxParams, "; ") + "v=1999", answer{302, "https://example.com/plain", "Cookie"}},
		{"no cookie", "/c", "", answer{302, "https://example.com/plain", "Cookie"}},
	}
	c := dial(t, srv)
	var reqs strings.Builder
	for _, tt := range tests {
		reqs.WriteString("GET " + tt.target + " HTTP/1.1\r\nHost: a\r\n")
		if tt.cookie != "" {
			reqs.WriteString("Cookie: " + tt.cookie + "\r\n")
		}
		reqs.WriteString("\r\n")
	}
	// Written from a goroutine: the answers are read while it writes.
	go c.Write([]byte(reqs.String()))
	br := bufio.NewReader(c)
	for _, tt := range tests {
		resp, err := http.ReadResponse(br, &http.Request{Method: "GET"})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		resp.Body.Close()
		got := answer{resp.StatusCode, resp.Header.Get("Location"), resp.Header.Get("Vary")}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: (-want +got)\n%s", tt.name, diff)
		}
	}
}
