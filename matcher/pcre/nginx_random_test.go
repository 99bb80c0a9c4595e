package pcre

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/redirectd/redirectd/engine/testport"
	"github.com/redirectd/redirectd/internal/testutil"
)

// pcreGen writes random patterns of what RE2 lacks (lookarounds, atomic
// groups, possessive quantifiers, named backreferences) mixed with the
// common constructs, for TestNginxRandom.
type pcreGen struct {
	r     *rand.Rand
	names int
}

func (g *pcreGen) expr(depth int) string {
	if depth > 3 {
		return g.atom()
	}
	switch g.r.IntN(10) {
	case 0, 1, 2:
		return g.expr(depth+1) + g.expr(depth+1)
	case 3:
		return g.expr(depth+1) + "|" + g.expr(depth+1)
	case 4, 5:
		return g.group(depth) + g.quant()
	case 6:
		if g.names > 0 {
			return fmt.Sprintf(`\k<g%d>`, 1+g.r.IntN(g.names))
		}
	case 7:
		return []string{`(?<=a)`, `(?<!b)`, `(?<=/|ab)`, `(?<![ab]x)`, `\b`, `$`, `^`}[g.r.IntN(7)]
	}
	return g.atom() + g.quant()
}

func (g *pcreGen) group(depth int) string {
	e := g.expr(depth + 1)
	switch g.r.IntN(9) {
	case 7:
		return "(?-i:" + e + ")"
	case 8:
		return "(?s:" + e + ")"
	case 0:
		return "(?:" + e + ")"
	case 1:
		return "(?>" + e + ")"
	case 2:
		return "(?=" + e + ")"
	case 3:
		return "(?!" + e + ")"
	case 4:
		g.names++
		return fmt.Sprintf("(?<g%d>%s)", g.names, e)
	case 5:
		return "(?i:" + e + ")"
	}
	return "(" + e + ")"
}

func (g *pcreGen) atom() string {
	return []string{"a", "b", "/", "x", "A", ".", "[ab]", "[^a/]", `\d`, `\w`, `\W`, "1", "é", `\xC3`,
		`[[:alpha:]]`, `[[:^digit:]-]`, `\Qa.\E`, `\N`, `\x41`, `\.`, `[\w.-]`, `\S`}[g.r.IntN(22)]
}

func (g *pcreGen) quant() string {
	q := []string{"", "", "*", "+", "?", "{2}", "{1,2}", "{0,}"}[g.r.IntN(8)]
	if q != "" {
		q += []string{"", "", "?", "+"}[g.r.IntN(4)]
	}
	return q
}

// TestNginxRandom compares this engine with a real nginx on random
// patterns of every construct RE2 lacks, each on a few random paths:
// what matched and the groups' texts, as TestNginxAgrees does.
func TestNginxRandom(t *testing.T) {
	bin := testutil.FindNginx(t)
	r := rand.New(rand.NewPCG(35, 1))
	type tcase struct {
		re  string
		ci  bool // ~*
		ins []string
	}
	var cases []tcase
	for len(cases) < 300 {
		g := &pcreGen{r: r}
		re := g.expr(0)
		c := tcase{re: re, ci: len(cases)%3 == 2}
		if _, err := Compile(re, c.ci); err != nil {
			t.Fatalf("Compile(%q): %v", re, err)
		}
		for len(c.ins) < 4 {
			var b strings.Builder
			b.WriteByte('/')
			for range r.IntN(9) {
				b.WriteString([]string{"a", "b", "/", "x", "1", "A", "é", ".", "-"}[r.IntN(9)])
			}
			// nginx merges slashes and resolves dot segments in $uri
			if in := b.String(); !strings.Contains(in, "//") && !strings.Contains(in, "/.") {
				c.ins = append(c.ins, in)
			}
		}
		cases = append(cases, c)
	}
	dir := t.TempDir()
	addr, _ := testport.Addr(t)
	var conf strings.Builder
	fmt.Fprintf(&conf, "error_log %s/error.log;\npid %s/nginx.pid;\nevents {}\nhttp {\naccess_log off;\n", dir, dir)
	for i, c := range cases {
		q := strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(c.re)
		op := "~"
		if c.ci {
			op = "~*"
		}
		fmt.Fprintf(&conf, "server { listen %s; server_name c%d;\n location / { if ($uri %s \"(%s)\") { return 200 \"m|$1|$2|$3|$4\"; } return 200 \"n\"; } }\n", addr, i, op, q)
	}
	conf.WriteString("}\n")
	path := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(path, []byte(conf.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	testutil.RunNginx(t, bin, dir, path, addr)
	var s Scratch
	fails := 0
	for i, c := range cases {
		re, _ := Compile(c.re, c.ci)
		for _, in := range c.ins {
			caps := make([]int, 2*(re.NumSubexp()+1))
			budget := 1 << 22
			m, ex := re.Match(&s, []byte(in), caps, &budget)
			if ex {
				continue
			}
			want := format([]byte(in), m, caps)
			if got := nginxAnswer(t, addr, fmt.Sprintf("c%d", i), in); got != want {
				t.Errorf("%q (ci %v) on %q: nginx %q, pcre %q", c.re, c.ci, in, got, want)
				if fails++; fails > 10 {
					t.FailNow()
				}
			}
		}
	}
}
