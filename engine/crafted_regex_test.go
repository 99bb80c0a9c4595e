package engine_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/matcher"
)

// craftedRegexCases are rule sets whose regexes a path crafted from their
// literals makes candidates by the hundred (matcher's craftedSets, through
// the server), with the answers those paths must get: past the regex
// tier's work budget the candidates left are answered in one pass, which
// must answer as running each would.
func craftedRegexCases(tb testing.TB) []struct {
	name   string
	set    *matcher.Set
	target string
	want   answer
	// onePass: the lookup goes past the work budget.
	onePass bool
} {
	tb.Helper()
	var loose, articles []matcher.Rule
	for i := range 300 {
		loose = append(loose, matcher.Rule{Kind: matcher.Regex, From: fmt.Sprintf(`[a-z]%d[0-9]*\.ht(m|ml)?`, i), To: fmt.Sprintf("/x%d", i), Status: 301})
	}
	for i := range 500 {
		articles = append(articles, matcher.Rule{Kind: matcher.Regex, From: fmt.Sprintf(`^/(.*)/article-%04d\.html$`, i), To: "/a/$1", Status: 301})
	}
	compile := func(rs []matcher.Rule) *matcher.Set {
		s, err := matcher.Compile(rs)
		if err != nil {
			tb.Fatal(err)
		}
		return s
	}
	l, a := compile(loose), compile(articles)
	digits := "/" + strings.Repeat("-0123456789.ht", 571)
	var b strings.Builder
	for i := 0; b.Len() < 7900; i++ {
		fmt.Fprintf(&b, "/article-%04d.html", i%500)
	}
	arts := b.String()
	return []struct {
		name    string
		set     *matcher.Set
		target  string
		want    answer
		onePass bool
	}{
		{"300 unanchored, every literal", l, digits, answer{Status: 404}, true},
		{"300 unanchored, rule 7 at the end", l, digits + "/q7.htm", answer{Status: 301, Location: "/x7"}, true},
		// Only the regex whose ending the path has is a candidate.
		{"500 articles, no ending", a, arts + "/article-0500.html", answer{Status: 404}, false},
		{"500 articles, the last", a, arts + "/article-0499.html", answer{Status: 301, Location: "/a" + arts}, false},
	}
}

// TestCraftedRegexPath sends the crafted paths to the real server and
// checks each answer, twice on one connection (the second lookup reuses
// the loop's matcher state), and that the lookups past the work budget
// are counted.
func TestCraftedRegexPath(t *testing.T) {
	srv := startServerWith(t, engine.Options{EventLoops: 1})
	passes := 0
	for _, tc := range craftedRegexCases(t) {
		if tc.onePass {
			passes += 2
		}
		srv.Swap(tc.set)
		c := dial(t, srv)
		br := bufio.NewReader(c)
		req := "GET " + tc.target + " HTTP/1.1\r\nHost: a\r\n\r\n"
		io.WriteString(c, req+req)
		for i := range 2 {
			got := readAnswer(t, br, "GET")
			got.Body, got.Close = "", false
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s, request %d (-want +got):\n%s", tc.name, i+1, diff)
			}
		}
	}
	var b strings.Builder
	srv.WriteMetrics(&b)
	if line := fmt.Sprintf("redirectd_regex_one_pass_total %d\n", passes); !strings.Contains(b.String(), line) {
		t.Errorf("metrics lack %s%s", line, grepLines(b.String(), "one_pass"))
	}
}

// BenchmarkCraftedRegexPath is one crafted request through the server,
// on one connection: the CPU an attacker's request aimed at the regex
// tier costs (client and server together, on loopback).
func BenchmarkCraftedRegexPath(b *testing.B) {
	srv := runBenchServer(b, engine.Options{})
	for _, tc := range craftedRegexCases(b) {
		b.Run(strings.ReplaceAll(tc.name, " ", "-"), func(b *testing.B) {
			srv.Swap(tc.set)
			c, err := net.Dial("tcp", srv.Addr())
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			req := []byte("GET " + tc.target + " HTTP/1.1\r\nHost: a\r\n\r\n")
			br := bufio.NewReader(c)
			for b.Loop() {
				if _, err := c.Write(req); err != nil {
					b.Fatal(err)
				}
				if err := skipAnswer(br); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// skipAnswer reads one answer with a Content-Length.
func skipAnswer(br *bufio.Reader) error {
	n := 0
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return err
		}
		if line == "\r\n" {
			break
		}
		if v, ok := strings.CutPrefix(strings.ToLower(line), "content-length: "); ok {
			fmt.Sscanf(v, "%d", &n)
		}
	}
	_, err := br.Discard(n)
	return err
}
