package engine_test

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/matcher"
)

// TestCraftedPCREPath sends the real server paths for 500 unanchored
// rewrites that RE2 cannot run (lookaheads, werf's shape): one a rule
// answers, with its group in the Location, and one crafted from all
// their literals, which spends the PCRE work budget and gets 404; the
// latter is counted in redirectd_regex_pcre_abandoned_total.
func TestCraftedPCREPath(t *testing.T) {
	var rules []matcher.Rule
	var crafted strings.Builder
	for i := range 500 {
		rules = append(rules, matcher.Rule{Kind: matcher.Regex, From: fmt.Sprintf(`^(.*)/w%03d(?!\.html)/?$`, i),
			To: fmt.Sprintf("$1/w%03d/overview.html", i), Status: 302})
		fmt.Fprintf(&crafted, "/w%03d", i)
	}
	crafted.WriteString(".html")
	set, err := matcher.Compile(rules)
	if err != nil {
		t.Fatal(err)
	}
	srv := startServerWith(t, engine.Options{EventLoops: 1})
	srv.Swap(set)
	for _, tc := range []struct {
		target string
		want   answer
	}{
		{"/docs/v1/w250/", answer{Status: 302, Location: "/docs/v1/w250/overview.html"}},
		{"/docs/v1/w250.html", answer{Status: 404}},
		{crafted.String(), answer{Status: 404}},
	} {
		c := dial(t, srv)
		io.WriteString(c, "GET "+tc.target+" HTTP/1.1\r\nHost: a\r\n\r\n")
		got := readAnswer(t, bufio.NewReader(c), "GET")
		got.Body, got.Close = "", false
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("GET %.40s (-want +got):\n%s", tc.target, diff)
		}
	}
	var b strings.Builder
	srv.WriteMetrics(&b)
	if line := "redirectd_regex_pcre_abandoned_total 1\n"; !strings.Contains(b.String(), line) {
		t.Errorf("metrics lack %s%s", line, grepLines(b.String(), "pcre"))
	}
}
