package rewrite

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// The radix tree's longest prefix is the brute-force one, in trees whose
// nodes branch a few ways and hundreds (byByte), and with the level's
// skip left out of paths and URI alike.
func TestPrefixTrieLongest(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, alphabet := range []string{"ab/", "abcdefghijklmnopqrstuvwxyz0123456789/."} {
		for _, skip := range []string{"", "/docs/"} {
			var tr prefixTrie
			var locs []*location
			seen := map[string]bool{}
			for range 400 {
				var b strings.Builder
				b.WriteString(skip)
				for range 1 + r.IntN(4) {
					b.WriteByte(alphabet[r.IntN(len(alphabet))])
				}
				if p := b.String(); !seen[p] {
					seen[p] = true
					l := &location{path: p}
					locs = append(locs, l)
					tr.add(p[len(skip):], l)
				}
			}
			tr.finish()
			for range 2000 {
				var b strings.Builder
				b.WriteString(skip)
				for range r.IntN(6) {
					b.WriteByte(alphabet[r.IntN(len(alphabet))])
				}
				uri := b.String()
				var want *location
				for _, l := range locs {
					if strings.HasPrefix(uri, l.path) && (want == nil || len(l.path) > len(want.path)) {
						want = l
					}
				}
				got, whole := tr.longest([]byte(uri[len(skip):]))
				if got != want || whole != (want != nil && want.path == uri) {
					t.Fatalf("alphabet %q, skip %q: longest(%q) = %v %v, want %v", alphabet, skip, uri, got, whole, want)
				}
			}
		}
	}
}
