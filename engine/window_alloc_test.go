//go:build !race

package engine

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/redirectd/redirectd/engine/accesslog"
	"github.com/redirectd/redirectd/matcher"
)

// TestServeAllocsWindowShadow checks that rules with a time window and
// shadow rules keep the hot path free of allocations, the shadow rule's
// access-log fields included.
func TestServeAllocsWindowShadow(t *testing.T) {
	alog, err := accesslog.Open(filepath.Join(t.TempDir(), "access.log"), accesslog.Combined)
	if err != nil {
		t.Fatal(err)
	}
	defer alog.Close()
	f := newServeFixtureWith(t, Options{AccessLog: alog})
	f.srv.clock.set(time.Now())
	set, err := matcher.Compile([]matcher.Rule{
		{From: "/win", To: "/in", Status: 302, Active: matcher.Window{From: time.Now().Add(-time.Hour), Until: time.Now().Add(time.Hour)}},
		{From: "/win", To: "/out", Status: 301},
		{From: "/over", To: "/x", Status: 302, Active: matcher.Window{Until: time.Now().Add(-time.Hour)}},
		{Kind: matcher.Regex, From: `^/shadow/(\d+)$`, To: "/s/$1", Status: 301, Shadow: true, File: "new.map", Line: 1},
		{Kind: matcher.Regex, From: `^/shadow/`, To: "/live/", Status: 301},
		{From: "/shadow-miss", To: "/s", Status: 301, Shadow: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	f.srv.rules.Store(set)
	for _, req := range []string{
		"GET /win HTTP/1.1\r\nHost: a\r\n\r\n",
		"GET /over HTTP/1.1\r\nHost: a\r\n\r\n",
		"GET /shadow/12 HTTP/1.1\r\nHost: a\r\n\r\n",
		"GET /shadow-miss HTTP/1.1\r\nHost: a\r\n\r\n",
	} {
		buf := []byte(req)
		allocs := testing.AllocsPerRun(100, func() {
			f.serve(t, buf)
			f.conn.loop.alog.Flush()
		})
		if allocs != 0 {
			t.Errorf("%q: %v allocations per request, want 0", req[:20], allocs)
		}
	}
	var shadowHits uint64
	set.Each(func(r matcher.RuleHits) { shadowHits += r.ShadowHits })
	if shadowHits == 0 {
		t.Error("the shadow rule was never counted: the requests did not reach it")
	}
}
