package matcher_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/redirectd/redirectd/benchmarks/realmaps"

	"github.com/redirectd/redirectd/benchmarks/rules"
	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/matcher"
)

// BenchmarkLookup measures one lookup plus building its Location over the
// reference rule set (10,000 exact, 1,000 prefix, 500 regex rules).
// Targets: exact <= 60 ns, prefix <= 150 ns, last regex <= 1 us,
// miss <= 150 ns, 0 allocs.
func BenchmarkLookup(b *testing.B) {
	s, err := matcher.Compile(rules.Rules(rules.Reference))
	if err != nil {
		b.Fatal(err)
	}
	host := []byte("www.example.com")
	for _, bc := range []struct{ name, path string }{
		{"exact", rules.ExactHit},
		{"prefix", rules.PrefixHit},
		{"last-regex", rules.LastRegex},
		{"miss", rules.Miss},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var m matcher.Match
			buf := make([]byte, 0, 256)
			path := []byte(bc.path)
			b.ReportAllocs()
			for b.Loop() {
				if s.Lookup(host, path, nil, &m) {
					buf = m.AppendLocation(buf[:0], nil)
				}
			}
		})
	}
}

// BenchmarkCompile measures compiling the reference rule set.
func BenchmarkCompile(b *testing.B) {
	rs := rules.Rules(rules.Reference)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := matcher.Compile(rs); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLookupExact measures an exact hit plus its Location in a packed
// table of 10,000 and of 1,000,000 rules (rules.MapKey shapes): "same"
// looks up one path again and again (cache-warm), "spread" cycles through
// 4,096 paths spread over the whole table, so that at a million rules
// most lookups miss the CPU caches as a busy server's would. The goal is
// that 1M costs about what 10k does.
func BenchmarkLookupExact(b *testing.B) {
	for _, n := range []int{10000, 1000000} {
		s := packedSet(b, n)
		keys := make([][]byte, 4096)
		for i := range keys {
			keys[i] = []byte(rules.MapKey(int(uint64(i) * 2654435761 % uint64(n))))
		}
		for _, mode := range []string{"same", "spread"} {
			b.Run(fmt.Sprintf("%d/%s", n, mode), func(b *testing.B) {
				var m matcher.Match
				buf := make([]byte, 0, 256)
				i := 0
				b.ReportAllocs()
				for b.Loop() {
					k := keys[0]
					if mode == "spread" {
						k = keys[i&4095]
						i++
					}
					if !s.Lookup(nil, k, nil, &m) {
						b.Fatalf("%s: no match", k)
					}
					buf = m.AppendLocation(buf[:0], nil)
				}
			})
		}
	}
}

// packedSet builds a Set of n exact rules as a map file would give them.
func packedSet(tb testing.TB, n int) *matcher.Set {
	bl := matcher.NewBuilder(matcher.DefaultLimits)
	for i := range n {
		r := matcher.Rule{Kind: matcher.Exact, From: rules.MapKey(i), To: rules.MapTarget(i), Status: 301, File: "big.map", Line: i + 1}
		if err := bl.Add(&r); err != nil {
			tb.Fatal(err)
		}
	}
	s, err := bl.Set()
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// BenchmarkLookupSitemap measures one lookup plus its Location in the
// sitemap corpus: 40,000 hand-written regex keys with the mix of a real
// site's nginx map (rules.Sitemap). "exact-10k" is an exact hit in a packed
// table of 10,000 rules, the yardstick: hit-first, hit-last
// and miss should stay near its cost, with 0 allocs.
func BenchmarkLookupSitemap(b *testing.B) {
	s, err := matcher.Compile(rules.SitemapRules(rules.SitemapSize))
	if err != nil {
		b.Fatal(err)
	}
	exact := packedSet(b, 10000)
	for _, bc := range []struct {
		name, path string
		set        *matcher.Set
		hit        bool
	}{
		{"exact-10k", rules.MapKey(5000), exact, true},
		{"hit-first", rules.SitemapFirst().Path, s, true},
		{"hit-last", rules.SitemapLast(rules.SitemapSize).Path, s, true},
		{"miss", rules.SitemapMiss, s, false},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var m matcher.Match
			buf := make([]byte, 0, 256)
			path := []byte(bc.path)
			if bc.set.Lookup(nil, path, nil, &m) != bc.hit {
				b.Fatalf("%s: hit is not %v", bc.path, bc.hit)
			}
			b.ReportAllocs()
			for b.Loop() {
				if bc.set.Lookup(nil, path, nil, &m) {
					buf = m.AppendLocation(buf[:0], nil)
				}
			}
		})
	}
}

