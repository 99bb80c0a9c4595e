package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redirectd/redirectd/config/source"
)

// cacheDrillFiles is version v of the drill's rule set: two files, each
// with a rule answering /vN, so that a node serving a mix of two
// versions answers /a and /b with two numbers.
func cacheDrillFiles(v int) map[string]string {
	return map[string]string{
		"redirectd.toml": fmt.Sprintf("[[rule]]\nfrom = \"/a\"\nto = \"/v%d\"\n\n[[map]]\nfile = \"maps/site.map\"\n", v),
		"maps/site.map":  fmt.Sprintf("/b /v%d;\n", v),
	}
}

// TestCrashDrillCache is TestCrashDrillPins for the source cache's own
// files (cache_dir: the fetched rule sets, their records, current,
// pinned, loading): 40 SIGKILLs, three in four at one of the cache's
// write points (source.CrashSteps, in turn), the fourth at a random
// moment, while versions are published (now and then an older one
// again, whose folder the cache replaces), pinned by rollbacks and
// unpinned. After each kill the node starts again with the source down,
// so that it serves what its cache holds, and: it serves one published
// version whole (both files' rules answer the same version), the one
// its audit log says, every version the cache records holds the files
// its hash names, none is refused, and the audit log parses. At the end, with the source back,
// a new version serves: no version is refused for good.
func TestCrashDrillCache(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	origin := &ruleOrigin{}
	srv := httptest.NewServer(origin)
	defer srv.Close()
	origin.publish(t, cacheDrillFiles(0))
	cacheDir := t.TempDir()
	node := newSourceNode(t, buildBinary(t), srv.URL+"/site.tar.gz", cacheDir)
	stepOf := func(kill int) string {
		if kill%4 == 3 {
			return ""
		}
		k := kill - kill/4
		return fmt.Sprintf("%s@%d", source.CrashSteps[k%len(source.CrashSteps)], 1+k/len(source.CrashSteps)%3)
	}
	node.start()
	node.waitAnswer("/a", 301, "/v0", time.Minute)
	hc := &http.Client{Timeout: 10 * time.Second}
	try := func(method, path string) (int, []byte) {
		req, _ := http.NewRequest(method, "http://"+node.adminAddr+path, nil)
		resp, err := hc.Do(req)
		if err != nil {
			return 0, nil
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	var mu sync.Mutex
	published := 0
	at := map[string]int{}
	kills := 40
	for kill := range kills {
		node.cmd.Process.Kill()
		node.cmd.Wait()
		origin.setDown(false)
		step := stepOf(kill)
		node.startArmed(step)
		done := make(chan struct{})
		go func() {
			defer close(done)
			crng := rand.New(rand.NewPCG(seed, uint64(kill)+2))
			for cacheDrillAct(t, crng, origin, &mu, &published, try) {
			}
		}()
		if step == "" {
			// A random moment, as in TestCrashDrill: no bound on a check.
			time.Sleep(time.Duration(rng.IntN(60_000)) * time.Microsecond)
			node.cmd.Process.Kill()
		}
		waitKilled(t, node.cmd, step, node.stderr)
		<-done
		at[strings.Split(step, "@")[0]]++
		// Started again from its cache alone.
		origin.setDown(true)
		node.env = nil
		node.start()
		mu.Lock()
		last := published
		mu.Unlock()
		checkCacheDrill(t, node, cacheDir, last, kill)
		if t.Failed() {
			t.Fatalf("after kill %d at %q (seed %d):\n%s", kill+1, step, seed, node.stderr)
		}
	}
	origin.setDown(false)
	mu.Lock()
	published++
	last := published
	mu.Unlock()
	origin.publish(t, cacheDrillFiles(last))
	node.call("POST", "/reload")
	node.waitAnswer("/a", 301, fmt.Sprintf("/v%d", last), time.Minute)
	node.waitAnswer("/b", 301, fmt.Sprintf("/v%d", last), time.Minute)
	t.Logf("%d kills (by step: %v), %d versions published", kills, at, published)
}

// cacheDrillAct does one thing a node's cache sees, at random: a new
// version published (and the node asked to fetch it), an older one
// published again, a rollback (a pin), an unpin. It reports false once
// the node no longer answers.
func cacheDrillAct(t *testing.T, rng *rand.Rand, origin *ruleOrigin, mu *sync.Mutex, published *int, try func(method, path string) (int, []byte)) bool {
	switch n := rng.IntN(10); {
	case n < 4:
		mu.Lock()
		*published++
		v := *published
		mu.Unlock()
		origin.publish(t, cacheDrillFiles(v))
		code, _ := try("POST", "/reload")
		return code != 0
	case n < 5:
		// An older version again: the same files as a version the
		// cache keeps, so Commit replaces its folder.
		mu.Lock()
		v := max(0, *published-1-rng.IntN(3))
		mu.Unlock()
		origin.publish(t, cacheDrillFiles(v))
		code, _ := try("POST", "/reload")
		return code != 0
	case n < 8:
		code, body := try("GET", "/versions")
		if code != 200 {
			return false
		}
		var vs []struct{ Hash string }
		json.Unmarshal(body, &vs)
		if len(vs) < 2 {
			return true // nothing to roll back to
		}
		code, _ = try("POST", "/versions/rollback?to="+vs[1+rng.IntN(len(vs)-1)].Hash+"&message=drill")
		return code != 0
	default:
		code, _ := try("POST", "/versions/unpin")
		return code != 0
	}
}

// checkCacheDrill checks a node started again from its cache: it serves
// one version whole, of those published up to last; every version the
// cache records holds its files, whole; none is refused; the audit log
// parses whole, and the version serving is the one it says.
func checkCacheDrill(t *testing.T, node *sourceNode, cacheDir string, last, kill int) {
	t.Helper()
	_, a := node.answer("/a")
	_, b := node.answer("/b")
	var va int
	if _, err := fmt.Sscanf(a, "/v%d", &va); err != nil || a != b || va > last {
		t.Errorf("kill %d: /a answers %q and /b %q: want one published version (up to /v%d) whole", kill, a, b, last)
	}
	records, _ := filepath.Glob(filepath.Join(cacheDir, "versions", "*.json"))
	for _, r := range records {
		hash := strings.TrimSuffix(filepath.Base(r), ".json")
		got, err := source.Hash(filepath.Join(cacheDir, "versions", hash))
		if _, serr := os.Stat(filepath.Join(cacheDir, "versions", hash)); serr != nil || err != nil || got != hash {
			t.Errorf("kill %d: version %s recorded in cache_dir holds files of hash %q (%v %v)", kill, hash, got, err, serr)
		}
	}
	if b, err := os.ReadFile(filepath.Join(cacheDir, "refused")); err == nil && strings.TrimSpace(string(b)) != "" {
		t.Errorf("kill %d: cache_dir refuses %q, though every version published is good", kill, b)
	}
	// The version serving is the one the audit log says: the last new
	// version from the source, or the pin made since, each change not
	// followed by its abort.
	var current, pinned string
	recs := node.audit() // fails on a line that does not parse
	for i, r := range recs {
		if i+1 < len(recs) && recs[i+1].Action == "abort" {
			continue
		}
		switch r.Action {
		case "source":
			current, pinned = r.Hash, ""
		case "pin":
			pinned = r.Hash
		case "unpin":
			pinned = ""
		}
	}
	want := current
	if pinned != "" {
		want = pinned
	}
	if got, _ := node.serving(); got != want {
		t.Errorf("kill %d: version %s serves, but the audit log says %s (the last new version %s, pinned %q)", kill, got, want, current, pinned)
	}
}

// TestCrashCacheNewVersionEndsPin: a node killed once a new version from
// the source is current in cache_dir, before the pin it ends is removed,
// serves that version after a restart, as its audit log says (the pin
// stayed, and the old version served).
func TestCrashCacheNewVersionEndsPin(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	origin := &ruleOrigin{}
	srv := httptest.NewServer(origin)
	defer srv.Close()
	origin.publish(t, cacheDrillFiles(0))
	cacheDir := t.TempDir()
	node := newSourceNode(t, buildBinary(t), srv.URL+"/site.tar.gz", cacheDir)
	node.start()
	node.waitAnswer("/a", 301, "/v0", time.Minute)
	v0, _ := node.serving()
	origin.publish(t, cacheDrillFiles(1))
	node.call("POST", "/reload")
	node.waitAnswer("/a", 301, "/v1", time.Minute)
	if code, body := node.call("POST", "/versions/rollback?to="+v0+"&message=back"); code != 200 {
		t.Fatalf("rollback to %s: %d %s", v0, code, body)
	}
	node.cmd.Process.Kill()
	node.cmd.Wait()
	const step = "cache-current-renamed"
	node.startArmed(step)
	origin.publish(t, cacheDrillFiles(2))
	if resp, err := http.Post("http://"+node.adminAddr+"/reload", "", nil); err == nil {
		resp.Body.Close() // or the node killed itself first
	}
	waitKilled(t, node.cmd, step, node.stderr)
	origin.setDown(true) // it serves what its cache holds
	node.env = nil
	node.start()
	if _, pinned := node.serving(); pinned {
		t.Errorf("still pinned after a new version from the source")
	}
	node.waitAnswer("/a", 301, "/v2", minWait)
	checkCacheDrill(t, node, cacheDir, 2, 1)
}
