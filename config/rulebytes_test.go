package config

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/redirectd/redirectd/benchmarks/realmaps"
)

// TestRulesBytesHostileMap loads, at the default limits, a map in the
// shape of a reviewer's oversized rule source: 5,000 short lines (200 KB)
// whose regexes each compile to about 800 instructions, under the 2,000
// one regex may have. It is refused by max_rules_bytes at a line of the
// map, and the heap sampled while it loads never grows by 64 MiB over
// what it held before. Refused by the instruction budget alone (line
// 2,501), such a map grew the heap by about 180 MiB.
func TestRulesBytesHostileMap(t *testing.T) {
	dir := t.TempDir()
	var m strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&m, "\"~^/r%d/a{1,100}b{1,100}c{1,100}d{1,100}$\" /b;\n", i)
	}
	files := map[string]string{"rules.map": m.String(), "redirectd.toml": "[[map]]\nfile = \"rules.map\"\nstatus = 301\n"}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	base := heapObjects()
	var peak atomic.Uint64
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			if h := heapObjects(); h > peak.Load() {
				peak.Store(h)
			}
			select {
			case <-quit:
				return
			default:
				runtime.Gosched()
			}
		}
	}()
	_, err := Load(filepath.Join(dir, "redirectd.toml"))
	close(quit)
	<-done
	grown := int64(peak.Load()) - int64(base)
	if grown > 64<<20 {
		t.Errorf("the refused map grew the heap by %d MiB, want at most 64 MiB", grown>>20)
	}
	if err == nil || !strings.Contains(err.Error(), "rules.map:") || !strings.Contains(err.Error(), "(max_rules_bytes;") {
		t.Fatalf("the hostile map: %v, want it refused at a line of rules.map by max_rules_bytes", err)
	}
	t.Logf("%v; the heap grew by at most %d MiB", err, grown>>20)
}

func heapObjects() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestRulesBytesRealMap: a real site's map of 42,000 regex keys (1,713
// of which compile to programs; about 20 MB charged) loads at the default
// limits, with room to spare.
func TestRulesBytesRealMap(t *testing.T) {
	dir := realmaps.Dir(t, "gwern")
	toml := filepath.Join(t.TempDir(), "redirectd.toml")
	var cfg strings.Builder
	cfg.WriteString("[rules]\nmax_rules_bytes = 25000000\n\n")
	for _, f := range []string{"move.conf", "broken.conf"} {
		fmt.Fprintf(&cfg, "[[map]]\nfile = %q\nrequest_uri = true\ninvalid = \"skip\"\nstatus = 301\n\n", filepath.Join(dir, f))
	}
	if err := os.WriteFile(toml, []byte(cfg.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(toml); err != nil {
		t.Fatalf("the real map at 25 MB, under the 40 MiB default: %v", err)
	}
}
