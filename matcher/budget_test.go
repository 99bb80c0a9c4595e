package matcher

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
)

// hostileRegex is a rule in the shape of a reviewer's oversized map: a
// short line whose counted repetitions compile to about 800
// instructions, under the 2,000 one regex may have, so that only the
// rule set's budgets stop a map of them.
func hostileRegex(i int) Rule {
	return Rule{Kind: Regex, From: fmt.Sprintf(`^/r%d/a{1,100}b{1,100}c{1,100}d{1,100}$`, i), To: "/b", Status: 301, File: "rules.map", Line: i + 1}
}

// heapPeak samples the heap from a goroutine until stop is called, and
// returns the largest sample.
func heapPeak() (stop func() uint64) {
	var peak atomic.Uint64
	done, quit := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			if h := heapBytes(); h > peak.Load() {
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
	return func() uint64 { close(quit); <-done; return peak.Load() }
}

// TestRuleBytesRefusedPeak compiles hostile maps beside a running set of
// about 25 MB at the default limits: each is refused by max_rules_bytes
// at a line of the map, and the heap never grows by 64 MiB over what it
// held with the running set. Without the byte budget the instruction
// budget refused the counted repeats at line 2,501, the heap grown by
// about 180 MiB.
func TestRuleBytesRefusedPeak(t *testing.T) {
	words := "alpha|beta|gamma|delta|epsilon|zeta|eta|theta|iota|kappa|lambda|mu|nu|xi|omicron|pi|rho|sigma|tau|upsilon"
	running := NewBuilder(DefaultLimits)
	for i := range 700 {
		r := hostileRegex(i)
		if err := running.Add(&r); err != nil {
			t.Fatal(err)
		}
	}
	set, err := running.Set()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		rule func(i int) Rule
	}{
		{"counted repeats", hostileRegex},
		{"small programs", func(i int) Rule {
			return Rule{Kind: Regex, From: fmt.Sprintf(`^/r%d/(\d+)-([a-z]+)/(x|y|z)(\d{1,3})\.html$`, i), To: "/b/$1", Status: 301}
		}},
		{"alternations", func(i int) Rule {
			return Rule{Kind: Regex, From: fmt.Sprintf(`^/(%s)/r%d/(%s)$`, words, i, words), To: "/b/$1", Status: 301}
		}},
		{"prefix rules", func(i int) Rule { return Rule{Kind: Prefix, From: fmt.Sprintf(`/p/%d/`, i), To: "/b/", Status: 301} }},
	} {
		runtime.GC()
		base := heapBytes()
		stop := heapPeak()
		b := NewBuilder(DefaultLimits)
		var refused error
		for i := range 1_000_000 {
			r := tc.rule(i)
			r.File, r.Line = "rules.map", i+1
			if refused = b.Add(&r); refused != nil {
				break
			}
		}
		peak := stop()
		runtime.KeepAlive(b)
		grown := int64(peak) - int64(base)
		if grown > 64<<20 {
			t.Errorf("%s: the refused map grew the heap by %d MiB, want at most 64 MiB", tc.name, grown>>20)
		}
		var re *RuleError
		if !errors.As(refused, &re) || !errors.Is(refused, ErrLimit) || !strings.HasPrefix(refused.Error(), "rules.map:") || !strings.Contains(refused.Error(), "max_rules_bytes") {
			t.Errorf("%s: %v, want a RuleError past max_rules_bytes at a line of rules.map", tc.name, refused)
			continue
		}
		t.Logf("%s: refused at line %d after %d MiB charged; the heap grew by at most %d MiB", tc.name, re.Rule.Line, b.bytes>>20, grown>>20)
	}
	runtime.KeepAlive(set)
}

// TestRuleBytesEarlyRefusal: a regex whose estimated program does not
// fit what is left of the budget is refused before it is compiled, and
// one far past the instructions a regex may have before Simplify
// expands it (22,000 instructions here).
func TestRuleBytesEarlyRefusal(t *testing.T) {
	b := NewBuilder(Limits{RuleBytes: 20 << 10})
	r := hostileRegex(1)
	if err := b.Add(&r); err == nil || !strings.Contains(err.Error(), "max_rules_bytes") || b.bytes != 0 {
		t.Errorf("a regex of 800 instructions in 20 KiB: %v, %d bytes charged", err, b.bytes)
	}
	b = NewBuilder(DefaultLimits)
	r = Rule{Kind: Regex, From: `^/((abcdefghij|klmnopqrst){1,1000})$`, To: "/b", Status: 301, File: "f", Line: 3}
	if err := b.Add(&r); err == nil || !strings.Contains(err.Error(), "about 2") || !strings.Contains(err.Error(), "more than the 2000 allowed") {
		t.Errorf("a regex of 22,000 instructions: %v", err)
	}
}

// TestRuleBytesEstimate checks the estimates the budget charges against
// the heap the rules take once their Set is made: within a third, for
// each kind of rule the budget counts.
func TestRuleBytesEstimate(t *testing.T) {
	for _, tc := range []struct {
		name string
		rule func(i int) Rule
	}{
		{"program", hostileRegex},
		{"small program", func(i int) Rule {
			return Rule{Kind: Regex, From: fmt.Sprintf(`^/r%d/(\d+)-([a-z]+)/(x|y|z)(\d{1,3})\.html$`, i), To: "/b/$1", Status: 301}
		}},
		{"prefix", func(i int) Rule { return Rule{Kind: Prefix, From: fmt.Sprintf(`/p/%d/`, i), To: "/b/", Status: 301} }},
		{"lowered", func(i int) Rule {
			return Rule{Kind: Regex, From: fmt.Sprintf(`^/l/%d/x\.html$`, i), To: "/b", Status: 301}
		}},
	} {
		const n = 3000
		runtime.GC()
		base := heapBytes()
		b := NewBuilder(Limits{HostBytes: 1 << 32, HostRules: 1 << 30})
		for i := range n {
			r := tc.rule(i)
			r.File, r.Line = "m", i+1
			if err := b.Add(&r); err != nil {
				t.Fatal(err)
			}
		}
		s, err := b.Set()
		if err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		live := float64(int64(heapBytes()) - int64(base))
		runtime.KeepAlive(s)
		if ratio := live / float64(b.bytes); ratio < 0.75 || ratio > 1.33 {
			t.Errorf("%s: %.0f bytes a rule live, %d charged", tc.name, live/n, b.bytes/n)
		}
	}
}

// TestRuleBytesPacked: plain exact rules, which cost about their text in
// packed tables, are not charged, so that a million-rule map loads
// whatever the budget.
func TestRuleBytesPacked(t *testing.T) {
	b := NewBuilder(Limits{HostBytes: 1 << 32, HostRules: 1 << 30, RuleBytes: 1})
	for i := range 200_000 {
		r := Rule{Kind: Exact, From: fmt.Sprintf("/old/%d.html", i), To: "/new", Status: 301, File: "big.map", Line: i + 1}
		if err := b.Add(&r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.Set(); err != nil || b.bytes != 0 {
		t.Errorf("200,000 exact rules: %v, %d bytes charged", err, b.bytes)
	}
}
