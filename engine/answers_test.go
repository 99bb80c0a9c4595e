package engine_test

import (
	"bufio"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/matcher"
)

// serverHeaders and cacheHour are the [server] headers and a rule's own
// of answerRules, as config.Load merges them: the rule's field wins over
// the server's of the same name.
var (
	serverHeaders = []matcher.Header{{Name: "Cache-Control", Value: "no-store"}, {Name: "X-Frame-Options", Value: "DENY"}}
	cacheHour     = matcher.MergeHeaders([]matcher.Header{{Name: "Cache-Control", Value: "max-age=3600"}}, serverHeaders)
)

var answerRules = []matcher.Rule{
	{Kind: matcher.Exact, From: "/old", To: "https://example.com/new", Status: 301, Headers: cacheHour},
	{Kind: matcher.Exact, From: "/plain", To: "https://example.com/plain", Status: 302},
	{Kind: matcher.Exact, From: "/gone", Status: 410},
	{Kind: matcher.Prefix, From: "/legal/", Status: 451,
		Headers: matcher.MergeHeaders([]matcher.Header{{Name: "Link", Value: `<https://example.com/why>; rel="blocked-by"`}}, serverHeaders)},
	{Kind: matcher.Regex, From: `^/removed/\d+$`, Status: 410},
}

// startAnswerServer serves answerRules with serverHeaders, reached over tr.
func (tr transport) startAnswerServer(t *testing.T) *engine.Server {
	t.Helper()
	set, err := matcher.Compile(answerRules)
	if err != nil {
		t.Fatal(err)
	}
	if err := set.SetHeaders(serverHeaders); err != nil {
		t.Fatal(err)
	}
	srv := tr.start(t, engine.Options{})
	srv.Swap(set)
	return srv
}

// headAnswer is what TestGoneAndHeaders compares of an answer.
type headAnswer struct {
	Status                                 int
	Location, Body                         string
	CacheControl, FrameOptions, Link, Type string
	// Fields counts each configured field's lines: a merged field is sent
	// once.
	CacheControlLines int
	// Length is Content-Length: a HEAD answer's is the GET answer's
	// (RFC 9110 9.3.2).
	Length int64
}

// TestGoneAndHeaders sends every request on one kept-alive connection, so
// that a 410 or 451 (with or without a body, for HEAD) is seen to leave
// the connection usable and its framing right.
func TestGoneAndHeaders(t *testing.T) {
	t.Parallel()
	testGoneAndHeaders(t, plainTCP)
}

