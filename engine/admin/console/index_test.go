package console

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/engine/admin"
	"github.com/redirectd/redirectd/engine/admin/edit"
	"github.com/redirectd/redirectd/internal/testutil"
)

// TestIndexSearch: a query matches host, from or to in any case, once
// per rule, within the spans of the hosts asked for or allowed.
func TestIndexSearch(t *testing.T) {
	t.Parallel()
	x := buildIndex([]admin.RuleInfo{
		{Host: "b.example", From: "/Shoes", To: "/footwear"},
		{Host: "a.example", From: "/shoes-old", To: "/shoes"},
		{From: "/any", To: "https://a.example/any"},
		{Host: "c.example", From: "/x\n\x00b.example", To: "/y"},
		{Host: "sub.a.example", From: "/s", To: "/t"},
	}, "", time.Now())
	froms := func(rows []admin.RuleInfo) []string {
		out := []string{}
		for _, r := range rows {
			out = append(out, r.From)
		}
		return out
	}
	all := edit.Identity{Role: edit.RoleViewer}
	scoped := edit.Identity{Role: edit.RoleViewer, Hosts: []string{"a.example", "*.a.example"}}
	tests := []struct {
		name   string
		who    edit.Identity
		host   string
		q      string
		want   []string
		offset int
	}{
		{"every rule, by host then in order", all, "", "", []string{"/any", "/shoes-old", "/Shoes", "/x\n\x00b.example", "/s"}, 0},
		{"any case, once per rule", all, "", "SHOES", []string{"/shoes-old", "/Shoes"}, 0},
		{"target", all, "", "footwear", []string{"/Shoes"}, 0},
		{"host", all, "", "b.example", []string{"/Shoes", "/x\n\x00b.example"}, 0},
		{"a host filter", all, "B.example", "", []string{"/Shoes"}, 0},
		{"scoped: own hosts and patterns only", scoped, "", "", []string{"/shoes-old", "/s"}, 0},
		{"scoped: no rule without a host", scoped, "", "any", []string{}, 0},
		{"scoped: another host asked", scoped, "b.example", "", []string{}, 0},
		{"offset", all, "", "", []string{"/x\n\x00b.example", "/s"}, 3},
		{"no match", all, "", "zzz", []string{}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows, _, _ := x.search(x.spans(tt.who, tt.host), tt.q, tt.offset, 10)
			if diff := cmp.Diff(tt.want, froms(rows)); diff != "" {
				t.Errorf("search %q (-want +got):\n%s", tt.q, diff)
			}
		})
	}
}

// TestIndexSearchAgainstScan compares searches with a plain scan of the
// fields, for queries whose rarest byte falls anywhere in them,
// matches near the end of the text included.
func TestIndexSearchAgainstScan(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	word := func() string {
		const letters = "abcAB/.-x9"
		b := make([]byte, 1+rng.IntN(6))
		for i := range b {
			b[i] = letters[rng.IntN(len(letters))]
		}
		return string(b)
	}
	var list []admin.RuleInfo
	for range 300 {
		list = append(list, admin.RuleInfo{Host: []string{"", "a.example", "b.example"}[rng.IntN(3)], From: "/" + word(), To: word()})
	}
	x := buildIndex(list, "", time.Now())
	all := edit.Identity{Role: edit.RoleViewer}
	for range 2000 {
		q := word()
		rows, total, _ := x.search(x.spans(all, ""), q, 0, len(list))
		want := 0
		for _, r := range x.rules {
			lq := strings.ToLower(q)
			if strings.Contains(strings.ToLower(r.Host), lq) || strings.Contains(strings.ToLower(r.From), lq) || strings.Contains(strings.ToLower(r.To), lq) {
				want++
			}
		}
		if total != want || len(rows) != want {
			t.Fatalf("search %q: %d matches (%d rows), a scan finds %d", q, total, len(rows), want)
		}
	}
}

// TestIndexSearchCount: counts stop at maxCount; pages past the first
// come from the same order.
func TestIndexSearchCount(t *testing.T) {
	t.Parallel()
	x := buildIndex(manyRules(maxCount+500), "", time.Now())
	all := edit.Identity{Role: edit.RoleViewer}
	if _, total, capped := x.search(x.spans(all, ""), "/p", 0, 50); !capped || total != maxCount {
		t.Errorf("a query matching every rule: total %d capped %v", total, capped)
	}
	if _, total, capped := x.search(x.spans(all, ""), "", 0, 50); capped || total != maxCount+500 {
		t.Errorf("the empty query: total %d capped %v", total, capped)
	}
	rows, total, _ := x.search(x.spans(all, ""), "/p/00042", 0, 50)
	if total != 1 || rows[0].From != "/p/00042" {
		t.Errorf("one rule: %d %+v", total, rows)
	}
}

