package matcher

import (
	"fmt"
	"runtime"
	"testing"
)

// foldMapRules are n exact rules shaped like a documentation site's map
// (MDN's: mixed-case paths under a locale), with the options given.
func foldMapRules(n int, opts func(*Rule)) []Rule {
	rs := make([]Rule, n)
	for i := range rs {
		rs[i] = Rule{Kind: Exact, From: fmt.Sprintf("/en-US/docs/Web/API/Interface%d/Method_Name_%d", i/7, i),
			To: fmt.Sprintf("/en-US/docs/Web/API/Interface%d/method%d", i/7, i), Status: 301, File: "_redirects.txt", Line: i + 1}
		opts(&rs[i])
	}
	return rs
}

// BenchmarkFoldMapMemory reports the heap a Set of 17,572 exact rules
// holds (the size of a large site's locale map), plain, ASCII
// case-insensitive, and decoded with Unicode folding: what ignoring case
// costs beyond the plain table.
func BenchmarkFoldMapMemory(b *testing.B) {
	for _, c := range []struct {
		name string
		opts func(*Rule)
	}{
		{"plain", func(*Rule) {}},
		{"case-insensitive", func(r *Rule) { r.CaseInsensitive = true }},
		{"decoded-unicode", func(r *Rule) { r.CaseInsensitive, r.UnicodeFold, r.DecodedPath = true, true, true }},
	} {
		b.Run(c.name, func(b *testing.B) {
			rs := foldMapRules(17572, c.opts)
			var held uint64
			for b.Loop() {
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				s, err := Compile(rs)
				if err != nil {
					b.Fatal(err)
				}
				runtime.GC()
				runtime.ReadMemStats(&after)
				held = after.HeapAlloc - before.HeapAlloc
				runtime.KeepAlive(s)
			}
			b.ReportMetric(float64(held)/(1<<20), "MiB")
			b.ReportMetric(float64(held)/float64(len(rs)), "B/rule")
		})
	}
}

// BenchmarkLookupFolded measures a hit on a 17,572-rule map compared
// without case: ASCII on the normalised path, and Unicode on the
// decoded one (a path with escapes to decode and letters to fold).
func BenchmarkLookupFolded(b *testing.B) {
	for _, c := range []struct {
		name, path string
		opts       func(*Rule)
	}{
		{"case-insensitive", "/EN-us/docs/Web/API/Interface100/method_name_700", func(r *Rule) { r.CaseInsensitive = true }},
		{"decoded-unicode", "/EN-us/docs/Web/API/Interface100/%4Dethod_Name_700", func(r *Rule) { r.CaseInsensitive, r.UnicodeFold, r.DecodedPath = true, true, true }},
	} {
		b.Run(c.name, func(b *testing.B) {
			s, err := Compile(foldMapRules(17572, c.opts))
			if err != nil {
				b.Fatal(err)
			}
			var m Match
			path, dst := []byte(c.path), make([]byte, 0, 256)
			b.ReportAllocs()
			for b.Loop() {
				if !s.Lookup(nil, path, nil, &m) {
					b.Fatal("no match")
				}
				dst = m.AppendLocation(dst[:0], nil)
			}
		})
	}
}