// BenchmarkLongMiss measures a miss on a long path (8 KiB, the default
// max_path_bytes) against 100 unanchored regexes with no literal to file
// them under, so that every one runs: the backtracker's scratch is reset
// for each.
func BenchmarkLongMiss(b *testing.B) {
	var rs []matcher.Rule
	for i := range 100 {
		rs = append(rs, matcher.Rule{Kind: matcher.Regex, From: fmt.Sprintf(`[0-9]{%d}[a-z]+[A-Z]`, i%7+2), To: "/x", Status: 301})
	}
	s, err := matcher.Compile(rs)
	if err != nil {
		b.Fatal(err)
	}
	path := []byte("/" + strings.Repeat("a1", 4095))
	var m matcher.Match
	b.ReportAllocs()
	for b.Loop() {
		if s.Lookup(nil, path, nil, &m) {
			b.Fatal("hit")
		}
	}
}

// BenchmarkLookupGwern measures one lookup plus its Location in a real
// site's nginx map of about 42,000 regex keys (../shared/realmaps/gwern:
// move.conf then broken.conf, compared with $request_uri), loaded as
// `serve` loads it, the entries it cannot serve left out. The target is
// each case within 1.5x of an exact hit.
func BenchmarkLookupGwern(b *testing.B) {
	dir := realmaps.Dir(b, "gwern")
	toml := filepath.Join(b.TempDir(), "redirectd.toml")
	var cfg strings.Builder
	for _, f := range []string{"move.conf", "broken.conf"} {
		fmt.Fprintf(&cfg, "[[map]]\nfile = %q\nrequest_uri = true\ninvalid = \"skip\"\nstatus = 301\n\n", filepath.Join(dir, f))
	}
	if err := os.WriteFile(toml, []byte(cfg.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	c, err := config.Load(toml)
	if err != nil {
		b.Fatal(err)
	}
	benchLookups(b, c.Set, []lookupCase{
		{"exact-10k", rules.MapKey(5000), packedSet(b, 10000), true},
		{"hit-first", "/Definition.hs", c.Set, true},
		{"hit-late", "/ceshi/x", c.Set, true},
		{"miss", "/doc/nothing/here-at-all.html", c.Set, false},
	})
}

// BenchmarkCraftedGwern is a lookup of an 8 KiB path crafted from the
// literals of the regexes of the real site's map that run on the
// backtracker (matcher.CraftedPath), loaded as BenchmarkLookupGwern loads
// it: the CPU one request aimed at a real map's regex tier costs. The
// target is a quarter of nginx's on the same map (benchmarks/README.md).
func BenchmarkCraftedGwern(b *testing.B) {
	dir := realmaps.Dir(b, "gwern")
	toml := filepath.Join(b.TempDir(), "redirectd.toml")
	var cfg strings.Builder
	for _, f := range []string{"move.conf", "broken.conf"} {
		fmt.Fprintf(&cfg, "[[map]]\nfile = %q\nrequest_uri = true\ninvalid = \"skip\"\nstatus = 301\n\n", filepath.Join(dir, f))
	}
	if err := os.WriteFile(toml, []byte(cfg.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	c, err := config.Load(toml)
	if err != nil {
		b.Fatal(err)
	}
	path := matcher.CraftedPath(c.Set, 8192)
	if len(path) < 7000 || c.Set.Lookup(nil, path, nil, new(matcher.Match)) {
		b.Fatalf("crafted path of %d bytes, want a miss of about 8 KiB", len(path))
	}
	if out := os.Getenv("CRAFTED_PATH_OUT"); out != "" {
		// For the comparison with nginx (benchmarks/README.md).
		if err := os.WriteFile(out, path, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	var m matcher.Match
	b.ReportAllocs()
	for b.Loop() {
		c.Set.Lookup(nil, path, nil, &m)
	}
}

type lookupCase struct {
	name, path string
	set        *matcher.Set
	hit        bool
}

// benchLookups runs one sub-benchmark per case: a Lookup of its path and,
// on a hit, its Location.
func benchLookups(b *testing.B, _ *matcher.Set, cases []lookupCase) {
	for _, bc := range cases {
		b.Run(bc.name, func(b *testing.B) {
			var m matcher.Match
			buf := make([]byte, 0, 256)
			path := []byte(bc.path)
			if bc.set.Lookup(nil, path, nil, &m) != bc.hit {
				b.Fatalf("%s: hit is not %v", bc.path, bc.hit)
			}
			b.ReportAllocs()
			for b.Loop() {
				if bc.set.Lookup(nil, path, nil, &m) {
					buf = m.AppendLocation(buf[:0], nil)
				}
			}
		})
	}
}