// manyRules returns n exact rules over 100 hosts, as the benchmark's
// million.
func manyRules(n int) []admin.RuleInfo {
	out := make([]admin.RuleInfo, n)
	for i := range out {
		out[i] = admin.RuleInfo{Kind: "exact", Host: fmt.Sprintf("h%02d.example", i%100), From: fmt.Sprintf("/p/%05d", i),
			To: fmt.Sprintf("https://new.example/products/%d", i), Status: 301, Source: fmt.Sprintf("rules.map:%d", i+1)}
	}
	return out
}

// BenchmarkConsoleRules1M measures one search of the rules page over a
// million rules: a query matching one rule (the whole text is scanned),
// one matching every rule (stops at maxCount), and a host-scoped token's
// query (its hosts' part only). The target is < 100 ms a search.
func BenchmarkConsoleRules1M(b *testing.B) {
	x := buildIndex(manyRules(testutil.BenchSize(1_000_000)), "", time.Now())
	all := edit.Identity{Role: edit.RoleViewer}
	scoped := edit.Identity{Role: edit.RoleEditor, Hosts: []string{"h07.example"}}
	for _, bc := range []struct {
		name string
		who  edit.Identity
		q    string
	}{
		{"one-match", all, "/p/54321x"},
		{"no-match", all, "zzz-nothing"},
		{"every-rule", all, "products"},
		{"empty-page-2000", all, ""},
		{"scoped-host", scoped, "/p/1234"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				x.search(x.spans(bc.who, ""), bc.q, 2000*pageSize, pageSize)
			}
		})
	}
	b.Run("build", func(b *testing.B) {
		list := manyRules(testutil.BenchSize(1_000_000))
		b.ReportAllocs()
		for b.Loop() {
			buildIndex(list, "", time.Now())
		}
	})
}

// BenchmarkConsoleRulesPage1M measures the whole rules page over a
// million rules, through the admin server's handler: session, search,
// render of 50 rows. The index is built once before the loop (a page
// after a version change waits for that build, about a second).
func BenchmarkConsoleRulesPage1M(b *testing.B) {
	f := newFake()
	f.rules = manyRules(testutil.BenchSize(1_000_000))
	var c *Console
	s, err := admin.New(admin.Options{Listen: "127.0.0.1:0", Pages: func(s *admin.Server) http.Handler {
		c = New(s).(*Console)
		return c
	}}, f)
	if err != nil {
		b.Fatal(err)
	}
	h := s.Handler()
	cookie := ""
	get := func(target string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("GET", target, nil)
		req.Host = "127.0.0.1"
		if cookie != "" {
			req.Header.Set("Cookie", cookie)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w
	}
	w := get("/ui/rules")
	cookie = strings.Split(w.Header().Get("Set-Cookie"), ";")[0]
	for _, q := range []string{"q=%2Fp%2F54321x", "q=products&page=100", "host=h07.example&q=%2Fp%2F1234"} {
		b.Run(q, func(b *testing.B) {
			for b.Loop() {
				if w := get("/ui/rules?" + q); w.Code != 200 {
					b.Fatalf("%s: %d", q, w.Code)
				}
			}
		})
	}
}

// countingBackend counts the calls of Rules, each a copy of every rule
// that an index build makes.
type countingBackend struct {
	*fakeBackend
	calls   atomic.Int32
	release chan struct{} // Rules waits for it, so builds overlap
}

func (cb *countingBackend) Rules() []admin.RuleInfo {
	cb.calls.Add(1)
	<-cb.release
	return cb.fakeBackend.Rules()
}

// TestRuleCacheOneBuild: pages asking for a new version's index while it
// is built wait for that build rather than each making one, and a
// prefetch's build is the one the next page gets.
func TestRuleCacheOneBuild(t *testing.T) {
	t.Parallel()
	f := newFake()
	cb := &countingBackend{fakeBackend: f, release: make(chan struct{})}
	rc := &ruleCache{b: cb}
	rc.prefetch()
	testutil.WaitFor(t, testutil.Patience, "the prefetch's build", func() bool { return cb.calls.Load() == 1 })
	var wg sync.WaitGroup
	got := make([]*index, 8)
	for i := range got {
		wg.Go(func() { got[i] = rc.get(time.Now()) })
	}
	testutil.WaitFor(t, testutil.Patience, "the pages waiting for the build", func() bool {
		rc.mu.Lock()
		defer rc.mu.Unlock()
		return rc.building != nil && rc.building.waiters.Load() == int32(len(got)) || cb.calls.Load() > 1
	})
	close(cb.release)
	wg.Wait()
	if n := cb.calls.Load(); n != 1 {
		t.Errorf("Rules called %d times for one version, want 1", n)
	}
	for i, x := range got {
		if x == nil || x != got[0] || len(x.rules) != len(f.rules) {
			t.Fatalf("page %d got index %p, page 0 %p", i, x, got[0])
		}
	}
}
