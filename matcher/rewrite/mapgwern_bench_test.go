package rewrite

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/redirectd/redirectd/benchmarks/realmaps"
	"github.com/redirectd/redirectd/internal/testutil"
	"github.com/redirectd/redirectd/matcher"
)

// gwernMap is the real site's map of about 42,000 regex keys
// (../shared/realmaps/gwern: move.conf then broken.conf), as one map's
// entries.
func gwernMap(tb testing.TB) string {
	dir := realmaps.Dir(tb, "gwern")
	var b strings.Builder
	for _, f := range []string{"move.conf", "broken.conf"} {
		text, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			tb.Fatal(err)
		}
		b.Write(text)
		b.WriteByte('\n')
	}
	// Both files say the default; the map takes it once.
	return strings.Replace(b.String(), "default \"\";", "", 1)
}

// gwernPaths are a hit on the first key, a hit on a key with no literal
// start ("^/.*nitter.net/..."), and misses under the map's most crowded
// start and under none.
var gwernPaths = []struct{ name, path string }{
	{"hit-first", "/Definition.hs"},
	{"hit-inside", "/x/nitter.net/teddyschleifer/status/1726644226006700522"},
	{"miss-doc", "/doc/ai/nn/transformer/gpt/nothing-here.html"},
	{"miss", "/nothing/here-at-all.html"},
}

// BenchmarkMapGwern is a request through the location model reading that
// map as gwern.net does (`if ($new_uri != "") { rewrite ... }`), its
// keys tried through the map index; BenchmarkMapGwernFlat is the same
// keys as the flat rules' regexes (what `import nginx` wrote for such a
// server before the index filed keys by a literal inside them). The
// model's misses are to cost within 1.5x of the flat rules'.
func BenchmarkMapGwern(b *testing.B) {
	p, err := Compile(Spec{Maps: []MapSpec{{Source: "$request_uri", Variable: "new_uri", Entries: gwernMap(b), EntriesLine: 1}},
		Locations: []LocationSpec{{Path: "/", Steps: `if ($new_uri != "") { rewrite ^(.*)$ $new_uri permanent; }`}}})
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range gwernPaths {
		b.Run(bc.name, func(b *testing.B) {
			req := request("gwern.net", bc.path, nil)
			var s Scratch
			var res Result
			p.Run(&s, req, &res)
			if hit := res.Action == Redirect; hit != strings.HasPrefix(bc.name, "hit") {
				b.Fatalf("%s: answer %v %q", bc.path, res.Action, res.Location)
			}
			cpuLoop(b, func() { p.Run(&s, req, &res) })
		})
	}
}

func BenchmarkMapGwernFlat(b *testing.B) {
	entries, _, _, _, err := parseMapEntries(gwernMap(b), 1)
	if err != nil {
		b.Fatal(err)
	}
	bl := matcher.NewBuilder(matcher.DefaultLimits)
	for _, e := range entries {
		expr, ok := strings.CutPrefix(e.key, "~")
		if !ok {
			continue
		}
		// Entries the flat rules cannot take (a value such as data:) are
		// left out, as the import leaves them.
		_ = bl.Add(&matcher.Rule{Kind: matcher.Regex, From: expr, To: e.value, Status: 301, RequestURI: true})
	}
	set, err := bl.Set()
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range gwernPaths {
		b.Run(bc.name, func(b *testing.B) {
			var m matcher.Match
			path := []byte(bc.path)
			if hit := set.Lookup(nil, path, nil, &m); hit != strings.HasPrefix(bc.name, "hit") {
				b.Fatalf("%s: hit is %v", bc.path, hit)
			}
			buf := make([]byte, 0, 256)
			cpuLoop(b, func() {
				if set.Lookup(nil, path, nil, &m) {
					buf = m.AppendLocation(buf[:0], nil)
				}
			})
		})
	}
}

// cpuLoop runs op b.N times, reporting the process's CPU per op beside
// ns/op: on a shared machine wall time counts others' turns too.
func cpuLoop(b *testing.B, op func()) {
	b.ReportAllocs()
	start := testutil.ProcessCPU()
	for b.Loop() {
		op()
	}
	b.ReportMetric(float64(testutil.ProcessCPU()-start)/float64(b.N), "cpu-ns/op")
}

// BenchmarkMapGwernHeap reports the heap that the gwern map's Programs
// hold, for one server and for two given the one map (as config gives
// every server the [[location_map]] tables, locations.go): its keys are
// to be compiled once, not once as the map's regexes and again as its
// index, nor once per server.
func BenchmarkMapGwernHeap(b *testing.B) {
	maps := []MapSpec{{Source: "$request_uri", Variable: "new_uri", Entries: gwernMap(b), EntriesLine: 1}}
	for _, servers := range []int{1, 2} {
		b.Run(fmt.Sprintf("servers/%d", servers), func(b *testing.B) {
			var specs []HostSpec
			for i := range servers {
				specs = append(specs, HostSpec{Host: fmt.Sprintf("s%d.gwern.net", i), Spec: Spec{Maps: maps,
					Locations: []LocationSpec{{Path: "/", Steps: `if ($new_uri != "") { rewrite ^(.*)$ $new_uri permanent; }`}}}})
			}
			var heap float64
			for b.Loop() {
				before := liveHeap()
				h, err := CompileHosts(specs)
				if err != nil {
					b.Fatal(err)
				}
				heap = float64(liveHeap()-before) / (1 << 20)
				runtime.KeepAlive(h)
			}
			b.ReportMetric(heap, "heap-MiB")
		})
	}
}

// liveHeap is the heap in use after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
