package netlify

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/config/importer"
	"github.com/redirectd/redirectd/matcher"
)

// largeRedirects writes a _redirects shaped like a big documentation
// site's: n lines of section moves with splats, forced rules, versioned
// paths with placeholders, literal page moves (some with a trailing
// slash, some without status), comments and blank lines.
func largeRedirects(n int) string {
	rng := rand.New(rand.NewPCG(4, 2))
	var b strings.Builder
	b.WriteString("# Generated to the shape of a large documentation site's _redirects.\n\n")
	for i := 0; b.Len() < n*60 && i < n; i++ {
		if i%50 == 0 {
			fmt.Fprintf(&b, "\n# ---- section %d ----\n", i/50)
		}
		sec := fmt.Sprintf("s%d", i/50)
		switch r := rng.IntN(20); {
		case r < 2:
			fmt.Fprintf(&b, "/%s/old-%d/*   /%s/new-%d/:splat   301!\n", sec, i, sec, i)
		case r < 3:
			fmt.Fprintf(&b, "/%s/v%d/:page   /%s/latest/:page   302\n", sec, i, sec)
		case r < 4:
			fmt.Fprintf(&b, "/%s/api/%d/:kind/:name   /reference/%d/:name-:kind/   301\n", sec, i, i)
		case r < 5:
			fmt.Fprintf(&b, "/%s/page-%d/   /docs/%s/page-%d/\n", sec, i, sec, i)
		default:
			fmt.Fprintf(&b, "/%s/page-%d   /docs/%s/p%d   %s\n", sec, i, sec, i, []string{"301", "301!", "302", "308"}[rng.IntN(4)])
		}
	}
	b.WriteString("\n/*   /index.html   200\n")
	return b.String()
}

// netlifyLocation is the Location Netlify sends for path by rule r (whose
// pattern p matches it): placeholders and splat put into the target,
// the request's query passed on unless the rule matches on the query.
func netlifyLocation(r *Redirect, p pattern, path, query string) string {
	if len(path) > 1 {
		path = strings.TrimSuffix(path, "/")
	}
	parts := strings.Split(strings.TrimPrefix(path, "/"), "/")
	vals := map[string]string{}
	for i, s := range p.segs {
		if s.param != "" {
			vals[s.param] = parts[i]
		}
	}
	if p.splat {
		vals["splat"] = strings.Join(parts[len(p.segs):], "/")
	}
	to := substitute(r.To, append(p.names, "splat"))
	to = strings.NewReplacer("$$", "$").Replace(to)
	for k, v := range vals {
		to = strings.ReplaceAll(to, "${"+k+"}", v)
	}
	if query != "" && len(r.Query) == 0 {
		to += "?" + query
	}
	return to
}

// TestImportLarge imports a generated _redirects of thousands of lines
// and asks every rule's sample requests of the written config, loaded as
// serve loads it and answered by the matcher's own code: each answer must
// be the Location Netlify gives (first match in file order), or a miss
// where Netlify's rule is not translated. It also bounds the time.
func TestImportLarge(t *testing.T) {
	src := largeRedirects(4000)
	start := time.Now()
	rules, notes := Parse("_redirects", []byte(src))
	cands, more := Translate("_redirects", rules, importer.Options{})
	res := importer.Order(cands)
	took := time.Since(start)
	if len(rules) < 3000 {
		t.Fatalf("only %d rules generated", len(rules))
	}
	for _, n := range append(append(notes, more...), res.Notes...) {
		if n.Kind == importer.Differs || n.Kind == importer.LeftOut && !strings.Contains(n.Msg, "/index.html 200") {
			t.Errorf("unexpected note: %s", n)
		}
	}
	if took > time.Minute { // a guard against a blow-up; about 0.3 s without the race detector
		t.Errorf("import of %d rules took %v", len(rules), took)
	}
	t.Logf("%d lines, %d rules written, in %v", strings.Count(src, "\n"), len(res.Rules), took)
	var buf bytes.Buffer
	importer.WriteFileOrderTOML(&buf, "large", "", res.Rules)
	cfg, err := config.LoadFS(fstest.MapFS{"r.toml": {Data: buf.Bytes()}}, "r.toml")
	if err != nil {
		t.Fatal(err)
	}
	var m matcher.Match
	asked := 0
	for _, c := range cands {
		for _, s := range c.Samples {
			for _, q := range []string{s.Query, "utm=x"} {
				want, first := "", -1
				for i := range rules {
					if cands[i].Matches != nil && cands[i].Matches(importer.Request{Host: s.Host, Path: s.Path, Query: q}) {
						first = i
						break
					}
				}
				if first >= 0 && rules[first].Status != 200 {
					p, _ := parsePattern(rules[first].From)
					want = netlifyLocation(&rules[first], p, s.Path, q)
				}
				got := ""
				if cfg.Set.Lookup([]byte(s.Host), []byte(s.Path), queryBytes(q), &m) {
					got = string(m.AppendLocation(nil, queryBytes(q)))
				}
				asked++
				if got != want {
					t.Errorf("%s?%s: Location %q, want %q (line %d)", s.Path, q, got, want, rules[max(first, 0)].Line)
				}
			}
		}
	}
	t.Logf("%d requests asked", asked)
}

func queryBytes(q string) []byte {
	if q == "" {
		return nil
	}
	return []byte(q)
}
