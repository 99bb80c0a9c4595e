package matcher_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/redirectd/redirectd/internal/testutil"
	"github.com/redirectd/redirectd/matcher"
)

// conditionSet is the usual migration shape: one path told apart by a
// query parameter (n rules `/article.php?id=N`), a plain rule for that path
// behind them, one path told apart by a cookie (cookies rules with
// `when.cookie v=N`), and one plain exact rule, the yardstick.
func conditionSet(tb testing.TB, n, cookies int) *matcher.Set {
	rs := []matcher.Rule{{From: "/about", To: "/about-us", Status: 301}}
	for i := range n {
		rs = append(rs, matcher.Rule{From: "/article.php", To: "/articles/" + strconv.Itoa(i), Status: 301,
			Query: []matcher.QueryCond{{Name: "id", Value: strconv.Itoa(i)}}})
	}
	rs = append(rs, matcher.Rule{From: "/article.php", To: "/articles/", Status: 301})
	for i := range cookies {
		rs = append(rs, matcher.Rule{From: "/c", To: "/variant/" + strconv.Itoa(i), Status: 302,
			When: &matcher.When{Cookie: []matcher.KeyValue{{Name: "v", Value: strconv.Itoa(i)}}}})
	}
	s, err := matcher.Compile(rs)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// longQuery is an 8 KiB query of id parameters no rule has, ending in a
// parameter that is named but empty.
func longQuery() string {
	var b strings.Builder
	for i := 100000; b.Len() < 8192-16; i++ {
		fmt.Fprintf(&b, "id=%d&", i)
	}
	b.WriteString("id=")
	return b.String()
}

// longCookie is a 60 KB Cookie field of v cookies no rule has, then one
// that a rule has.
func longCookie() string {
	var b strings.Builder
	for i := 100000; b.Len() < 60000; i++ {
		fmt.Fprintf(&b, "c%d=%d; ", i, i)
	}
	b.WriteString("v=1999")
	return b.String()
}

// BenchmarkConditionIndex measures a lookup plus its Location among rules
// told apart by a query or cookie condition on one path. Targets: "query-
// hit-20000" within 2x "plain-exact-query" (a plain exact hit with the
// same query, kept in its Location), "query-8k" (a miss with an 8 KiB
// query) under 0.1 ms, "cookie-60k" (2,000 cookie rules, a 60 KB Cookie)
// under 0.1 ms, 0 allocs each.
func BenchmarkConditionIndex(b *testing.B) {
	s := conditionSet(b, 20000, 2000)
	for _, bc := range []struct {
		name, path, query, cookie, want string
	}{
		{"plain-exact", "/about", "", "", "/about-us"},
		{"plain-exact-query", "/about", "id=12345", "", "/about-us?id=12345"},
		{"query-hit-20000", "/article.php", "id=12345", "", "/articles/12345?id=12345"},
		{"query-hit-first-20000", "/article.php", "id=0", "", "/articles/0?id=0"},
		{"query-miss-20000", "/article.php", "id=x", "", "/articles/?id=x"},
		{"query-8k", "/article.php", longQuery(), "", ""},
		{"cookie-hit-2000", "/c", "", "a=1; v=1500", "/variant/1500"},
		{"cookie-60k", "/c", "", longCookie(), ""},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var m matcher.Match
			m.Req = &fakeReq{fields: [][2]string{{"Cookie", bc.cookie}}}
			buf := make([]byte, 0, 256)
			path, query := []byte(bc.path), []byte(bc.query)
			if bc.query == "" {
				query = nil
			}
			hit := s.Lookup(nil, path, query, &m)
			if bc.want != "" {
				if !hit {
					b.Fatalf("%s?%s: no match", bc.path, bc.query)
				}
				if got := string(m.AppendLocation(nil, query)); got != bc.want {
					b.Fatalf("%s?%.40s: Location %q, want %q", bc.path, bc.query, got, bc.want)
				}
			}
			b.ReportAllocs()
			start := int64(testutil.ProcessCPU())
			for b.Loop() {
				if s.Lookup(nil, path, query, &m) {
					buf = m.AppendLocation(buf[:0], query)
				}
			}
			b.ReportMetric(float64(int64(testutil.ProcessCPU())-start)/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkConditionSetCompile measures compiling conditionSet's 22,002
// rules, most of them on two paths: filing each under its path must not
// compare it with every rule already there.
func BenchmarkConditionSetCompile(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		conditionSet(b, 20000, 2000)
	}
}