func testGoneAndHeaders(t *testing.T, tr transport) {
	srv := tr.startAnswerServer(t)
	c := tr.dial(t, srv)
	br := bufio.NewReader(c)
	server := headAnswer{CacheControl: "no-store", FrameOptions: "DENY", CacheControlLines: 1}
	with := func(h headAnswer, status int, loc, body, typ string) headAnswer {
		h.Status, h.Location, h.Body, h.Type, h.Length = status, loc, body, typ, int64(len(body))
		return h
	}
	head := func(h headAnswer, length int) headAnswer {
		h.Length = int64(length)
		return h
	}
	text := "text/plain; charset=utf-8"
	rule := headAnswer{CacheControl: "max-age=3600", FrameOptions: "DENY", CacheControlLines: 1}
	legal := server
	legal.Link = `<https://example.com/why>; rel="blocked-by"`
	tests := []struct {
		name, method, target string
		want                 headAnswer
	}{
		{"redirect with its own headers", "GET", "/old", with(rule, 301, "https://example.com/new", "", "")},
		{"redirect with the server's", "GET", "/plain", with(server, 302, "https://example.com/plain", "", "")},
		{"410", "GET", "/gone", with(server, 410, "", "gone\n", text)},
		{"410 HEAD has no body", "HEAD", "/gone", head(with(server, 410, "", "", text), len("gone\n"))},
		{"410 keeps no query", "GET", "/gone?x=1", with(server, 410, "", "gone\n", text)},
		{"451 prefix with a header", "GET", "/legal/a/b", with(legal, 451, "", "unavailable for legal reasons\n", text)},
		{"451 HEAD", "HEAD", "/legal/x", head(with(legal, 451, "", "", text), len("unavailable for legal reasons\n"))},
		{"410 regex", "GET", "/removed/42", with(server, 410, "", "gone\n", text)},
		{"404 has the server's", "GET", "/nothing", with(server, 404, "", "not found\n", text)},
		{"404 HEAD", "HEAD", "/nothing", head(with(server, 404, "", "", text), len("not found\n"))},
		{"still open after all", "GET", "/old?q=1", with(rule, 301, "https://example.com/new?q=1", "", "")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := io.WriteString(c, tt.method+" "+tt.target+" HTTP/1.1\r\nHost: a\r\n\r\n"); err != nil {
				t.Fatal(err)
			}
			resp, err := http.ReadResponse(br, &http.Request{Method: tt.method})
			if err != nil {
				t.Fatalf("reading response: %v", err)
			}
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Close {
				t.Errorf("the answer closes the connection")
			}
			if _, ok := resp.Header["Location"]; ok && tt.want.Location == "" {
				t.Errorf("the answer has a Location: %q", resp.Header.Get("Location"))
			}
			got := headAnswer{Status: resp.StatusCode, Location: resp.Header.Get("Location"), Body: string(body),
				CacheControl: resp.Header.Get("Cache-Control"), FrameOptions: resp.Header.Get("X-Frame-Options"),
				Link: resp.Header.Get("Link"), Type: resp.Header.Get("Content-Type"),
				CacheControlLines: len(resp.Header.Values("Cache-Control")), Length: resp.ContentLength}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Fatalf("answer mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestGoneRawBytes checks a 410's head byte for byte: its fields in
// order, the configured ones after the server's own framing fields.
func TestGoneRawBytes(t *testing.T) {
	t.Parallel()
	testGoneRawBytes(t, plainTCP)
}

func testGoneRawBytes(t *testing.T, tr transport) {
	srv := tr.startAnswerServer(t)
	c := tr.dial(t, srv)
	io.WriteString(c, "GET /gone HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
	raw, err := io.ReadAll(c)
	if err != nil {
		t.Fatal(err)
	}
	got := string(raw)
	head, body, ok := strings.Cut(got, "\r\n\r\n")
	if !ok {
		t.Fatalf("no end of head in %q", got)
	}
	var lines []string
	for _, l := range strings.Split(head, "\r\n") {
		if !strings.HasPrefix(l, "Date: ") && !strings.HasPrefix(l, "Strict-Transport-Security: ") {
			lines = append(lines, l)
		}
	}
	want := []string{"HTTP/1.1 410 Gone", "Content-Type: text/plain; charset=utf-8", "Content-Length: 5",
		"Cache-Control: no-store", "X-Frame-Options: DENY", "Connection: close"}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("head mismatch (-want +got):\n%s", diff)
	}
	if body != "gone\n" {
		t.Errorf("body = %q, want %q", body, "gone\n")
	}
}

// TestHTTPSRedirectHeaders checks that the https redirect carries the
// [server] headers too: every answer the server writes after reading a
// request does.
func TestHTTPSRedirectHeaders(t *testing.T) {
	set, err := matcher.Compile(answerRules)
	if err != nil {
		t.Fatal(err)
	}
	if err := set.SetHeaders(serverHeaders); err != nil {
		t.Fatal(err)
	}
	srv := startServerWith(t, engine.Options{HTTPSRedirect: true})
	srv.Swap(set)
	c := dial(t, srv)
	io.WriteString(c, "GET /a?b HTTP/1.1\r\nHost: example.com\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := []string{resp.Status, resp.Header.Get("Location"), resp.Header.Get("Cache-Control"), resp.Header.Get("X-Frame-Options")}
	want := []string{"301 Moved Permanently", "https://example.com/a?b", "no-store", "DENY"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answer (-want +got):\n%s", diff)
	}
}
