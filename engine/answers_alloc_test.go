package engine

import (
	"strings"
	"testing"

	"github.com/redirectd/redirectd/benchmarks/rules"
	"github.com/redirectd/redirectd/matcher"
)

// newAnswersFixture is newServeFixture with [server] headers and, after
// the reference rules, a redirect with headers of its own, a 410 and a
// 451 regex.
func newAnswersFixture(tb testing.TB) *serveFixture {
	tb.Helper()
	f := newServeFixture(tb)
	server := []matcher.Header{{Name: "X-Frame-Options", Value: "DENY"}}
	own := matcher.MergeHeaders([]matcher.Header{{Name: "Cache-Control", Value: "max-age=3600"}}, server)
	rs := append(rules.Rules(rules.Reference),
		matcher.Rule{Kind: matcher.Exact, From: "/cached", To: "https://example.com/cached", Status: 301, Headers: own},
		matcher.Rule{Kind: matcher.Exact, From: "/gone", Status: 410},
		matcher.Rule{Kind: matcher.Regex, From: `^/legal/\d+$`, Status: 451, Headers: own})
	set, err := matcher.Compile(rs)
	if err != nil {
		tb.Fatal(err)
	}
	if err := set.SetHeaders(server); err != nil {
		tb.Fatal(err)
	}
	f.srv.Swap(set)
	return f
}

var answerCases = []struct{ name, req, want string }{
	{"headers", "GET /cached?a=1 HTTP/1.1\r\nHost: www.example.com\r\n\r\n",
		"HTTP/1.1 301 Moved Permanently\r\nLocation: https://example.com/cached?a=1\r\nContent-Length: 0\r\nCache-Control: max-age=3600\r\nX-Frame-Options: DENY\r\n"},
	{"gone", "GET /gone HTTP/1.1\r\nHost: www.example.com\r\n\r\n",
		"HTTP/1.1 410 Gone\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 5\r\nX-Frame-Options: DENY\r\n"},
	{"legal-regex", "HEAD /legal/7 HTTP/1.1\r\nHost: www.example.com\r\n\r\n",
		"HTTP/1.1 451 Unavailable For Legal Reasons\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 30\r\nCache-Control: max-age=3600\r\nX-Frame-Options: DENY\r\n"},
	{"miss", "GET " + rules.Miss + " HTTP/1.1\r\nHost: www.example.com\r\n\r\n",
		"HTTP/1.1 404 Not Found\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 10\r\nX-Frame-Options: DENY\r\n"},
}

// TestServeAnswersHeads checks the answers' heads up to the Date, which
// the allocation test and benchmark then repeat.
func TestServeAnswersHeads(t *testing.T) {
	f := newAnswersFixture(t)
	for _, c := range answerCases {
		got := string(f.serve(t, []byte(c.req)))
		if !strings.HasPrefix(got, c.want+"Date: ") {
			t.Errorf("%s: answer\n%q\ndoes not start with\n%q", c.name, got, c.want)
		}
	}
}

// BenchmarkServeAnswers is BenchmarkServe for answers with configured
// headers and without a Location; make test-bench-allocs holds it to no
// allocation.
func BenchmarkServeAnswers(b *testing.B) {
	for _, c := range answerCases {
		b.Run(c.name, func(b *testing.B) {
			f := newAnswersFixture(b)
			buf := []byte(c.req)
			b.SetBytes(int64(len(buf)))
			b.ReportAllocs()
			for b.Loop() {
				f.serve(b, buf)
			}
		})
	}
}
